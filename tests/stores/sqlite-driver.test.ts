/**
 * Which SQLite driver a SqliteStore runs on: node:sqlite where this Node has it, better-sqlite3
 * elsewhere, the `driver` option over both; what each driver must do alike; and what a user
 * meets when the driver is not there. Rows are made for the drivers this Node has.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SqliteDriverName } from '../../src/stores/sqlite/driver';
import { nodeSqlite, withoutSqliteWarning, type NodeSqliteModule } from '../../src/stores/sqlite/load-node-sqlite';
import { openNodeSqlite } from '../../src/stores/sqlite/node-sqlite.driver';
import { defaultSqliteDriver } from '../../src/stores/sqlite/open-driver';
import { sqliteCodeName } from '../../src/stores/sqlite/sqlite-error-code';
import { openRaw, SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tw-sqlite-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [major, minor] = process.versions.node.split('.').map(Number);
/** node:sqlite without a flag: Node 22.13+, 23.4+, 24 and later (all with FTS5). */
const HAS_NODE_SQLITE = major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
const EXPECTED_DEFAULT: SqliteDriverName = HAS_NODE_SQLITE ? 'node:sqlite' : 'better-sqlite3';
const driverOf = (store: SqliteStore) => (store as unknown as { db(): { driver: SqliteDriverName } }).db().driver;
const save = (store: SqliteStore, sessionId: string, set: Record<string, unknown>) =>
  store.saveSession({ sessionId }, { set, deleted: [], appended: [] });

describe('the default SQLite driver', () => {
  it(`is ${EXPECTED_DEFAULT} on Node ${process.versions.node}, and a store without the option opens on it`, async () => {
    expect(defaultSqliteDriver()).toBe(EXPECTED_DEFAULT);
    expect(SQLITE_DRIVERS_HERE).toEqual(HAS_NODE_SQLITE ? ['node:sqlite', 'better-sqlite3'] : ['better-sqlite3']);
    const store = new SqliteStore({ path: ':memory:' });
    expect(driverOf(store)).toBe(EXPECTED_DEFAULT);
    await store.close();
  });

  it.each(SQLITE_DRIVERS_HERE)('the driver option %s overrides it', async (driver) => {
    const store = new SqliteStore({ driver, path: ':memory:' });
    expect(driverOf(store)).toBe(driver);
    await store.close();
  });

  it('an unknown driver is refused when the store is made, naming the choices', () => {
    expect(() => new SqliteStore({ driver: 'sqlite3' as SqliteDriverName })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringMatching(/'node:sqlite' or 'better-sqlite3'/) }),
    );
  });
});

describe.each(SQLITE_DRIVERS_HERE)('the %s driver', (driver) => {
  it('commits a transaction’s writes and returns its result; rolls all of them back when it throws', () => {
    const db = openRaw(driver, ':memory:');
    db.exec('CREATE TABLE t (a TEXT, b INTEGER)');
    const insert = db.prepare('INSERT INTO t (a, b) VALUES (?, ?)');
    expect(db.transaction('immediate', () => insert.run('x', 1).changes + insert.run('y', 2).changes)).toBe(2);
    expect(() =>
      db.transaction('immediate', () => {
        insert.run('z', 3);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(db.prepare('SELECT a, b FROM t ORDER BY b', 'raw').all()).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
    expect(db.prepare('SELECT a FROM t WHERE b = ?', 'pluck').get(2)).toBe('y');
    expect(db.prepare('SELECT a FROM t WHERE b = ?', 'pluck').get(9)).toBeUndefined();
    expect({ ...(db.prepare('SELECT a, b FROM t WHERE b = ?').get(1) as object) }).toEqual({ a: 'x', b: 1 });
    // BigInt parameters (the FTS rowids are pk * 2^32 + seq) bind as integers.
    expect(db.prepare('SELECT ? + 1', 'pluck').get(2n ** 40n)).toBe(2 ** 40 + 1);
    db.close();
    db.close(); // a second close does nothing
  });

  it('names SQLite errors by code, as the store expects (SQLITE_BUSY when another connection holds the lock)', () => {
    const path = join(dir, `busy-${driver.replace(':', '-')}.db`);
    const [a, b] = [openRaw(driver, path), sqliteBusy(driver, path)];
    a.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x)');
    a.exec('BEGIN IMMEDIATE');
    try {
      expect(() => b.exec('BEGIN IMMEDIATE')).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }));
      expect(() => b.exec('SELECT * FROM nowhere')).toThrow(expect.objectContaining({ code: 'SQLITE_ERROR' }));
    } finally {
      a.exec('ROLLBACK');
      a.close();
      b.close();
    }
  });
});

/** A second connection that gives up on a lock at once. */
const sqliteBusy = (driver: SqliteDriverName, path: string) => {
  const db = openRaw(driver, path);
  db.exec('PRAGMA busy_timeout = 0');
  return db;
};

describe('SQLite error names', () => {
  it('maps node:sqlite’s numeric codes to the names better-sqlite3 uses', () => {
    expect([5, 11, 14, 26, 18, 517, 779, 2067, 1290].map(sqliteCodeName)).toEqual([
      'SQLITE_BUSY',
      'SQLITE_CORRUPT',
      'SQLITE_CANTOPEN',
      'SQLITE_NOTADB',
      'SQLITE_TOOBIG',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_CORRUPT_INDEX',
      'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_IOERR', // an extended code not named here reads as its primary code
    ]);
  });
});

describe('loading node:sqlite', () => {
  it('drops only the "SQLite is an experimental feature" ExperimentalWarning, and only while loading', () => {
    // What reaches Node's own emitWarning (which prints to stderr): recorded instead of printed.
    const heard: string[] = [];
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string, type: string) => void heard.push(`${type}: ${warning}`)) as typeof process.emitWarning;
    try {
      withoutSqliteWarning(() => {
        process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
        process.emitWarning('Something else is an experimental feature', 'ExperimentalWarning');
        process.emitWarning('SQLite said something else', 'DeprecationWarning');
      });
      process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
    } finally {
      process.emitWarning = emit;
    }
    expect(heard).toEqual([
      'ExperimentalWarning: Something else is an experimental feature',
      'DeprecationWarning: SQLite said something else',
      'ExperimentalWarning: SQLite is an experimental feature and might change at any time',
    ]);
  });
});

if (HAS_NODE_SQLITE) {
  describe('node:sqlite and better-sqlite3 on one Node', () => {
    it('a second store on a file open here on the other driver is refused (two SQLite copies in one process do not share locks); once closed, the file opens on the other driver with its data', async () => {
      const path = join(dir, 'one-driver.db');
      const first = new SqliteStore({ driver: 'node:sqlite', path });
      await save(first, 's', { written: 'by node:sqlite' });
      const second = new SqliteStore({ driver: 'better-sqlite3', path });
      await expect(second.loadSession({ sessionId: 's' })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/already open in this process on driver 'node:sqlite'.*same driver/),
      });
      // The same driver shares the file, as two processes do.
      const same = new SqliteStore({ driver: 'node:sqlite', path });
      expect((await same.loadSession({ sessionId: 's' }))!.state).toEqual({ written: 'by node:sqlite' });
      await Promise.all([first.close(), same.close()]);
      expect((await second.loadSession({ sessionId: 's' }))!.state).toEqual({ written: 'by node:sqlite' });
      await save(second, 's', { written: 'by better-sqlite3' });
      await second.close();
      const back = new SqliteStore({ driver: 'node:sqlite', path });
      expect((await back.loadSession({ sessionId: 's' }))!).toMatchObject({ state: { written: 'by better-sqlite3' }, version: 2 });
      await back.close();
    });

    it('without setReturnArrays (node:sqlite before Node 24), raw and pluck rows still come in column order', () => {
      const real = (nodeSqlite() as { module: NodeSqliteModule }).module;
      // node:sqlite as Node 22 has it: statements with no setReturnArrays.
      class OlderDatabase {
        private readonly db: InstanceType<NodeSqliteModule['DatabaseSync']>;
        constructor(path: string) {
          this.db = new real.DatabaseSync(path);
        }
        prepare(sql: string) {
          const s = this.db.prepare(sql);
          return { run: s.run.bind(s), get: s.get.bind(s), all: s.all.bind(s) };
        }
        exec(sql: string) {
          this.db.exec(sql);
        }
        close() {
          this.db.close();
        }
      }
      const db = openNodeSqlite({ DatabaseSync: OlderDatabase }, ':memory:', 100);
      db.exec('CREATE TABLE t (body TEXT, seq INTEGER)');
      db.prepare('INSERT INTO t VALUES (?, ?), (?, ?)').run('b', 2, 'a', 1);
      expect(db.prepare('SELECT seq, body FROM t ORDER BY seq', 'raw').all()).toEqual([
        [1, 'a'],
        [2, 'b'],
      ]);
      expect(db.prepare('SELECT body FROM t WHERE seq = ?', 'pluck').get(2)).toBe('b');
      expect(db.prepare('SELECT body FROM t ORDER BY seq', 'pluck').all()).toEqual(['a', 'b']);
      db.close();
    });
  });
} else {
  describe('node:sqlite on a Node without it', () => {
    it('driver "node:sqlite" fails typed on first use, naming this Node and better-sqlite3', async () => {
      const store = new SqliteStore({ driver: 'node:sqlite', path: ':memory:' });
      const err = await store.loadSession({ sessionId: 's' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'ToolwrightConfigError', code: 'INVALID_CONFIG' });
      expect((err as Error).message).toContain(`Node ${process.version} has no node:sqlite`);
      expect((err as Error).message).toContain("driver: 'better-sqlite3' (npm install better-sqlite3");
    });
  });
}

/** A store's first call in a child process in which `better-sqlite3` cannot be resolved, as in an app that did not install it. */
function withoutBetterSqlite3(options: string): { result: unknown; stderr: string } {
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'better-sqlite3') { const e = new Error("Cannot find module 'better-sqlite3'"); e.code = 'MODULE_NOT_FOUND'; throw e; }
      return resolve.call(this, request, ...rest);
    };
    const { SqliteStore } = require('./src/index.ts');
    new SqliteStore(${options}).loadSession({ sessionId: 's' }).then(
      () => process.stdout.write(JSON.stringify('loaded')),
      (e) => process.stdout.write(JSON.stringify({ name: e.name, code: e.code, message: e.message })),
    );`;
  const run = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return { result: JSON.parse(run.stdout), stderr: run.stderr };
}

describe('without better-sqlite3 installed', () => {
  if (HAS_NODE_SQLITE) {
    it('the default store runs on node:sqlite, printing no warning', () => {
      expect(withoutBetterSqlite3("{ path: ':memory:' }")).toEqual({ result: 'loaded', stderr: '' });
    });

    it("driver 'better-sqlite3': PEER_MISSING naming the install command (12 or 13 fit this Node) and the built-in default", () => {
      const { result } = withoutBetterSqlite3("{ path: ':memory:', driver: 'better-sqlite3' }");
      expect(result).toMatchObject({ name: 'ToolwrightConfigError', code: 'PEER_MISSING' });
      const { message } = result as { message: string };
      expect(message).toContain("SqliteStore with driver: 'better-sqlite3' needs the optional dependency better-sqlite3");
      expect(message).toContain('Install it: npm install better-sqlite3.');
      expect(message).toContain('Or leave driver unset: on this Node the store runs on the built-in node:sqlite');
      expect(message).toMatch(/InMemoryStore/);
    });
  } else {
    it('the default store: PEER_MISSING naming npm install better-sqlite3@12, the Nodes that need nothing, and the other stores; the root loads without it', () => {
      const { result } = withoutBetterSqlite3("{ path: ':memory:' }");
      expect(result).toMatchObject({ name: 'ToolwrightConfigError', code: 'PEER_MISSING' });
      const { message } = result as { message: string };
      expect(message).toContain('SqliteStore (the default store) needs the optional dependency better-sqlite3, which is not installed');
      expect(message).toContain('npm install better-sqlite3@12');
      expect(message).toContain('(Node 22.13+ or 24 has it); there the default store needs nothing installed');
      expect(message).toMatch(/InMemoryStore/);
      expect(message).toMatch(/RedisStore or PostgresStore/);
    });
  }
});
