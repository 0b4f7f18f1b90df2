import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailableError } from '../../src/errors/errors';
import { AgentContext } from '../../src/session/agent-context';
import { AgentMemory } from '../../src/session/agent-memory';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/stores/sqlite.store';
import type { SqliteConnection } from '../../src/stores/sqlite/driver';
import { driverSlug, openRaw, SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';
import { describeStoreConformance } from './store-conformance';

/** Every row of every table (the store's own connection). */
const residue = async (store: unknown) => {
  const db = (store as { db(): SqliteConnection }).db();
  const tables = ['sessions', 'session_state', 'session_messages', 'memories', 'memory_entries', 'memory_fts', 'memory_terms'];
  return tables.reduce((sum, t) => sum + (db.prepare(`SELECT count(*) FROM ${t}`, 'pluck').get() as number), 0);
};

// Every row once per driver this Node has. A raw connection that tampers with a file uses the
// store's driver: two copies of SQLite in one process do not see each other's locks.
describe.each(SQLITE_DRIVERS_HERE)('on %s', (driver) => {
  const dir = mkdtempSync(join(tmpdir(), `tw-sqlite-${driverSlug(driver)}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  describeStoreConformance(
    `sqlite (file, ${driver})`,
    (o) => new SqliteStore({ driver, path: join(dir, `conf-${n++}`, 'state.db'), ...o }),
    {
      ttl: 'clock',
      residue,
    },
  );
  describeStoreConformance(`sqlite (:memory:, ${driver})`, (o) => new SqliteStore({ driver, path: ':memory:', ...o }), {
    ttl: 'clock',
    residue,
  });

  describe('SqliteStore', () => {
    it('a loaded memory searches and records writes without reading its entries; whole-memory reads read them, as of the load', async () => {
      const path = join(dir, `lazy-${n++}`, 'state.db');
      const store = new SqliteStore({ driver, path });
      const key = { agentName: 'support', userId: 'u-lazy' };
      const seed = new AgentMemory(key);
      seed.addFact('Prefers email notifications');
      seed.addFact('Lives in Oslo');
      await store.saveMemory(key, seed.takeChanges());
      // A damaged entry that no search matches: reading every entry fails on it, a search never reads it.
      const raw = openRaw(driver, path);
      raw.prepare("UPDATE memory_entries SET body = '{not json' WHERE seq = 2").run();
      const memory = AgentMemory.fromSnapshot((await store.loadMemory(key))!);
      expect(memory.search('email').map((h) => h.content)).toEqual(['Prefers email notifications']);
      memory.addFact('Pays by invoice');
      expect(memory.search('invoice').map((h) => h.content)).toEqual(['Pays by invoice']);
      await store.saveMemory(key, memory.takeChanges());
      expect(() => memory.getFacts()).toThrow(StoreUnavailableError);
      raw.prepare('UPDATE memory_entries SET body = ? WHERE seq = 2').run(JSON.stringify(seed.getFacts()[1]));
      raw.close();
      // Read now, the entries are those of the load, then the ones added here (saved meanwhile: not twice).
      const later = AgentMemory.fromSnapshot((await store.loadMemory(key))!);
      later.addFact('Has a dog');
      const reloaded = (await store.loadMemory(key))!;
      await store.saveMemory(key, later.takeChanges());
      expect(later.getFacts().map((e) => e.content)).toEqual([
        'Prefers email notifications',
        'Lives in Oslo',
        'Pays by invoice',
        'Has a dog',
      ]);
      expect(reloaded.entries.map((e) => e.content)).toEqual(['Prefers email notifications', 'Lives in Oslo', 'Pays by invoice']);
      await store.close();
    });

    it('creates the folder, uses WAL and records the schema version', async () => {
      const path = join(dir, 'nested', 'deeper', 'state.db');
      const store = new SqliteStore({ driver, path });
      await store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] });
      await store.close();
      const db = openRaw(driver, path);
      expect(db.pragma('journal_mode')).toBe('wal');
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'", 'pluck').get()).toBe(String(SQLITE_SCHEMA_VERSION));
      db.close();
      // Reopening an existing, migrated file keeps the data.
      const reopened = new SqliteStore({ driver, path });
      expect((await reopened.loadSession({ sessionId: 's' }))!.state).toEqual({ a: 1 });
      await reopened.close();
    });

    it('upgrades a schema-1 database: existing memory entries become searchable in FTS5', async () => {
      const path = join(dir, 'v1.db');
      const key = { agentName: 'support', userId: 'u-1' };
      const first = new SqliteStore({ driver, path });
      const memory = new AgentMemory(key);
      memory.addFact('Prefers email notifications');
      memory.addFact('Lives in Oslo');
      await first.saveMemory(key, memory.takeChanges());
      await first.close();
      // Back to what schema 1 had: no search tables.
      const db = openRaw(driver, path);
      db.exec(
        "DROP TABLE memory_fts; DROP TABLE memory_terms; DROP TABLE channel_messages; UPDATE meta SET value = '1' WHERE key = 'schema_version'",
      );
      db.close();
      const reopened = new SqliteStore({ driver, path });
      expect((await reopened.searchMemory(key, 'notif')).map((h) => h.content)).toEqual(['Prefers email notifications']);
      expect((await reopened.searchMemory(key, 'osl')).map((h) => h.content)).toEqual(['Lives in Oslo']);
      await reopened.close();
    });

    it('upgrades a schema-2 database: what deletes left in the search index is gone, and a deleted memory’s id is never reused', async () => {
      const path = join(dir, 'v2.db');
      const [kept, gone] = [
        { agentName: 'support', userId: 'kept' },
        { agentName: 'support', userId: 'gone' },
      ];
      const first = new SqliteStore({ driver, path });
      for (const [key, text] of [
        [kept, 'Lives in Oslo'],
        [gone, 'Secret diagnosis'],
      ] as const) {
        const memory = new AgentMemory(key);
        memory.addFact(text);
        await first.saveMemory(key, memory.takeChanges());
      }
      await first.close();
      // What schema 2's deleteMemory did: the rows went, their words stayed in the index (and the id was free again).
      const db = openRaw(driver, path);
      db.exec(`DELETE FROM memory_entries WHERE memory_pk = 2; DELETE FROM memories WHERE id = 2;
             DROP TABLE channel_messages; UPDATE meta SET value = '2' WHERE key = 'schema_version'`);
      expect(db.prepare("SELECT count(*) FROM memory_terms WHERE term = 'secret'", 'pluck').get()).toBe(1);
      db.close();
      const reopened = new SqliteStore({ driver, path });
      const memory = new AgentMemory(gone);
      memory.addFact('Likes tea');
      await reopened.saveMemory(gone, memory.takeChanges());
      expect(await reopened.searchMemory(gone, 'secret')).toEqual([]);
      expect((await reopened.searchMemory(gone, 'tea')).map((h) => h.content)).toEqual(['Likes tea']);
      expect((await reopened.searchMemory(kept, 'oslo')).map((h) => h.content)).toEqual(['Lives in Oslo']);
      const raw = openRaw(driver, path);
      expect(raw.prepare("SELECT count(*) FROM memory_terms WHERE term = 'secret'", 'pluck').get()).toBe(0);
      const idOf = () => raw.prepare('SELECT id FROM memories WHERE user_id = ?', 'pluck').get('gone');
      expect(idOf()).toBe(2);
      // From now on a deleted memory's id stays unused: deleted and created again, it gets a new one.
      await reopened.deleteMemory(gone);
      await reopened.saveMemory(gone, { added: memory.getAll().slice() });
      expect(idOf()).toBe(3);
      raw.close();
      await reopened.close();
    });

    it('upgrades a database from before user input was JSON: user input and summaries stored as raw text read back the same, then as JSON', async () => {
      const path = join(dir, 'v4.db');
      const first = new SqliteStore({ driver, path });
      // Raw text that looks like JSON must stay text; NUL was kept raw by SQLite.
      const raw = ['null', '"quoted"', '42', 'é ✓ a\u0000b', ''];
      for (const [i, text] of raw.entries()) {
        await first.saveSession({ sessionId: `s${i}` }, { set: {}, deleted: [], appended: [], userInput: text });
        await first.saveMemory({ agentName: 'a', userId: `u${i}` }, { added: [], summary: text });
      }
      await first.saveSession({ sessionId: 'none' }, { set: {}, deleted: [], appended: [], userInput: null });
      await first.close();
      // What the previous schema wrote: the text itself.
      const db = openRaw(driver, path);
      for (const [i, text] of raw.entries()) {
        db.prepare('UPDATE sessions SET user_input = ? WHERE session_id = ?').run(text, `s${i}`);
        db.prepare('UPDATE memories SET summary = ? WHERE user_id = ?').run(text, `u${i}`);
      }
      // Back to before the JSON-text migration (before the idempotency and rate counter tables and the listing indexes, which run again as well).
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SQLITE_SCHEMA_VERSION - 4));
      db.close();
      const reopened = new SqliteStore({ driver, path });
      for (const [i, text] of raw.entries()) {
        expect((await reopened.loadSession({ sessionId: `s${i}` }))!.userInput).toBe(text);
        expect((await reopened.loadMemory({ agentName: 'a', userId: `u${i}` }))!.summary).toBe(text);
      }
      expect((await reopened.loadSession({ sessionId: 'none' }))!.userInput).toBeNull();
      await reopened.saveSession({ sessionId: 's0' }, { set: {}, deleted: [], appended: [], userInput: 'lone \uD800' });
      expect((await reopened.loadSession({ sessionId: 's0' }))!.userInput).toBe('lone \uD800');
      await reopened.close();
    });

    it('refuses a database written by a newer schema, with a typed error', async () => {
      const path = join(dir, 'future.db');
      const db = openRaw(driver, path);
      db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '999')");
      db.close();
      const store = new SqliteStore({ driver, path });
      await expect(store.loadSession({ sessionId: 's' })).rejects.toThrow(/newer than this toolwright/);
      await store.close();
    });

    it('applies historyWindow as the default history limit', async () => {
      const store = new SqliteStore({ driver, path: ':memory:', historyWindow: 2 });
      const ctx = new AgentContext({ sessionId: 's' });
      for (const c of ['a', 'b', 'c']) ctx.addMessage({ role: 'user', content: c });
      await store.saveSession({ sessionId: 's' }, ctx.takeChanges());
      expect((await store.loadSession({ sessionId: 's' }))!.history.map((m) => m.content)).toEqual(['b', 'c']);
      expect((await store.loadSession({ sessionId: 's' }, { historyLimit: 3 }))!.history).toHaveLength(3);
      await store.close();
    });

    it('fails with StoreUnavailableError on an unwritable path', async () => {
      // A regular file where a folder must be: not writable even for root.
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      const store = new SqliteStore({ driver, path: join(file, 'state.db') });
      const err = await store.saveSession({ sessionId: 's' }, { set: {}, deleted: [], appended: [] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      await expect(store.loadSession({ sessionId: 's' })).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it('fails with StoreUnavailableError when another connection holds the write lock too long', async () => {
      const path = join(dir, 'locked.db');
      const store = new SqliteStore({ driver, path, busyTimeoutMs: 50 });
      await store.saveSession({ sessionId: 's' }, { set: { v: 1 }, deleted: [], appended: [] });
      const other = openRaw(driver, path);
      other.exec('BEGIN IMMEDIATE');
      try {
        const err = await store.saveSession({ sessionId: 's' }, { set: { v: 2 }, deleted: [], appended: [] }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect((err as Error).message).toMatch(/locked/);
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
      // Nothing of the failed save was written; the store works again once the lock is gone.
      expect((await store.loadSession({ sessionId: 's' }))!).toMatchObject({ state: { v: 1 }, version: 1 });
      await store.saveSession({ sessionId: 's' }, { set: { v: 3 }, deleted: [], appended: [] });
      expect((await store.loadSession({ sessionId: 's' }))!).toMatchObject({ state: { v: 3 }, version: 2 });
      await store.close();
    });

    it('fails with StoreUnavailableError after close', async () => {
      const store = new SqliteStore({ driver, path: ':memory:' });
      await store.loadSession({ sessionId: 's' });
      await store.close();
      await expect(store.loadSession({ sessionId: 's' })).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});
