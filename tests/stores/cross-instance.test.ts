/**
 * Per-process caches on every store: two instances of one store on one backend (as two processes
 * have: the SQLite ones on one file) stay right when the other deletes and recreates a memory or
 * session, rewrites a history or claims a session. Real servers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import { startRedisAndPostgres, type PostgresServer, type RedisServer } from '../support/servers';
import { driverSlug, SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';
import { describeCrossInstanceConformance } from './cross-instance-conformance';

let redis: RedisServer;
let postgres: PostgresServer;
const dir = mkdtempSync(join(tmpdir(), 'tw-cross-'));
const stores: SessionStore[] = [];
const pair = (make: () => SessionStore): [SessionStore, SessionStore] => {
  const two: [SessionStore, SessionStore] = [make(), make()];
  stores.push(...two);
  return two;
};

beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
  rmSync(dir, { recursive: true, force: true });
});

describeCrossInstanceConformance('in-memory (one instance: one process)', () => {
  const store = new InMemoryStore();
  stores.push(store);
  return [store, store];
});
for (const driver of SQLITE_DRIVERS_HERE) {
  describeCrossInstanceConformance(`sqlite (two instances on one file, ${driver})`, () =>
    pair(() => new SqliteStore({ driver, path: join(dir, `shared-${driverSlug(driver)}.db`) })),
  );
}
describeCrossInstanceConformance('redis', () => pair(() => new RedisStore({ url: redis.url, keyPrefix: 'tw-cross:' })));
describeCrossInstanceConformance('postgres', () =>
  pair(() => new PostgresStore({ connectionString: postgres.connectionString, schema: 'tw_cross' })),
);
