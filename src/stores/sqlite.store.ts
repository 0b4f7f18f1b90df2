import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreCorruptError, StoreUnavailableError, ToolwrightError } from '../errors/errors';
import type { IdempotencyClaims } from '../side-effects/claims';
import { SqliteIdempotencyClaims } from './claims/sqlite-claims';
import { attachIndex, lazyEntries } from '../session/kept-memory';
import {
  entryWords,
  fuzzyDistance,
  fuzzyMatches,
  MEMORY_QUERY_LIMITS,
  queryTerms,
  type MemorySearchResult,
} from '../session/memory-search';
import type {
  MemoryChanges,
  MemoryEntry,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';
import type { LoadSessionOptions, SessionStore, StoreChannels } from './store';
import { SqliteChannels } from './channels/sqlite-channels';
import type { SqliteConnection, SqliteDriverName, SqliteRowMode, SqliteStatement } from './sqlite/driver';
import { checkSqliteDriver, sqliteOpener } from './sqlite/open-driver';
import { claimFile } from './sqlite/one-driver-per-file';
import {
  checkHistoryLimit,
  checkId,
  checkMemoryKey,
  checkOwner,
  checkSessionChanges,
  checkSessionKey,
  describeSave,
  describeSessionSave,
  encodeMemoryChanges,
  type EncodedMemoryChanges,
  type EncodedSessionChanges,
  encodeSessionChanges,
  guard,
  stateFromEntries,
  tenantOf,
  toMemorySnapshot,
  toSessionSnapshot,
} from './snapshot-rows';

export interface SqliteStoreOptions {
  /** Database file; `':memory:'` for a private in-process database. Default `./.toolwright/state.db`. */
  path?: string;
  /** How long a write waits for another process's lock before failing (ms). Default 5000. */
  busyTimeoutMs?: number;
  /** Sessions not saved for this long are treated as gone (checked on load and save). */
  sessionTtlSeconds?: number;
  /** Default `historyLimit` for `loadSession` when the caller gives none. */
  historyWindow?: number;
  /** The time in ms for TTLs (default `Date.now`); tests pass a clock they advance instead of sleeping. */
  clock?: () => number;
  /**
   * The SQLite binding. Default: the built-in `node:sqlite` where this Node has it with FTS5
   * (Node 22.13+, 24: nothing to install), else `better-sqlite3` (Node 20). Both read and write
   * the same file format.
   */
  driver?: SqliteDriverName;
}

/**
 * Schema changes, applied in order; the applied count is recorded in `meta.schema_version`.
 * Append new steps, never edit old ones.
 *
 * State is one row per key (not one JSON document): a turn's merge is then plain row upserts
 * and deletes inside the transaction, nothing is re-serialized, and a `__proto__` key is just a
 * text column. History is one row per message keyed by (session, seq), so appending never
 * rewrites earlier messages.
 */
const MIGRATIONS: ReadonlyArray<string | ((db: SqliteConnection) => void)> = [
  `CREATE TABLE sessions (
     id INTEGER PRIMARY KEY,
     tenant TEXT NOT NULL,
     session_id TEXT NOT NULL,
     user_id TEXT,
     user_input TEXT,
     pending_run TEXT,
     version INTEGER NOT NULL DEFAULT 0,
     last_seq INTEGER NOT NULL DEFAULT 0,
     expires_at INTEGER,
     UNIQUE (tenant, session_id)
   );
   CREATE TABLE session_state (
     session_pk INTEGER NOT NULL,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (session_pk, key)
   ) WITHOUT ROWID;
   CREATE TABLE session_messages (
     session_pk INTEGER NOT NULL,
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (session_pk, seq)
   ) WITHOUT ROWID;
   CREATE TABLE memories (
     id INTEGER PRIMARY KEY,
     tenant TEXT NOT NULL,
     agent TEXT NOT NULL,
     user_id TEXT NOT NULL,
     summary TEXT,
     version INTEGER NOT NULL DEFAULT 0,
     last_seq INTEGER NOT NULL DEFAULT 0,
     UNIQUE (tenant, agent, user_id)
   );
   CREATE TABLE memory_entries (
     memory_pk INTEGER NOT NULL,
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (memory_pk, seq)
   ) WITHOUT ROWID;`,
  // Memory search in the database: an FTS5 index of each entry's words (content, category,
  // context, tokenized as AgentMemory does) with rowid = memory_pk * 2^32 + seq, so a search reads
  // one scope's rowid range; and each scope's vocabulary, to expand a typo into known words.
  (db) => {
    db.exec(`CREATE VIRTUAL TABLE memory_fts USING fts5(words, content = '', contentless_delete = 1);
             CREATE TABLE memory_terms (memory_pk INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (memory_pk, term)) WITHOUT ROWID;`);
    const rows = db.prepare('SELECT memory_pk, seq, body FROM memory_entries', 'raw').all() as Array<[number, number, string]>;
    const fts = db.prepare('INSERT INTO memory_fts (rowid, words) VALUES (?, ?)');
    const term = db.prepare('INSERT OR IGNORE INTO memory_terms (memory_pk, term) VALUES (?, ?)');
    for (const [pk, seq, body] of rows) indexEntry(fts, term, pk, seq, JSON.parse(body) as MemoryEntry);
  },
  // A deleted memory's id is never reused (AUTOINCREMENT): its id is its generation, so a snapshot
  // loaded before a delete never reads (lazily) or searches a memory created after it. Deletes used
  // to leave a memory's index rows (its words, its vocabulary) behind, found again by a memory
  // reusing the id: the index is rebuilt from the stored entries.
  (db) => {
    db.exec(`CREATE TABLE memories_new (
               id INTEGER PRIMARY KEY AUTOINCREMENT,
               tenant TEXT NOT NULL,
               agent TEXT NOT NULL,
               user_id TEXT NOT NULL,
               summary TEXT,
               version INTEGER NOT NULL DEFAULT 0,
               last_seq INTEGER NOT NULL DEFAULT 0,
               UNIQUE (tenant, agent, user_id)
             );
             INSERT INTO memories_new (id, tenant, agent, user_id, summary, version, last_seq)
               SELECT id, tenant, agent, user_id, summary, version, last_seq FROM memories;
             DROP TABLE memories;
             ALTER TABLE memories_new RENAME TO memories;
             DELETE FROM memory_entries WHERE memory_pk NOT IN (SELECT id FROM memories);
             INSERT INTO memory_fts (memory_fts) VALUES ('delete-all');
             DELETE FROM memory_terms;`);
    const rows = db.prepare('SELECT memory_pk, seq, body FROM memory_entries', 'raw').all() as Array<[number, number, string]>;
    const fts = db.prepare('INSERT INTO memory_fts (rowid, words) VALUES (?, ?)');
    const term = db.prepare('INSERT OR IGNORE INTO memory_terms (memory_pk, term) VALUES (?, ?)');
    for (const [pk, seq, body] of rows) indexEntry(fts, term, pk, seq, JSON.parse(body) as MemoryEntry);
  },
  // StoreChannels between the processes sharing the file (see SqliteChannels): recent messages,
  // ids never reused, so a listener reading the rows after the last it saw misses none that remain.
  `CREATE TABLE channel_messages (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     message TEXT NOT NULL,
     origin TEXT NOT NULL,
     at INTEGER NOT NULL
   );`,
  // Each session row's generation, set when the row is created: a session deleted and created again
  // under its id (whose row id SQLite may reuse) starts a new `historyMark`, so no idempotency key repeats.
  (db) => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)', 'pluck').all('sessions') as string[];
    if (!columns.includes('gen')) db.exec('ALTER TABLE sessions ADD COLUMN gen TEXT');
  },
  // User input and memory summaries as JSON text, like every other value: raw text went through
  // UTF-8, which turned a lone surrogate into U+FFFD. Existing rows quoted (json_quote keeps NUL as \u0000).
  `UPDATE sessions SET user_input = json_quote(user_input) WHERE user_input IS NOT NULL;
   UPDATE memories SET summary = json_quote(summary) WHERE summary IS NOT NULL;`,
  // Idempotency claims (see SqliteIdempotencyClaims): a pending holder with its lease, then the result.
  `CREATE TABLE IF NOT EXISTS idempotency (
     namespace TEXT NOT NULL,
     key TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     holder TEXT,
     lease_until INTEGER,
     result TEXT,
     PRIMARY KEY (namespace, key)
   );`,
];

const SCOPE = 2n ** 32n;

function indexEntry(fts: SqliteStatement, term: SqliteStatement, pk: number, seq: number, entry: MemoryEntry): void {
  const words = entryWords(entry);
  fts.run(BigInt(pk) * SCOPE + BigInt(seq), words.join(' '));
  for (const w of new Set(words)) term.run(pk, w);
}

/** An FTS5 string literal: the term in double quotes (doubled inside). */
const ftsTerm = (t: string) => `"${t.replace(/"/g, '""')}"`;

export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

interface SessionMetaRow {
  id: number;
  user_id: string | null;
  user_input: string | null;
  pending_run: string | null;
  version: number;
  last_seq: number;
  expires_at: number | null;
  gen: string | null;
}

/**
 * Sessions and memories in one SQLite file (WAL mode), the embedded default. Each save is one
 * `BEGIN IMMEDIATE` transaction applying the turn's changes as a merge, so turns from several
 * processes on one file serialize on the write lock (waiting up to `busyTimeoutMs`) and lose
 * nothing. Both drivers (node:sqlite, better-sqlite3; see SqliteStoreOptions.driver) are
 * synchronous: calls run to completion one at a time in this process.
 */
export class SqliteStore implements SessionStore {
  private readonly path: string;
  private readonly options: SqliteStoreOptions;
  private opened?: SqliteConnection;
  /** Prepared once per SQL text: preparing costs more than running these small statements. */
  private readonly statements = new Map<string, SqliteStatement>();
  private pubsub?: SqliteChannels;
  /** Frees this store's claim on its file (see claimFile) when it closes. */
  private release?: () => void;

  constructor(options: SqliteStoreOptions = {}) {
    this.options = options;
    this.path = options.path ?? './.toolwright/state.db';
    checkHistoryLimit(options.historyWindow);
    checkSqliteDriver(options.driver);
  }

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    checkSessionKey(key);
    const limit = checkHistoryLimit(options.historyLimit ?? this.options.historyWindow);
    return guard('sqlite', () => {
      const db = this.db();
      // A read transaction: meta, state and history come from one consistent snapshot.
      return db.transaction('deferred', () => {
        const row = this.sql('SELECT * FROM sessions WHERE tenant = ? AND session_id = ?').get(tenantOf(key), key.sessionId) as
          SessionMetaRow | undefined;
        if (!row || this.expired(row)) return undefined;
        const state = this.sql('SELECT key, value FROM session_state WHERE session_pk = ?', 'raw').all(row.id) as Array<[string, string]>;
        const history = (
          limit === undefined
            ? this.sql('SELECT body FROM session_messages WHERE session_pk = ? ORDER BY seq', 'pluck').all(row.id)
            : this.sql(
                'SELECT body FROM (SELECT seq, body FROM session_messages WHERE session_pk = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
                'pluck',
              ).all(row.id, limit)
        ) as string[];
        return toSessionSnapshot(key, {
          userId: row.user_id,
          state: stateFromEntries(state),
          history,
          userInput: row.user_input,
          pendingRun: row.pending_run,
          version: row.version,
          historyMark: historyMark(row),
        });
      });
    });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    checkSessionKey(key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'sqlite');
    return guard(
      'sqlite',
      () => this.db().transaction('immediate', () => this.writeSession(key, changes, c)),
      () => describeSessionSave(c),
    );
  }

  /** One run's session and memory changes in one transaction: both are written or neither. */
  async saveTurn(key: SessionKey, changes: SessionChanges, memory: { key: MemoryKey; changes: MemoryChanges }): Promise<number> {
    checkSessionKey(key);
    checkMemoryKey(memory.key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'sqlite');
    const m = encodeMemoryChanges(memory.changes, 'sqlite');
    return guard(
      'sqlite',
      () =>
        this.db().transaction('immediate', () => {
          const version = this.writeSession(key, changes, c);
          this.writeMemory(memory.key, memory.changes, m);
          return version;
        }),
      () => `${describeSessionSave(c)} with ${describeSave('a memory save', { entries: m.added })}`,
    );
  }

  /** A session save's writes, inside the caller's transaction. */
  private writeSession(key: SessionKey, changes: SessionChanges, c: EncodedSessionChanges): number {
    const tenant = tenantOf(key);
    let row = this.sql('SELECT * FROM sessions WHERE tenant = ? AND session_id = ?').get(tenant, key.sessionId) as
      SessionMetaRow | undefined;
    if (row && this.expired(row)) {
      this.deleteRows(row.id);
      row = undefined;
    }
    if (row) checkOwner(key, changes.owner, row.user_id);
    row ??= this.sql('INSERT INTO sessions (tenant, session_id, gen) VALUES (?, ?, ?) RETURNING *').get(
      tenant,
      key.sessionId,
      randomUUID(),
    ) as SessionMetaRow;
    const id = row.id;
    const del = this.sql('DELETE FROM session_state WHERE session_pk = ? AND key = ?');
    for (const k of c.deleted) del.run(id, k);
    const upsert = this.sql(
      'INSERT INTO session_state (session_pk, key, value) VALUES (?, ?, ?) ON CONFLICT (session_pk, key) DO UPDATE SET value = excluded.value',
    );
    for (const [k, v] of c.set) upsert.run(id, k, v);
    let seq = row.last_seq;
    if (c.replaced) this.sql('DELETE FROM session_messages WHERE session_pk = ?').run(id);
    const insert = this.sql('INSERT INTO session_messages (session_pk, seq, body) VALUES (?, ?, ?)');
    for (const body of [...(c.replaced ?? []), ...c.appended]) insert.run(id, ++seq, body);
    const ttl = this.options.sessionTtlSeconds;
    const updated = this.sql(
      `UPDATE sessions SET
           user_id = COALESCE(?, user_id),
           user_input = CASE WHEN ? THEN ? ELSE user_input END,
           pending_run = CASE WHEN ? THEN ? ELSE pending_run END,
           last_seq = ?, version = version + 1, expires_at = ?
         WHERE id = ? RETURNING version`,
      'pluck',
    ).get(
      c.userId ?? null,
      c.userInput !== undefined ? 1 : 0,
      c.userInput ?? null,
      c.pendingRun !== undefined ? 1 : 0,
      c.pendingRun ?? null,
      seq,
      ttl === undefined ? null : this.now() + ttl * 1000,
      id,
    );
    return updated as number;
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    return guard('sqlite', () => {
      const db = this.db();
      db.transaction('immediate', () => {
        const id = this.sql('SELECT id FROM sessions WHERE tenant = ? AND session_id = ?', 'pluck').get(tenantOf(key), key.sessionId) as
          number | undefined;
        if (id !== undefined) this.deleteRows(id);
      });
    });
  }

  async deleteMemory(key: MemoryKey): Promise<void> {
    return guard('sqlite', () => {
      const db = this.db();
      db.transaction('immediate', () => {
        const id = this.sql('SELECT id FROM memories WHERE tenant = ? AND agent = ? AND user_id = ?', 'pluck').get(
          tenantOf(key),
          key.agentName,
          key.userId,
        ) as number | undefined;
        if (id === undefined) return;
        // Its words go too: nothing of a deleted memory is found again.
        this.sql('DELETE FROM memory_fts WHERE rowid BETWEEN ? AND ?').run(BigInt(id) * SCOPE, BigInt(id) * SCOPE + SCOPE - 1n);
        this.sql('DELETE FROM memory_terms WHERE memory_pk = ?').run(id);
        this.sql('DELETE FROM memory_entries WHERE memory_pk = ?').run(id);
        this.sql('DELETE FROM memories WHERE id = ?').run(id);
      });
    });
  }

  /** Deletes every session past its TTL; returns how many. Loads already ignore them. */
  async purgeExpired(): Promise<number> {
    return guard('sqlite', () => {
      const db = this.db();
      return db.transaction('immediate', () => {
        const ids = this.sql('SELECT id FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ?', 'pluck').all(
          this.now(),
        ) as number[];
        for (const id of ids) this.deleteRows(id);
        return ids.length;
      });
    });
  }

  async claimSession(key: SessionKey, userId: string | null): Promise<string | null> {
    checkSessionKey(key);
    if (userId !== null) checkId('userId', userId);
    return guard('sqlite', () => {
      const db = this.db();
      const tenant = tenantOf(key);
      // Under the write lock: of two processes claiming at once, the second sees the first's row.
      return db.transaction('immediate', (): string | null => {
        const row = this.sql('SELECT * FROM sessions WHERE tenant = ? AND session_id = ?').get(tenant, key.sessionId) as
          SessionMetaRow | undefined;
        if (row && !this.expired(row)) return row.user_id;
        if (row) this.deleteRows(row.id);
        const ttl = this.options.sessionTtlSeconds;
        this.sql('INSERT INTO sessions (tenant, session_id, user_id, expires_at, gen) VALUES (?, ?, ?, ?, ?)').run(
          tenant,
          key.sessionId,
          userId,
          ttl === undefined ? null : Date.now() + ttl * 1000,
          randomUUID(),
        );
        return userId;
      });
    });
  }

  async compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown): Promise<boolean> {
    checkSessionKey(key);
    const want = JSON.stringify(expected ?? null);
    const value = next === null ? null : JSON.stringify(next);
    return guard('sqlite', () => {
      const changed = this.sql(
        `UPDATE sessions SET pending_run = ?, version = version + 1
         WHERE tenant = ? AND session_id = ? AND COALESCE(pending_run, 'null') = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ).run(value, tenantOf(key), key.sessionId, want, Date.now());
      return changed.changes === 1;
    });
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    checkMemoryKey(key);
    return guard('sqlite', () => {
      const db = this.db();
      return db.transaction('deferred', () => {
        const row = this.sql('SELECT id, summary, version, last_seq FROM memories WHERE tenant = ? AND agent = ? AND user_id = ?').get(
          tenantOf(key),
          key.agentName,
          key.userId,
        ) as { id: number; summary: string | null; version: number; last_seq: number } | undefined;
        if (!row) return undefined;
        const { id: pk, last_seq: last } = row;
        // The entries are read when first used (both drivers read synchronously): a tool's search
        // runs in FTS5 and never reads them. Up to the loaded version's last entry, as if read now.
        const snapshot = lazyEntries<MemorySnapshot>(
          toMemorySnapshot(key, { entries: [], summary: row.summary, version: row.version }),
          () => {
            try {
              const bodies = this.sql('SELECT body FROM memory_entries WHERE memory_pk = ? AND seq <= ? ORDER BY seq', 'pluck').all(
                pk,
                last,
              ) as string[];
              return bodies.map((b) => JSON.parse(b) as MemoryEntry);
            } catch (error) {
              throw new StoreUnavailableError('sqlite', error);
            }
          },
        );
        return attachIndex(snapshot, { search: (query, limit) => this.searchScope(pk, query, limit) });
      });
    });
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    checkMemoryKey(key);
    const c = encodeMemoryChanges(changes, 'sqlite');
    return guard(
      'sqlite',
      () => this.db().transaction('immediate', () => this.writeMemory(key, changes, c)),
      () => describeSave('a memory save', { entries: c.added }),
    );
  }

  /** A memory save's writes, inside the caller's transaction. */
  private writeMemory(key: MemoryKey, changes: MemoryChanges, c: EncodedMemoryChanges): number {
    const row = this.sql(
      `INSERT INTO memories (tenant, agent, user_id) VALUES (?, ?, ?)
         ON CONFLICT (tenant, agent, user_id) DO UPDATE SET version = version RETURNING id, last_seq`,
    ).get(tenantOf(key), key.agentName, key.userId) as { id: number; last_seq: number };
    let seq = row.last_seq;
    const insert = this.sql('INSERT INTO memory_entries (memory_pk, seq, body) VALUES (?, ?, ?)');
    const fts = this.sql('INSERT INTO memory_fts (rowid, words) VALUES (?, ?)');
    const term = this.sql('INSERT OR IGNORE INTO memory_terms (memory_pk, term) VALUES (?, ?)');
    for (let i = 0; i < c.added.length; i++) {
      insert.run(row.id, ++seq, c.added[i]);
      indexEntry(fts, term, row.id, seq, changes.added[i]);
    }
    return this.sql(
      `UPDATE memories SET summary = CASE WHEN ? THEN ? ELSE summary END, last_seq = ?, version = version + 1
         WHERE id = ? RETURNING version`,
      'pluck',
    ).get(c.summary !== undefined ? 1 : 0, c.summary ?? null, seq, row.id) as number;
  }

  /** Ranked search over a memory's stored entries in the database (FTS5 bm25, prefixes, typos). */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    return guard('sqlite', () => {
      const pk = this.sql('SELECT id FROM memories WHERE tenant = ? AND agent = ? AND user_id = ?', 'pluck').get(
        tenantOf(key),
        key.agentName,
        key.userId,
      ) as number | undefined;
      return pk === undefined ? [] : this.searchScope(pk, query, limit);
    });
  }

  /** Messages between the processes sharing the file, through a table of recent ones (see SqliteChannels). */
  get channels(): StoreChannels {
    return (this.pubsub ??= new SqliteChannels(() => this.db(), this.path !== ':memory:'));
  }

  /**
   * Idempotency claims kept in this store's file, for `new IdempotencyLedger(store.idempotency('refunds'))`:
   * processes sharing the file run each key's side effect once.
   */
  idempotency<T>(namespace = 'default'): IdempotencyClaims<T> {
    checkId('namespace', namespace);
    return new SqliteIdempotencyClaims<T>(
      () => ({ sql: (text, mode) => this.sql(text, mode), immediate: (body) => this.db().transaction('immediate', body) }),
      namespace,
    );
  }

  async close(): Promise<void> {
    await this.pubsub?.close();
    this.opened?.close();
    this.release?.();
  }

  /**
   * Each query term matches as a prefix (`"term"*`); a term that is no word's prefix in this
   * memory is replaced by the memory's words within its typo distance (as AgentMemory's fuzzy
   * 0.2). Ranked by FTS5's bm25, best first. Synchronous, like both drivers, so the query is
   * bounded (MEMORY_QUERY_LIMITS): at most 32 terms, 8 typo words each, 256 alternatives.
   */
  private searchScope(pk: number, query: string, limit: number): MemorySearchResult[] {
    if (!query.trim() || limit <= 0) return [];
    try {
      const alternatives: string[] = [];
      for (const t of queryTerms(query)) {
        const next = this.sql('SELECT term FROM memory_terms WHERE memory_pk = ? AND term >= ? ORDER BY term LIMIT 1', 'pluck').get(
          pk,
          t,
        ) as string | undefined;
        if (next?.startsWith(t)) {
          alternatives.push(`${ftsTerm(t)}*`);
          continue;
        }
        const d = fuzzyDistance(t);
        if (d === 0) continue;
        const vocabulary = this.sql('SELECT term FROM memory_terms WHERE memory_pk = ? AND length(term) BETWEEN ? AND ?', 'pluck').all(
          pk,
          t.length - d,
          t.length + d,
        ) as string[];
        for (const w of fuzzyMatches(t, vocabulary)) alternatives.push(ftsTerm(w));
      }
      if (alternatives.length === 0) return [];
      // Already bounded (terms × expansions); the cut keeps it so whatever those limits become.
      alternatives.length = Math.min(alternatives.length, MEMORY_QUERY_LIMITS.operands);
      const base = BigInt(pk) * SCOPE;
      const rows = this.sql(
        // Rank in the index first; only the top rows' bodies are read.
        `SELECT e.body, f.rank FROM (
             SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rank LIMIT ?
           ) f JOIN memory_entries e ON e.memory_pk = ? AND e.seq = f.rowid - ? ORDER BY f.rank`,
        'raw',
      ).all(alternatives.join(' OR '), base, base + SCOPE - 1n, limit, pk, base) as Array<[string, number]>;
      return rows.map(([body, rank]) => ({ ...(JSON.parse(body) as MemoryEntry), score: -rank }));
    } catch (error) {
      throw new StoreUnavailableError('sqlite', error);
    }
  }

  /** Opened on first use, so a bad path fails the call (typed) rather than the constructor. */
  private db(): SqliteConnection {
    if (this.opened) return this.opened;
    const opener = sqliteOpener(this.options.driver);
    const release = claimFile(this.path, opener.driver);
    try {
      if (this.path !== ':memory:' && !this.path.startsWith('file:')) mkdirSync(dirname(this.path), { recursive: true });
      const timeoutMs = this.options.busyTimeoutMs ?? 5000;
      const db = opener.open(this.path, timeoutMs);
      try {
        retryWhileBusy(timeoutMs, () => {
          if (this.path !== ':memory:') db.pragma('journal_mode = WAL');
          // WAL + NORMAL: a commit survives a process crash; only an OS crash may lose the last ones.
          db.pragma('synchronous = NORMAL');
          migrate(db);
        });
      } catch (err) {
        db.close();
        throw err;
      }
      this.opened = db;
      this.release = release;
      return db;
    } catch (err) {
      release();
      throw sqliteOpenError(this.path, err);
    }
  }

  /** Each SQL text is always used in one mode (object, raw or pluck); cached per text and mode. */
  private sql(text: string, mode: SqliteRowMode = 'object'): SqliteStatement {
    const key = mode === 'object' ? text : `${mode}:${text}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db().prepare(text, mode);
      this.statements.set(key, statement);
    }
    return statement;
  }

  private expired(row: SessionMetaRow): boolean {
    return row.expires_at !== null && row.expires_at <= this.now();
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : Date.now();
  }

  private deleteRows(id: number): void {
    this.sql('DELETE FROM session_state WHERE session_pk = ?').run(id);
    this.sql('DELETE FROM session_messages WHERE session_pk = ?').run(id);
    this.sql('DELETE FROM sessions WHERE id = ?').run(id);
  }
}

/** The row's generation (its id for a row created before generations) and its last message number, which only grows. */
function historyMark(row: SessionMetaRow): string {
  return `${row.gen ?? `#${row.id}`}:${row.last_seq}`;
}

const SQLITE_FIXES: Record<string, string> = {
  SQLITE_CANTOPEN: 'check that the directory exists and is writable, and that the path is not a directory',
  SQLITE_READONLY: 'give this process write access to the file and its directory (SQLite also writes -wal and -shm files beside it)',
  SQLITE_PERM: 'give this process write access to the file and its directory',
  SQLITE_BUSY: 'another process holds the write lock; raise busyTimeoutMs or stop the other writer',
  SQLITE_FULL: 'free disk space',
  EACCES: 'give this process write access to the directory',
  ENOTDIR: 'a part of the path is a file, not a directory; choose another path',
  EEXIST: 'a part of the path is a file, not a directory; choose another path',
};

/**
 * An error opening the file, with its absolute path and what to do. A damaged file is not
 * "unavailable" (retrying will not help): it gets STORE_CORRUPT.
 */
function sqliteOpenError(path: string, err: unknown): ToolwrightError {
  if (err instanceof ToolwrightError) return err;
  const where = path === ':memory:' || path.startsWith('file:') ? path : resolve(path);
  const code = sqliteCode(err);
  const reason = err instanceof Error ? err.message : String(err);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StoreCorruptError(
      'sqlite',
      `SQLite file ${where} is not a usable database (${code}: ${reason}). ` +
        'Restore it from a backup, or move it aside to start with an empty store; toolwright creates a new file when none exists.',
      err,
    );
  }
  const fix = SQLITE_FIXES[code] ?? SQLITE_FIXES[code.replace(/_[A-Z]+$/, '')];
  return new StoreUnavailableError(
    'sqlite',
    new Error(`cannot open ${where} (${code || 'error'}: ${reason})${fix ? `; ${fix}` : ''}`, { cause: err }),
  );
}

function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Switching a file to WAL needs it alone for a moment, and SQLite answers SQLITE_BUSY at once
 * (no busy handler) when another process opens it at the same instant: retry until the timeout.
 */
function retryWhileBusy(timeoutMs: number, open: () => void): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return open();
    } catch (err) {
      if (!String((err as { code?: string }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 40); // the drivers are synchronous: so is the wait
    }
  }
}

/** Applies the missing migrations under the write lock, so two processes opening at once agree. */
function migrate(db: SqliteConnection): void {
  db.transaction('immediate', () => {
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const current = Number(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'", 'pluck').get() ?? 0);
    if (current > MIGRATIONS.length) {
      throw new Error(`database schema version ${current} is newer than this toolwright (${MIGRATIONS.length}); upgrade toolwright`);
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      const step = MIGRATIONS[v];
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      String(MIGRATIONS.length),
    );
  });
}
