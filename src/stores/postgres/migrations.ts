import type { Pool } from 'pg';
import { entryWords } from '../../session/memory-search';
import type { MemoryEntry } from '../../session/snapshots';
import { inTransaction, type Queryable } from './transaction';

/**
 * Schema changes in order; `schema_version` records how many ran. Append, never edit.
 * `$S` is replaced by the quoted schema name.
 *
 * State is one text row per key rather than a jsonb column merged with `||`: jsonb rejects
 * `\u0000` in strings and a per-key upsert is the same merge, like the SQLite store's. History
 * and memory entries are rows keyed by a per-owner sequence; the sequence lives on the owner row,
 * which every save locks first, so concurrent saves never interleave or reuse numbers.
 */
const MIGRATIONS: ReadonlyArray<string | ((db: Queryable, s: string) => Promise<void>)> = [
  `CREATE TABLE $S.sessions (
     id bigserial PRIMARY KEY,
     tenant text NOT NULL,
     session_id text NOT NULL,
     user_id text,
     user_input text,
     pending_run text,
     version bigint NOT NULL DEFAULT 0,
     last_seq bigint NOT NULL DEFAULT 0,
     expires_at timestamptz,
     UNIQUE (tenant, session_id)
   );
   CREATE INDEX sessions_expires_at ON $S.sessions (expires_at) WHERE expires_at IS NOT NULL;
   CREATE TABLE $S.session_state (
     session_pk bigint NOT NULL REFERENCES $S.sessions (id) ON DELETE CASCADE,
     key text NOT NULL,
     value text NOT NULL,
     PRIMARY KEY (session_pk, key)
   );
   CREATE TABLE $S.session_messages (
     session_pk bigint NOT NULL REFERENCES $S.sessions (id) ON DELETE CASCADE,
     seq bigint NOT NULL,
     body text NOT NULL,
     PRIMARY KEY (session_pk, seq)
   );
   CREATE TABLE $S.memories (
     id bigserial PRIMARY KEY,
     tenant text NOT NULL,
     agent text NOT NULL,
     user_id text NOT NULL,
     summary text,
     version bigint NOT NULL DEFAULT 0,
     last_seq bigint NOT NULL DEFAULT 0,
     UNIQUE (tenant, agent, user_id)
   );
   CREATE TABLE $S.memory_entries (
     memory_pk bigint NOT NULL REFERENCES $S.memories (id) ON DELETE CASCADE,
     seq bigint NOT NULL,
     body text NOT NULL,
     PRIMARY KEY (memory_pk, seq)
   );`,
  // Memory search in the database: each entry's words (content, category, context, tokenized as
  // AgentMemory does) as a tsvector under a GIN index, and each memory's vocabulary (C collation,
  // so a prefix is an index range) to expand a typo into known words. Existing entries backfilled.
  async (db, s) => {
    await db.query(`ALTER TABLE ${s}.memory_entries ADD COLUMN words tsvector`);
    await db.query(`CREATE TABLE ${s}.memory_terms (
       memory_pk bigint NOT NULL REFERENCES ${s}.memories (id) ON DELETE CASCADE,
       term text COLLATE "C" NOT NULL,
       PRIMARY KEY (memory_pk, term)
     )`);
    const { rows } = await db.query(`SELECT memory_pk, seq, body FROM ${s}.memory_entries`);
    for (let i = 0; i < rows.length; i += 1000) {
      const batch = rows.slice(i, i + 1000) as Array<{ memory_pk: string; seq: string; body: string }>;
      const words = batch.map((r) => entryWords(JSON.parse(r.body) as MemoryEntry));
      await db.query(
        `UPDATE ${s}.memory_entries e SET words = to_tsvector('simple', t.w)
         FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS t(pk, seq, w) WHERE e.memory_pk = t.pk AND e.seq = t.seq`,
        [batch.map((r) => r.memory_pk), batch.map((r) => r.seq), words.map((w) => w.join(' '))],
      );
      await db.query(
        `INSERT INTO ${s}.memory_terms (memory_pk, term) SELECT DISTINCT pk, term FROM unnest($1::bigint[], $2::text[]) AS t(pk, term)
         ON CONFLICT DO NOTHING`,
        [batch.flatMap((r, j) => words[j].map(() => r.memory_pk)), words.flat()],
      );
    }
    await db.query(`CREATE INDEX memory_entries_words ON ${s}.memory_entries USING gin (words)`);
  },
  // History as chunks of consecutive messages, each chunk's bodies joined with ',' (the items of a
  // JSON array): a load reads a few long rows instead of a row per message, and an append extends
  // the last chunk or adds new ones (see HISTORY_CHUNK). Existing messages regrouped, 256 a chunk.
  `CREATE TABLE $S.session_history (
     session_pk bigint NOT NULL REFERENCES $S.sessions (id) ON DELETE CASCADE,
     first_seq bigint NOT NULL,
     last_seq bigint NOT NULL,
     items text NOT NULL,
     PRIMARY KEY (session_pk, first_seq)
   );
   INSERT INTO $S.session_history (session_pk, first_seq, last_seq, items)
     SELECT session_pk, min(seq), max(seq), string_agg(body, ',' ORDER BY seq) FROM $S.session_messages GROUP BY session_pk, seq / 256;
   DROP TABLE $S.session_messages;`,
  // Each entry's tsvector also holds its memory's scope lexeme (see SCOPE_LEXEME), so a search
  // finds its memory's matches in the GIN index alone, with or without table statistics.
  `UPDATE $S.memory_entries SET words = words || array_to_tsvector(ARRAY[' ' || memory_pk]);`,
  // User input and memory summaries as JSON text, like every other value: text refuses NUL and
  // turns a lone surrogate into U+FFFD, which JSON escapes. Existing rows quoted.
  `UPDATE $S.sessions SET user_input = to_json(user_input)::text WHERE user_input IS NOT NULL;
   UPDATE $S.memories SET summary = to_json(summary)::text WHERE summary IS NOT NULL;`,
  // Idempotency claims (see PostgresIdempotencyClaims): a pending holder with its lease, then the result.
  `CREATE TABLE IF NOT EXISTS $S.idempotency (
     namespace text NOT NULL,
     key text NOT NULL,
     fingerprint text NOT NULL,
     holder text,
     lease_until timestamptz,
     result text,
     PRIMARY KEY (namespace, key)
   );`,
  // Fixed-window rate counters (see PostgresRateCounters): per key and window length, the current window's start (ms) and count.
  `CREATE TABLE IF NOT EXISTS $S.rate_counters (
     namespace text NOT NULL,
     key text NOT NULL,
     window_ms bigint NOT NULL,
     window_start bigint NOT NULL,
     count integer NOT NULL,
     PRIMARY KEY (namespace, key, window_ms)
   );`,
  // Listing one user's sessions and memories (listSessions / listMemories with a userId) reads an index range, page by page.
  `CREATE INDEX IF NOT EXISTS sessions_by_user ON $S.sessions (tenant, user_id, session_id);
   CREATE INDEX IF NOT EXISTS memories_by_user ON $S.memories (tenant, user_id, agent);`,
];

/**
 * The lexeme naming a memory in its entries' tsvectors: a space and the memory's id, which no word
 * can be (words never hold a space). A search ANDs it into its tsquery, so the GIN index alone
 * finds the memory's matching entries. Filtering on memory_pk instead left the plan to statistics:
 * a freshly filled memory (no ANALYZE yet) got a BitmapAnd with the primary key's index, which
 * reads every entry of the memory (50,000 index entries) for every search.
 */
export const SCOPE_LEXEME = (pk: string) => `' ' || ${pk}`;

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the schema `s` (quoted) and its tables, or runs the migrations it lacks, in one transaction. */
export function migrate(pool: Pool, timeoutMs: number, s: string): Promise<void> {
  return inTransaction(pool, timeoutMs, { rows: 0, chars: 0 }, async (db) => {
    // Serializes app instances starting at once against the same database.
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolwright-migrate:${s}`]);
    await db.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await db.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const current = Number((await db.query(`SELECT max(version) AS v FROM ${s}.schema_version`)).rows[0]?.v ?? 0);
    if (current > MIGRATIONS.length) {
      throw new Error(`database schema version ${current} is newer than this toolwright (${MIGRATIONS.length}); upgrade toolwright`);
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      const step = MIGRATIONS[v];
      if (typeof step === 'string') await db.query(step.replace(/\$S/g, s));
      else await step(db, s);
      await db.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [v + 1]);
    }
  });
}
