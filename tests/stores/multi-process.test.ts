import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import { startRedisAndPostgres, type PostgresServer, type RedisServer } from '../support/servers';
import type { SqliteDriverName } from '../../src/stores/sqlite/driver';
import { SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';
import type { WorkerArgs } from '../support/store-worker';
import { expectWholeTurns } from './crash-consistency';
import { runWorkers } from '../support/workers';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/store-worker.ts');
const TURNS = 15;

let redis: RedisServer;
let postgres: PostgresServer;
const dir = mkdtempSync(join(tmpdir(), 'tw-mp-'));
beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
});
afterAll(async () => {
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Which SQLite driver each worker runs: each driver this Node has, and (where it has both) one of each on one file. */
const sqliteRows: Array<[string, [SqliteDriverName, SqliteDriverName]]> = [
  ...SQLITE_DRIVERS_HERE.map((d): [string, [SqliteDriverName, SqliteDriverName]] => [`sqlite (${d})`, [d, d]]),
  ...(SQLITE_DRIVERS_HERE.length === 2
    ? [['sqlite (node:sqlite and better-sqlite3)', ['node:sqlite', 'better-sqlite3']] as [string, [SqliteDriverName, SqliteDriverName]]]
    : []),
];

describe.each([
  ['redis', 'redis', () => redis.url, (t: string) => new RedisStore({ url: t }), undefined],
  ['postgres', 'postgres', () => postgres.connectionString, (t: string) => new PostgresStore({ connectionString: t }), undefined],
  ...sqliteRows.map(
    ([name, drivers], i) =>
      [
        name,
        'sqlite',
        () => join(dir, `shared-${i}.db`),
        (t: string) => new SqliteStore({ path: t, driver: drivers[0] }),
        drivers,
      ] as const,
  ),
] as const)('%s shared by two processes', (_name, kind, target, open, drivers) => {
  it('loses no turn when both run turns on the same sessions at once', async () => {
    const sessions = Array.from({ length: 4 }, () => `mp-${randomUUID()}`);
    await runWorkers(
      WORKER,
      ['A', 'B'].map((worker, w): WorkerArgs => ({ kind, target: target(), sessions, turns: TURNS, worker, driver: drivers?.[w] })),
    );
    const store: SessionStore = open(target());
    try {
      for (const sessionId of sessions) {
        const snap = (await store.loadSession({ sessionId, tenantId: 'mp' }))!;
        const expected = ['A', 'B'].flatMap((w) => Array.from({ length: TURNS }, (_, i) => `${w}.${i}`));
        expectWholeTurns(snap, expected);
        expect(snap.version).toBe(2 * TURNS);
      }
    } finally {
      await store.close();
    }
  }, 90_000);
});
