/**
 * Store latency and throughput: `npx ts-node --transpile-only bench/stores.bench.ts`.
 * Starts its own redis-server and PostgreSQL (tests/support/servers.ts); prints a Markdown table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore } from '../src/stores/in-memory.store';
import { PostgresStore } from '../src/stores/postgres.store';
import { RedisStore } from '../src/stores/redis.store';
import { SqliteStore } from '../src/stores/sqlite.store';
import type { SessionStore } from '../src/stores/store';
import { startRedisAndPostgres } from '../tests/support/servers';
import { measure, PARALLEL_SESSIONS, PARALLEL_TURNS_EACH, TURNS } from './support/session-turns';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-bench-'));
  const [redis, postgres] = await startRedisAndPostgres();
  const stores: Array<[string, SessionStore]> = [
    ['in-memory', new InMemoryStore()],
    ['SQLite (file, WAL)', new SqliteStore({ path: join(dir, 'bench.db') })],
    ['Redis', new RedisStore({ url: redis.url })],
    ['PostgreSQL', new PostgresStore({ connectionString: postgres.connectionString })],
  ];
  const rows: string[] = [];
  try {
    for (const [name, store] of stores) {
      const r = await measure(name.replace(/\W+/g, '-'), store);
      await store.close();
      rows.push(`| ${name} | ${r.median.toFixed(2)} | ${r.p99.toFixed(2)} | ${Math.round(r.throughput)} | ${r.bigLoad.toFixed(1)} |`);
      process.stderr.write(`${name} done\n`);
    }
  } finally {
    await Promise.all([redis.destroy(), postgres.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Turn = load (last 20 messages) + set 1 of 10 state keys + 2 messages + save; ${TURNS} sequential turns.`);
  console.log(`Throughput: ${PARALLEL_SESSIONS} sessions in parallel, ${PARALLEL_TURNS_EACH} turns each.\n`);
  console.log('| store | turn median (ms) | turn p99 (ms) | turns/s, 100 sessions in parallel | load 10,000-message session (ms) |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
