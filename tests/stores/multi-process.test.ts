import { spawn } from 'node:child_process';
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

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/store-worker.ts');
const TURNS = 15;

/** Starts the workers, releases them together once all are loaded, resolves when all are done. */
async function runWorkers(all: WorkerArgs[]): Promise<void> {
  let ready = 0;
  const children = all.map((args) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER, JSON.stringify(args)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const finished = new Promise<void>((done, fail) => {
      child.on('error', fail);
      child.on('exit', (code) =>
        code === 0 && out.includes('done') ? done() : fail(new Error(`worker ${args.worker} exited ${code}:\n${out}`)),
      );
    });
    child.stderr.on('data', (d) => (out += d));
    child.stdout.on('data', (d) => {
      const before = out.includes('ready');
      out += d;
      if (!before && out.includes('ready') && ++ready === all.length) for (const c of children) c.stdin.end('go\n');
    });
    return { stdin: child.stdin, finished };
  });
  await Promise.all(children.map((c) => c.finished));
}

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
    await runWorkers(['A', 'B'].map((worker, w) => ({ kind, target: target(), sessions, turns: TURNS, worker, driver: drivers?.[w] })));
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
