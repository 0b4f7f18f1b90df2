import fc from 'fast-check';
import { Pool } from 'pg';
import { StoreUnavailableError, ToolwrightConfigError } from '../../src/errors/errors';
import { AgentMemory } from '../../src/session/agent-memory';
import { POSTGRES_SCHEMA_VERSION, PostgresStore } from '../../src/stores/postgres.store';
import { freePort, startPostgres, type PostgresServer } from '../support/servers';
import { killMidWrite } from './crash-consistency';
import { describeStoreConformance } from './store-conformance';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.destroy();
});

describeStoreConformance('postgres', (o) => new PostgresStore({ connectionString: server.connectionString, ...o }), {
  ttl: true,
  residue: async () => {
    const pool = new Pool({ connectionString: server.connectionString });
    try {
      const tables = ['sessions', 'session_state', 'session_history', 'memories', 'memory_entries', 'memory_terms'];
      const { rows } = await pool.query(`SELECT ${tables.map((t) => `(SELECT count(*) FROM toolwright.${t})`).join(' + ')} AS n`);
      return Number(rows[0].n);
    } finally {
      await pool.end();
    }
  },
});

/** SQL turning a schema's history chunks back into schema 2's row per message. */
const historyAsMessages = (schema: string) => `
  CREATE TABLE ${schema}.session_messages (
    session_pk bigint NOT NULL REFERENCES ${schema}.sessions (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (session_pk, seq)
  );
  INSERT INTO ${schema}.session_messages (session_pk, seq, body)
    SELECT h.session_pk, h.first_seq + m.ord - 1, m.body FROM ${schema}.session_history h,
      json_array_elements_text(('[' || h.items || ']')::json) WITH ORDINALITY AS m(body, ord);
  DROP TABLE ${schema}.session_history;`;

describe('PostgresStore', () => {
  it('a store that keeps loaded history in its process loads what another writer appended, replaced, deleted or recreated', async () => {
    // A keeps history between loads; B writes as another process would; C (cache emptied) reads the truth.
    const [a, b, c] = [0, 1, 2].map(() => new PostgresStore({ connectionString: server.connectionString, schema: 'tw_history_cache' }));
    type Op = { kind: 'append' | 'replace'; n: number } | { kind: 'delete' | 'load' | 'window' | 'fresh' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constantFrom('append' as const, 'replace' as const), n: fc.integer({ min: 0, max: 300 }) }),
      fc.record({ kind: fc.constantFrom('delete' as const, 'load' as const, 'window' as const, 'fresh' as const) }),
    );
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
          const key = { sessionId: `s-${run++}` };
          let n = 0;
          const messages = (count: number) => Array.from({ length: count }, () => ({ role: 'user' as const, content: `m${n++}` }));
          for (const o of ops) {
            if (o.kind === 'append') await b.saveSession(key, { set: {}, deleted: [], appended: messages(o.n) });
            else if (o.kind === 'replace') await b.saveSession(key, { set: {}, deleted: [], appended: [], replacedHistory: messages(o.n) });
            else if (o.kind === 'delete') await b.deleteSession(key);
            else if (o.kind === 'window') await a.loadSession(key, { historyLimit: 5 });
            else if (o.kind === 'fresh') await a.saveSession(key, { set: {}, deleted: [], appended: messages(1) });
            // A store with nothing cached reads what is stored; closed, so the shared pool keeps no listener per read.
            const fresh = new PostgresStore({ pool: (c as unknown as { pool: Pool }).pool, schema: 'tw_history_cache' });
            const truth = await fresh.loadSession(key);
            await fresh.close();
            expect(await a.loadSession(key)).toEqual(truth);
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      await Promise.all([a, b, c].map((s) => s.close()));
    }
  });

  it('creates its schema and records the schema version, once, even with two stores starting together', async () => {
    const a = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_migrate' });
    const b = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_migrate' });
    await Promise.all([a.loadSession({ sessionId: 's' }), b.loadSession({ sessionId: 's' })]);
    const pool = new Pool({ connectionString: server.connectionString });
    try {
      const { rows } = await pool.query('SELECT version FROM tw_migrate.schema_version ORDER BY version');
      expect(rows.map((r: { version: number }) => r.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await pool.end();
      await a.close();
      await b.close();
    }
  });

  it('upgrades a schema-1 database: existing memory entries become searchable (tsvector + GIN)', async () => {
    const key = { agentName: 'support', userId: 'u-1' };
    const first = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_upgrade' });
    const memory = new AgentMemory(key);
    memory.addFact('Prefers email notifications');
    memory.addFact('Lives in Oslo');
    await first.saveMemory(key, memory.takeChanges());
    await first.close();
    // Back to what schema 1 had: no search column, index or vocabulary.
    const pool = new Pool({ connectionString: server.connectionString });
    await pool.query(
      `${historyAsMessages('tw_upgrade')}
       ALTER TABLE tw_upgrade.memory_entries DROP COLUMN words; DROP TABLE tw_upgrade.memory_terms; DELETE FROM tw_upgrade.schema_version WHERE version > 1`,
    );
    await pool.end();
    const reopened = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_upgrade' });
    try {
      expect((await reopened.searchMemory(key, 'notif')).map((h) => h.content)).toEqual(['Prefers email notifications']);
      expect((await reopened.searchMemory(key, 'osloo')).map((h) => h.content)).toEqual(['Lives in Oslo']);
    } finally {
      await reopened.close();
    }
  });

  it('upgrades a database from before user input was JSON: user input and summaries stored as raw text read back the same, then as JSON', async () => {
    const schema = 'tw_upgrade_text';
    const first = new PostgresStore({ connectionString: server.connectionString, schema });
    // Raw text that looks like JSON must stay text.
    const raw = ['null', '"quoted"', '42', "é ✓ \\ '", ''];
    for (const [i, text] of raw.entries()) {
      await first.saveSession({ sessionId: `s${i}` }, { set: {}, deleted: [], appended: [], userInput: text });
      await first.saveMemory({ agentName: 'a', userId: `u${i}` }, { added: [], summary: text });
    }
    await first.saveSession({ sessionId: 'none' }, { set: {}, deleted: [], appended: [], userInput: null });
    await first.close();
    // What the previous schema wrote: the text itself.
    const pool = new Pool({ connectionString: server.connectionString });
    for (const [i, text] of raw.entries()) {
      await pool.query(`UPDATE ${schema}.sessions SET user_input = $1 WHERE session_id = $2`, [text, `s${i}`]);
      await pool.query(`UPDATE ${schema}.memories SET summary = $1 WHERE user_id = $2`, [text, `u${i}`]);
    }
    // Back to before the JSON-text migration (before the idempotency and rate counter tables and the listing indexes, which run again as well).
    await pool.query(`DELETE FROM ${schema}.schema_version WHERE version > $1`, [POSTGRES_SCHEMA_VERSION - 4]);
    await pool.end();
    const reopened = new PostgresStore({ connectionString: server.connectionString, schema });
    try {
      for (const [i, text] of raw.entries()) {
        expect((await reopened.loadSession({ sessionId: `s${i}` }))!.userInput).toBe(text);
        expect((await reopened.loadMemory({ agentName: 'a', userId: `u${i}` }))!.summary).toBe(text);
      }
      expect((await reopened.loadSession({ sessionId: 'none' }))!.userInput).toBeNull();
      await reopened.saveSession({ sessionId: 's0' }, { set: {}, deleted: [], appended: [], userInput: 'a\u0000b \uD800' });
      expect((await reopened.loadSession({ sessionId: 's0' }))!.userInput).toBe('a\u0000b \uD800');
    } finally {
      await reopened.close();
    }
  });

  it('upgrades a schema-2 database: history stored a row per message loads the same from chunks, and grows', async () => {
    const first = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_upgrade_history' });
    const long = Array.from({ length: 600 }, (_, i) => ({
      role: 'user' as const,
      content: `m${i} ${'é'.repeat(i % 7)} "quoted", \\ ${i}`,
    }));
    await first.saveSession({ sessionId: 'long' }, { set: { a: 1 }, deleted: [], appended: long });
    await first.saveSession({ sessionId: 'short' }, { set: {}, deleted: [], appended: long.slice(0, 3) });
    await first.saveSession({ sessionId: 'empty' }, { set: { b: 2 }, deleted: [], appended: [] });
    const before = await Promise.all(['long', 'short', 'empty'].map((id) => first.loadSession({ sessionId: id })));
    await first.close();
    const pool = new Pool({ connectionString: server.connectionString });
    await pool.query(`${historyAsMessages('tw_upgrade_history')} DELETE FROM tw_upgrade_history.schema_version WHERE version > 2`);
    await pool.end();
    const reopened = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_upgrade_history' });
    try {
      expect(await Promise.all(['long', 'short', 'empty'].map((id) => reopened.loadSession({ sessionId: id })))).toEqual(before);
      expect((await reopened.loadSession({ sessionId: 'long' }, { historyLimit: 300 }))!.history).toEqual(long.slice(-300));
      await reopened.saveSession({ sessionId: 'long' }, { set: {}, deleted: [], appended: long.slice(0, 2) });
      expect((await reopened.loadSession({ sessionId: 'long' }))!.history).toEqual([...long, ...long.slice(0, 2)]);
    } finally {
      await reopened.close();
    }
  });

  it('keeps history in chunks of bounded size whatever the appends: one message at a time, huge messages, windows across chunks', async () => {
    const store = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_chunks' });
    const pool = new Pool({ connectionString: server.connectionString });
    try {
      const all: Array<{ role: 'user'; content: string }> = [];
      const append = async (n: number, size = 10) => {
        const added = Array.from({ length: n }, (_, i) => ({ role: 'user' as const, content: `${all.length + i}:${'x'.repeat(size)}` }));
        all.push(...added);
        await store.saveSession({ sessionId: 's' }, { set: {}, deleted: [], appended: added });
      };
      for (let i = 0; i < 300; i++) await append(1);
      await append(3, 100_000);
      await append(700);
      await append(1, 200_000);
      await append(5);
      expect((await store.loadSession({ sessionId: 's' }))!.history).toEqual(all);
      for (const limit of [0, 1, 7, 256, 257, 600, all.length, all.length + 5])
        expect((await store.loadSession({ sessionId: 's' }, { historyLimit: limit }))!.history).toEqual(limit ? all.slice(-limit) : []);
      const { rows } = await pool.query(
        `SELECT first_seq::int AS f, last_seq::int AS l, length(items) AS chars FROM tw_chunks.session_history ORDER BY first_seq`,
      );
      // Consecutive, each under 256 messages and 64K characters but for the message that crossed the bound.
      rows.forEach((r: { f: number; l: number; chars: number }, i: number) => {
        if (i > 0) expect(r.f).toBe(rows[i - 1].l + 1);
        expect(r.l - r.f + 1).toBeLessThanOrEqual(256);
        if (r.l > r.f) expect(r.chars).toBeLessThan(64 * 1024 + 200_100);
      });
      expect(rows[0].f).toBe(1);
      expect(rows[rows.length - 1].l).toBe(all.length);
      expect(rows.length).toBeLessThan(20);
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it('expands typos right while the memory changes between searches: saved to, deleted, recreated, by another process', async () => {
    // A searches (and keeps the vocabulary it read); B writes as another process would; C, a fresh store each time, is the truth.
    const [a, b] = [0, 1].map(() => new PostgresStore({ connectionString: server.connectionString, schema: 'tw_typos' }));
    const words = ['kettle', 'norway', 'invoice', 'shipping', 'birthday', 'refund', 'notification', 'kettles', 'normal'];
    const typo = (w: string) => w.slice(0, 2) + w.slice(3);
    type Op = { kind: 'save'; words: string[] } | { kind: 'delete' | 'search' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('save' as const), words: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constantFrom('delete' as const, 'search' as const) }),
    );
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
          const key = { agentName: 'support', userId: `u-${run++}` };
          for (const o of ops) {
            if (o.kind === 'save') {
              const memory = new AgentMemory(key);
              memory.addFact(o.words.join(' '));
              await b.saveMemory(key, memory.takeChanges());
            } else if (o.kind === 'delete') {
              await b.deleteMemory(key);
            } else {
              // Every word, misspelt and spelt right: a word saved since the last search must be found either way.
              const truth = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_typos' });
              try {
                for (const query of words.flatMap((w) => [`${typo(w)} order`, w]))
                  expect(await a.searchMemory(key, query)).toEqual(await truth.searchMemory(key, query));
              } finally {
                await truth.close();
              }
            }
          }
        }),
        { numRuns: 20 },
      );
    } finally {
      await Promise.all([a, b].map((s) => s.close()));
    }
  });

  it('appends after a concurrent save that emptied the history while this one waited for the session lock', async () => {
    const store = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_race' });
    const other = new Pool({ connectionString: server.connectionString });
    const holder = await other.connect();
    const key = { sessionId: 'raced' };
    const message = (content: string) => ({ role: 'user' as const, content });
    try {
      await store.saveSession(key, { set: {}, deleted: [], appended: [message('a'), message('b')] });
      // Another writer's save, as a replace with no messages does it: lock the row, delete the history, keep last_seq.
      await holder.query('BEGIN');
      const { rows } = await holder.query(`SELECT id FROM tw_race.sessions WHERE session_id = 'raced' FOR UPDATE`);
      await holder.query('DELETE FROM tw_race.session_history WHERE session_pk = $1', [rows[0].id]);
      await holder.query('UPDATE tw_race.sessions SET version = version + 1 WHERE id = $1', [rows[0].id]);
      const saving = store.saveSession(key, { set: {}, deleted: [], appended: [message('c')] });
      // Commit only once the save's statement (and its snapshot) has started and waits for the lock.
      for (let i = 0; i < 200; i++) {
        const waiting = await other.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`);
        if (waiting.rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await holder.query('COMMIT');
      await saving;
      const fresh = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_race' });
      expect((await fresh.loadSession(key))!.history).toEqual([message('c')]);
      await fresh.close();
    } finally {
      holder.release();
      await other.end();
      await store.close();
    }
  });

  it('uses a pool passed in and leaves it open on close', async () => {
    const pool = new Pool({ connectionString: server.connectionString });
    const appListener = () => undefined;
    pool.on('error', appListener);
    const store = new PostgresStore({ pool, schema: 'tw_own_pool' });
    // The store listens too (an idle client's error with no listener kills the process: tests/stores/outage.test.ts).
    expect(pool.listeners('error')).toHaveLength(2);
    await store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] });
    await store.close();
    expect(pool.listeners('error')).toEqual([appListener]);
    await expect(pool.query('SELECT count(*)::int AS n FROM tw_own_pool.sessions')).resolves.toMatchObject({ rows: [{ n: 1 }] });
    await pool.end();
  });

  it('purges expired sessions', async () => {
    const store = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_purge', sessionTtlSeconds: 0.05 });
    await store.saveSession({ sessionId: 'gone' }, { set: { a: 1 }, deleted: [], appended: [{ role: 'user', content: 'x' }] });
    await new Promise((r) => setTimeout(r, 200));
    await expect(store.purgeExpired()).resolves.toBe(1);
    await expect(store.purgeExpired()).resolves.toBe(0);
    await store.close();
  });

  it('rejects an invalid schema name', () => {
    expect(() => new PostgresStore({ schema: 'x"; DROP TABLE y; --' })).toThrow(ToolwrightConfigError);
  });

  it('fails with StoreUnavailableError when nothing listens on the port', async () => {
    const store = new PostgresStore({ connectionString: `postgresql://postgres@127.0.0.1:${await freePort()}/postgres` });
    try {
      for (const call of [
        () => store.loadSession({ sessionId: 's' }),
        () => store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] }),
        () => store.saveMemory({ agentName: 'a', userId: 'u' }, { added: [] }),
      ]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect((err as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      }
    } finally {
      await store.close();
    }
  });

  it('fails with StoreUnavailableError when a statement exceeds statementTimeoutMs, writing nothing', async () => {
    const store = new PostgresStore({ connectionString: server.connectionString, schema: 'tw_timeout', statementTimeoutMs: 200 });
    await store.saveSession({ sessionId: 's' }, { set: { v: 1 }, deleted: [], appended: [] });
    // Another connection holds the session row lock, so the save's upsert waits past the timeout.
    const blocker = new Pool({ connectionString: server.connectionString, max: 1 });
    const db = await blocker.connect();
    await db.query("BEGIN; SELECT 1 FROM tw_timeout.sessions WHERE session_id = 's' FOR UPDATE");
    try {
      const err = await store
        .saveSession({ sessionId: 's' }, { set: { v: 2 }, deleted: [], appended: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await db.query('ROLLBACK');
      db.release();
      await blocker.end();
    }
    expect(await store.loadSession({ sessionId: 's' })).toMatchObject({ state: { v: 1 }, history: [], version: 1 });
    await store.close();
  });

  it('fails typed when the server is killed mid-write, and holds only whole turns after a restart', async () => {
    const own = await startPostgres();
    const store = new PostgresStore({ connectionString: own.connectionString });
    try {
      await killMidWrite(store, own);
    } finally {
      await store.close();
      await own.destroy();
    }
  });
});
