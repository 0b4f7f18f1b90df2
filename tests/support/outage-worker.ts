/**
 * A child process for the store outage tests (tests/stores/outage.test.ts): an app that runs turns
 * on a Redis or PostgreSQL store in a loop, with a client it made itself (`app`, as the first option
 * in docs/persistence.md) or one the store made (`store`). It prints one line per turn (`ok`, or the
 * error's code), `driver-error` each time the store's `onError` hears from the driver, and stops
 * (`done`) when its stdin ends. A driver error that crashes the process ends it before `done`.
 */
import Redis from 'ioredis';
import { Pool } from 'pg';
import { ToolwrightError } from '../../src/errors/errors';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import type { SessionStore } from '../../src/stores/store';
import { writeTurn } from './turns';

export interface OutageWorkerArgs {
  kind: 'redis' | 'postgres';
  /** Whose client: the app's (passed in) or the store's own. */
  client: 'app' | 'store';
  /** A Redis URL or a PostgreSQL connection string. */
  target: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(args: OutageWorkerArgs): { store: SessionStore; closeApp: () => Promise<void> } {
  const onError = () => process.stdout.write('driver-error\n');
  if (args.kind === 'postgres') {
    if (args.client === 'store') return { store: new PostgresStore({ connectionString: args.target, onError }), closeApp: async () => {} };
    // An app's pool as docs/persistence.md shows it, with no 'error' listener of its own.
    const pool = new Pool({ connectionString: args.target, max: 4, connectionTimeoutMillis: 2000 });
    return { store: new PostgresStore({ pool, onError }), closeApp: () => pool.end() };
  }
  if (args.client === 'store') return { store: new RedisStore({ url: args.target, onError }), closeApp: async () => {} };
  // Bounded waits are the app's choice for its own client: a command fails after one reconnect attempt.
  const client = new Redis(args.target, { maxRetriesPerRequest: 1, retryStrategy: () => 100, connectTimeout: 1000 });
  return { store: new RedisStore({ client, onError }), closeApp: async () => void client.disconnect() };
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as OutageWorkerArgs;
  const { store, closeApp } = open(args);
  let stopping = false;
  process.stdin.resume();
  process.stdin.once('end', () => (stopping = true));
  // Three sessions at once, then a pause: a pool holds idle clients most of the time, as an app's does.
  for (let i = 0; !stopping; i++) {
    await Promise.all(
      [0, 1, 2].map(async (s) => {
        try {
          await writeTurn(store, { sessionId: `outage-${process.pid}-${s}` }, String(i));
          process.stdout.write('ok\n');
        } catch (error) {
          process.stdout.write(`${error instanceof ToolwrightError ? error.code : `raw ${String(error)}`}\n`);
        }
      }),
    );
    await sleep(50);
  }
  await store.close();
  await closeApp();
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
