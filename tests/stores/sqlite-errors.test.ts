import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { StoreCorruptError, StoreUnavailableError, ToolwrightError } from '../../src/errors/errors';
import { SqliteStore } from '../../src/stores/sqlite.store';

const dir = mkdtempSync(join(tmpdir(), 'tw-sqlite-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROOT = resolve(__dirname, '../..');
const save = (store: SqliteStore, sessionId: string, set: Record<string, unknown> = { a: 1 }) =>
  store.saveSession({ sessionId }, { set, deleted: [], appended: [] });

describe('SqliteStore errors name the file and the fix', () => {
  it('an unopenable path: STORE_UNAVAILABLE with the absolute path and what to check', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const path = relative(process.cwd(), join(file, 'state.db')); // given relative, reported absolute
    const store = new SqliteStore({ path });
    const err = (await save(store, 's').catch((e: unknown) => e)) as StoreUnavailableError;
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err.message).toContain(join(file, 'state.db'));
    expect(err.message).toMatch(/EEXIST|ENOTDIR|SQLITE_CANTOPEN/);
    expect(err.message).toMatch(/directory/);
  });

  it('a file that is not a database: STORE_CORRUPT (not "unavailable"), with the absolute path and the fix', async () => {
    const file = join(dir, 'not-a-db.db');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const store = new SqliteStore({ path: relative(process.cwd(), file) });
    const err = (await store.loadSession({ sessionId: 's' }).catch((e: unknown) => e)) as StoreCorruptError;
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect(err).not.toBeInstanceOf(StoreUnavailableError);
    expect(err.code).toBe('STORE_CORRUPT');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/SQLITE_NOTADB/);
    expect(err.message).toMatch(/backup|move it aside/);
    // Asking again gives the same answer: nothing was written over the file.
    await expect(save(store, 's')).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('a database whose pages are damaged: STORE_CORRUPT on the call that reads them', async () => {
    const file = join(dir, 'damaged.db');
    const store = new SqliteStore({ path: file });
    for (let i = 0; i < 40; i++) await save(store, `s-${i}`, { blob: 'x'.repeat(3000) });
    await store.close();
    // Overwrite every page after the header page with garbage.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 60, 0xff), 0, 4096 * 60, 4096);
    closeSync(fd);
    const reopened = new SqliteStore({ path: file });
    const errors: unknown[] = [];
    for (let i = 0; i < 40; i++) await reopened.loadSession({ sessionId: `s-${i}` }).catch((e: unknown) => errors.push(e));
    await reopened.close();
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatchObject({ name: 'StoreCorruptError', code: 'STORE_CORRUPT' });
  });

  it('without better-sqlite3 installed: PEER_MISSING naming the install command and the other stores; the root loads without it', () => {
    // A child process in which `better-sqlite3` cannot be resolved, as in an app that did not install it.
    const script = `
      const Module = require('node:module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'better-sqlite3') { const e = new Error("Cannot find module 'better-sqlite3'"); e.code = 'MODULE_NOT_FOUND'; throw e; }
        return resolve.call(this, request, ...rest);
      };
      const { SqliteStore } = require('./src/index.ts');
      new SqliteStore({ path: ':memory:' }).loadSession({ sessionId: 's' }).then(
        () => process.stdout.write('loaded'),
        (e) => process.stdout.write(JSON.stringify({ name: e.name, code: e.code, message: e.message })),
      );`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    );
    expect(out).toMatchObject({ name: 'ToolwrightConfigError', code: 'PEER_MISSING' });
    expect(out.message).toContain('npm install better-sqlite3@12');
    expect(out.message).toMatch(/InMemoryStore/);
    expect(out.message).toMatch(/RedisStore or PostgresStore/);
  });

  it('a ToolwrightError is never rewrapped as STORE_UNAVAILABLE', async () => {
    const err = (await new SqliteStore({ path: ':memory:' })
      .loadSession({ sessionId: 's' }, { historyLimit: -1 })
      .catch((e: unknown) => e)) as ToolwrightError;
    expect(err.code).toBe('INVALID_CONFIG');
  });
});
