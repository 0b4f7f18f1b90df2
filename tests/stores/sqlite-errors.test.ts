import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { StoreCorruptError, StoreUnavailableError, ToolwrightError } from '../../src/errors/errors';
import { SqliteStore } from '../../src/stores/sqlite.store';
import { driverSlug, SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';

const root = mkdtempSync(join(tmpdir(), 'tw-sqlite-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const save = (store: SqliteStore, sessionId: string, set: Record<string, unknown> = { a: 1 }) =>
  store.saveSession({ sessionId }, { set, deleted: [], appended: [] });

describe.each(SQLITE_DRIVERS_HERE)('SqliteStore errors name the file and the fix, on %s', (driver) => {
  const dir = join(root, driverSlug(driver));
  mkdirSync(dir);

  it('an unopenable path: STORE_UNAVAILABLE with the absolute path and what to check', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const path = relative(process.cwd(), join(file, 'state.db')); // given relative, reported absolute
    const store = new SqliteStore({ driver, path });
    const err = (await save(store, 's').catch((e: unknown) => e)) as StoreUnavailableError;
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err.message).toContain(join(file, 'state.db'));
    expect(err.message).toMatch(/EEXIST|ENOTDIR|SQLITE_CANTOPEN/);
    expect(err.message).toMatch(/directory/);
  });

  it('a file that is not a database: STORE_CORRUPT (not "unavailable"), with the absolute path and the fix', async () => {
    const file = join(dir, 'not-a-db.db');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const store = new SqliteStore({ driver, path: relative(process.cwd(), file) });
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
    const store = new SqliteStore({ driver, path: file });
    for (let i = 0; i < 40; i++) await save(store, `s-${i}`, { blob: 'x'.repeat(3000) });
    await store.close();
    // Overwrite every page after the header page with garbage.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 60, 0xff), 0, 4096 * 60, 4096);
    closeSync(fd);
    const reopened = new SqliteStore({ driver, path: file });
    const errors: unknown[] = [];
    for (let i = 0; i < 40; i++) await reopened.loadSession({ sessionId: `s-${i}` }).catch((e: unknown) => errors.push(e));
    await reopened.close();
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatchObject({ name: 'StoreCorruptError', code: 'STORE_CORRUPT' });
  });

  it('a ToolwrightError is never rewrapped as STORE_UNAVAILABLE', async () => {
    const err = (await new SqliteStore({ driver, path: ':memory:' })
      .loadSession({ sessionId: 's' }, { historyLimit: -1 })
      .catch((e: unknown) => e)) as ToolwrightError;
    expect(err.code).toBe('INVALID_CONFIG');
  });
});
