/**
 * A child process for the multi-process store test: opens its own store and runs `turns` turns on
 * every session, all sessions at once, then prints `done`. Args: one JSON object (see WorkerArgs).
 * It prints `ready` once loaded and waits for a line on stdin, so that the parent can start all
 * workers' turns at the same moment (ts-node start-up times differ).
 */
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SqliteDriverName } from '../../src/stores/sqlite/driver';
import type { SessionStore } from '../../src/stores/store';
import { writeTurn } from './turns';

export interface WorkerArgs {
  kind: 'redis' | 'postgres' | 'sqlite';
  target: string;
  sessions: string[];
  turns: number;
  worker: string;
  /** The SQLite driver (kind 'sqlite'); this Node's default when absent. */
  driver?: SqliteDriverName;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as WorkerArgs;
  const store: SessionStore =
    args.kind === 'redis'
      ? new RedisStore({ url: args.target })
      : args.kind === 'postgres'
        ? new PostgresStore({ connectionString: args.target })
        : new SqliteStore({ path: args.target, busyTimeoutMs: 20_000, driver: args.driver });
  process.stdout.write('ready\n');
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.pause();
  try {
    for (let i = 0; i < args.turns; i++) {
      await Promise.all(args.sessions.map((sessionId) => writeTurn(store, { sessionId, tenantId: 'mp' }, `${args.worker}.${i}`)));
    }
  } finally {
    await store.close();
  }
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
