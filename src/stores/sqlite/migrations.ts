import { entryWords } from '../../session/memory-search';
import type { MemoryEntry } from '../../session/snapshots';
import type { SqliteConnection, SqliteStatement } from './driver';

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
    reindexEntries(db);
  },
  // A deleted memory's id is never reused (AUTOINCREMENT): its id is its generation, so a snapshot
  // loaded before a delete never reads (lazily) or searches a memory created after it. Index rows
  // a delete left behind (its words, its vocabulary) would be found again by a memory reusing the
  // id: the index is rebuilt from the stored entries.
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
    reindexEntries(db);
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
  // Fixed-window rate counters (see SqliteRateCounters): per key and window length, the current window's start (ms) and count.
  `CREATE TABLE IF NOT EXISTS rate_counters (
     namespace TEXT NOT NULL,
     key TEXT NOT NULL,
     window_ms INTEGER NOT NULL,
     window_start INTEGER NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (namespace, key, window_ms)
   ) WITHOUT ROWID;`,
  // Listing one user's sessions and memories (listSessions / listMemories with a userId) reads an index range, page by page.
  `CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (tenant, user_id, session_id);
   CREATE INDEX IF NOT EXISTS memories_by_user ON memories (tenant, user_id, agent);`,
];

/** A memory's FTS5 rowids: memory_pk * SCOPE + seq, so one memory's entries are one rowid range. */
export const SCOPE = 2n ** 32n;

export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

/** Indexes one entry: its words in memory_fts, each distinct word in its memory's vocabulary. */
export function indexEntry(fts: SqliteStatement, term: SqliteStatement, pk: number, seq: number, entry: MemoryEntry): void {
  const words = entryWords(entry);
  fts.run(BigInt(pk) * SCOPE + BigInt(seq), words.join(' '));
  for (const w of new Set(words)) term.run(pk, w);
}

/** Indexes every stored entry again (a migration that built or rebuilt the index). */
function reindexEntries(db: SqliteConnection): void {
  const rows = db.prepare('SELECT memory_pk, seq, body FROM memory_entries', 'raw').all() as Array<[number, number, string]>;
  const fts = db.prepare('INSERT INTO memory_fts (rowid, words) VALUES (?, ?)');
  const term = db.prepare('INSERT OR IGNORE INTO memory_terms (memory_pk, term) VALUES (?, ?)');
  for (const [pk, seq, body] of rows) indexEntry(fts, term, pk, seq, JSON.parse(body) as MemoryEntry);
}

/** Applies the missing migrations under the write lock, so two processes opening at once agree. */
export function migrate(db: SqliteConnection): void {
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
