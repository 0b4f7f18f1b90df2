/**
 * A child process for the multi-process rate counter test: opens its own store, waits for the
 * parent's go (see runWorkers), hits one key `hits` times at once, prints `count <n>` per hit, then `done`.
 */
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SqliteDriverName } from '../../src/stores/sqlite/driver';

export interface RateWorkerArgs {
  kind: 'redis' | 'postgres' | 'sqlite';
  target: string;
  key: string;
  hits: number;
  worker: string;
  driver?: SqliteDriverName;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as RateWorkerArgs;
  const store =
    args.kind === 'redis'
      ? new RedisStore({ url: args.target })
      : args.kind === 'postgres'
        ? new PostgresStore({ connectionString: args.target })
        : new SqliteStore({ path: args.target, busyTimeoutMs: 20_000, driver: args.driver });
  process.stdout.write('ready\n');
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.pause();
  try {
    const rate = store.rateCounters('mp');
    const hits = await Promise.all(Array.from({ length: args.hits }, () => rate.hit(args.key, 3_600_000)));
    process.stdout.write(hits.map((h) => `count ${h.count}\n`).join(''));
  } finally {
    await store.close();
  }
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
