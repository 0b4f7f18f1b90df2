import type { Pool, PoolClient } from 'pg';
import type { IdempotencyClaims } from '../side-effects/claims';
import { PostgresIdempotencyClaims } from './claims/postgres-claims';
import { memoryKeyString } from './apply-changes';
import { CachedMemoryIndex } from '../session/cached-memory-index';
import { growCachedEntries, keptSnapshot, type CachedEntries } from '../session/kept-memory';
import {
  entryWords,
  fuzzyDistance,
  fuzzyMatches,
  lowerBound,
  MEMORY_QUERY_LIMITS,
  prefixWordsPerTerm,
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
import type { Message } from '../session/message';
import type { LoadSessionOptions, SessionStore, StoreChannels } from './store';
import { PgChannels } from './channels/pg-channels';
import { requirePeer } from '../errors/optional-peer';
import { ToolwrightConfigError } from '../errors/errors';
import { quietListener } from './driver-errors';
import {
  checkHistoryLimit,
  checkId,
  checkMemoryKey,
  checkOwner,
  checkSessionChanges,
  checkSessionKey,
  describeSave,
  describeSessionSave,
  encodedSize,
  saveAllowanceMs,
  encodeMemoryChanges,
  encodeSessionChanges,
  type EncodedMemoryChanges,
  type EncodedSessionChanges,
  guard,
  stateFromEntries,
  tenantOf,
  toMemorySnapshot,
  toSessionSnapshot,
} from './snapshot-rows';

/**
 * The part of a `pg` pool the store needs to accept one. Declared structurally so that
 * toolwright's types need no pg install; a `Pool` instance fits.
 */
export interface PgPoolLike {
  connect(): Promise<unknown>;
  end(): Promise<void>;
  /** A `Pool` has both: the store listens for an idle client's error (see `onError`) and stops on close. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

export interface PostgresStoreOptions {
  /** A pool you own (not ended by `close()`); otherwise one is created from `connectionString`. */
  pool?: PgPoolLike;
  connectionString?: string;
  /** Schema holding the tables, created when missing. Default `toolwright`. */
  schema?: string;
  /** Sessions not saved for this long are treated as gone (see `purgeExpired`). */
  sessionTtlSeconds?: number;
  /** Statement and connect timeout for a pool this store creates (ms). Default 5000. */
  statementTimeoutMs?: number;
  /**
   * Called with a connection error pg reports outside any call (an idle pooled client losing its
   * server, as in a restart); calls it affects reject with StoreUnavailableError. Default: ignored.
   */
  onError?: (error: unknown) => void;
}

/**
 * Schema changes in order; `schema_version` records how many ran. Append, never edit.
 * `$S` is replaced by the quoted schema name.
 *
 * State is one text row per key rather than a jsonb column merged with `||`: jsonb rejects
 * `\u0000` in strings and a per-key upsert is the same merge, like the SQLite store's. History
 * and memory entries are rows keyed by a per-owner sequence; the sequence lives on the owner row,
 * which every save locks first, so concurrent saves never interleave or reuse numbers.
 */
const MIGRATIONS: ReadonlyArray<string | ((db: PoolClient, s: string) => Promise<void>)> = [
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
];

/**
 * The lexeme naming a memory in its entries' tsvectors: a space and the memory's id, which no word
 * can be (words never hold a space). A search ANDs it into its tsquery, so the GIN index alone
 * finds the memory's matching entries. Filtering on memory_pk instead left the plan to statistics:
 * a freshly filled memory (no ANALYZE yet) got a BitmapAnd with the primary key's index, which
 * reads every entry of the memory (50,000 index entries) for every search.
 */
const SCOPE_LEXEME = (pk: string) => `' ' || ${pk}`;

/**
 * A history chunk takes messages while it holds fewer than HISTORY_CHUNK messages and
 * HISTORY_CHUNK_CHARS characters: a load reads one row per chunk, and an append rewrites at most
 * one chunk (the last) of bounded size.
 */
const HISTORY_CHUNK = 256;
const HISTORY_CHUNK_CHARS = 64 * 1024;

/** How much history text (UTF-16 characters) a store keeps in the process across sessions. */
const HISTORY_CACHE_CHARS = 32 * 1024 * 1024;

/** Messages `first`..`last` of a session, as the items of a JSON array. */
interface HistoryChunk {
  items: string;
  first: number;
  last: number;
}

interface CachedHistory {
  pk: string;
  firstSeq: number;
  lastSeq: number;
  chunks: HistoryChunk[];
  chars: number;
}

/** A query term is spelled out as at most this many words it begins; beyond, it stays a `:*` prefix. */
const PREFIX_WORDS = 32;

/** A tsquery operand matching `term` as a prefix (`'term':*`) or exactly. */
const tsTerm = (t: string, prefix: boolean) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*' : ''}`;

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Sessions in PostgreSQL, for many app instances sharing them. Each save is one transaction
 * that upserts-and-locks the session row, then merges state per key and appends history rows,
 * so concurrent turns from any number of processes lose nothing.
 */
export class PostgresStore implements SessionStore {
  private readonly pool: Pool;
  private readonly owned: boolean;
  private readonly s: string;
  private readonly ttlSeconds?: number;
  private readonly timeoutMs: number;
  /** Recently loaded sessions' history text, least recently used first (see cacheHistory). */
  private readonly historyCache = new Map<string, CachedHistory>();
  private historyChars = 0;
  /** Per memory scope: its entries as last loaded here, of one generation (the memory's row id: a recreated memory gets a new one). */
  private readonly memoryCache = new Map<string, CachedEntries>();
  /** Per memory scope searched here: its id, version and vocabulary (sorted), to expand a typo with no vocabulary fetch. */
  private readonly vocabularies = new Map<string, { pk: string; version: string; words: string[] }>();
  private ready?: Promise<void>;
  private readonly poolError: (error: Error) => void;

  constructor(options: PostgresStoreOptions = {}) {
    const schema = options.schema ?? 'toolwright';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
      throw new ToolwrightConfigError(`invalid schema name ${JSON.stringify(schema)}: use letters, digits and _`);
    this.s = `"${schema}"`;
    this.ttlSeconds = options.sessionTtlSeconds;
    this.owned = !options.pool;
    const timeout = options.statementTimeoutMs ?? 5000;
    this.timeoutMs = timeout;
    this.pool =
      (options.pool as Pool | undefined) ??
      new (pg().Pool)({
        connectionString: options.connectionString,
        connectionTimeoutMillis: timeout,
        statement_timeout: timeout,
        query_timeout: timeout + 1000,
      });
    // An idle client losing its server emits 'error' on the pool, and an 'error' nobody listens to
    // kills the process: listened to on a pool passed in too (beside the app's own listeners), until close.
    this.poolError = quietListener(options.onError);
    (this.pool as PgPoolLike).on?.('error', this.poolError);
  }

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    checkSessionKey(key);
    const limit = checkHistoryLimit(options.historyLimit);
    const scope = JSON.stringify([tenantOf(key), key.sessionId]);
    let cached = limit === undefined ? this.historyCache.get(scope) : undefined;
    let read = await this.readSession(key, limit, cached?.lastSeq ?? 0);
    if (read && cached && (read.pk !== cached.pk || read.firstSeq !== cached.firstSeq)) {
      // Recreated or its history replaced since it was cached (either gives it new message numbers): read it whole.
      this.forgetHistory(scope);
      cached = undefined;
      read = await this.readSession(key, limit, 0);
    } else if (cached && read) {
      // The cached chunks plus what was appended since: the chunk it went into, as it is now, and any new ones.
      const from = read.chunks.length ? read.chunks[0].first : Infinity;
      read.chunks = [...cached.chunks.filter((c) => c.first < from), ...read.chunks];
    }
    if (!read) {
      this.forgetHistory(scope);
      return undefined;
    }
    if (limit === undefined) this.cacheHistory(scope, read, cached);
    let messages: Message[] = [];
    for (const chunk of read.chunks) for (const m of JSON.parse(`[${chunk.items}]`) as Message[]) messages.push(m);
    // A window reads the chunks holding its messages; the first may hold older ones.
    if (limit !== undefined && messages.length > limit) messages = limit === 0 ? [] : messages.slice(-limit);
    return toSessionSnapshot(key, { ...read.row, history: [], messages });
  }

  /**
   * One statement reads one snapshot: meta, state and history (the chunks holding messages after
   * `after`, or the last `limit` messages) cannot come from different turns. History is stored as
   * chunks, each the text of a JSON array's items (each body is a whole JSON value): one row and one
   * JSON.parse per chunk. Rows per message joined on the server at load (string_agg) cost the
   * server a row visit and a sort per message; a row per message cost node-pg a row, fields and
   * strings per message; a text[] column was slower still (node-pg parsed the literal per character).
   */
  private async readSession(key: SessionKey, limit: number | undefined, after: number) {
    const { rows } = await guard('postgres', async () => {
      await this.migrated();
      return this.pool.query<[number, string | null, string | null, string | null, string | null, string | null]>({
        text: `WITH s AS (SELECT id, user_id, user_input, pending_run, version, last_seq FROM ${this.s}.sessions
                          WHERE tenant = $1 AND session_id = $2 AND (expires_at IS NULL OR expires_at > now()))
               SELECT 0, user_id, user_input, pending_run, version::text, id::text FROM s
               UNION ALL SELECT 3, (SELECT min(first_seq) FROM ${this.s}.session_history h WHERE h.session_pk = s.id)::text, s.last_seq::text, NULL, NULL, NULL FROM s
               UNION ALL SELECT 1, st.key, st.value, NULL, NULL, NULL FROM ${this.s}.session_state st, s WHERE st.session_pk = s.id
               UNION ALL SELECT 2, h.items, h.first_seq::text, h.last_seq::text, NULL, NULL FROM ${this.s}.session_history h, s
                 WHERE h.session_pk = s.id AND h.last_seq > GREATEST($4, s.last_seq - COALESCE($3::bigint, s.last_seq))`,
        values: [tenantOf(key), key.sessionId, limit ?? null, after],
        rowMode: 'array',
      });
    });
    const meta = rows.find((r) => r[0] === 0);
    if (!meta) return undefined;
    const state: Array<[string, string]> = [];
    let chunks: HistoryChunk[] = [];
    let firstSeq: number | null = null;
    let lastSeq = '0';
    for (const r of rows) {
      if (r[0] === 1) state.push([r[1] as string, r[2] as string]);
      else if (r[0] === 2) chunks.push({ items: r[1] as string, first: Number(r[2]), last: Number(r[3]) });
      else if (r[0] === 3) {
        firstSeq = r[1] === null ? null : Number(r[1]);
        lastSeq = r[2] as string;
      }
    }
    chunks = chunks.sort((a, b) => a.first - b.first);
    return {
      pk: meta[5] as string,
      firstSeq,
      chunks,
      row: {
        userId: meta[1],
        state: stateFromEntries(state.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))),
        userInput: meta[2],
        pendingRun: meta[3],
        version: Number(meta[4]),
        // The row id (bigserial, never reused) and the last message number (only grows, also when the history is replaced).
        historyMark: `${meta[5] as string}:${lastSeq}`,
      },
    };
  }

  private forgetHistory(scope: string): void {
    const entry = this.historyCache.get(scope);
    if (!entry) return;
    this.historyCache.delete(scope);
    this.historyChars -= entry.chars;
  }

  /**
   * Keeps a session's history text in this process, so the next load reads only the messages
   * appended since (history rows are only ever appended; a replace or a recreation renumbers them,
   * which the next load sees in the first message number or the row id). Bounded in characters.
   */
  private cacheHistory(scope: string, read: { pk: string; firstSeq: number | null; chunks: HistoryChunk[] }, cached?: CachedHistory): void {
    const current = this.historyCache.get(scope);
    // Another load of this session finished first: keep its entry rather than interleave.
    if (current !== cached) return;
    if (current) this.historyChars -= current.chars;
    this.historyCache.delete(scope);
    const chars = read.chunks.reduce((n, c) => n + c.items.length, 0);
    if (read.firstSeq === null || read.chunks.length === 0 || chars > HISTORY_CACHE_CHARS / 4) return;
    this.historyCache.set(scope, {
      pk: read.pk,
      firstSeq: read.firstSeq,
      lastSeq: read.chunks[read.chunks.length - 1].last,
      chunks: read.chunks,
      chars,
    });
    this.historyChars += chars;
    for (const [oldest, entry] of this.historyCache) {
      if (this.historyChars <= HISTORY_CACHE_CHARS) break;
      this.historyCache.delete(oldest);
      this.historyChars -= entry.chars;
    }
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    checkSessionKey(key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'postgres');
    return this.transaction(
      sessionSaveSize(c),
      () => describeSessionSave(c),
      (db) => this.writeSession(db, key, changes, c),
    );
  }

  /** One run's session and memory changes in one transaction: both are committed or neither. */
  async saveTurn(key: SessionKey, changes: SessionChanges, memory: { key: MemoryKey; changes: MemoryChanges }): Promise<number> {
    checkSessionKey(key);
    checkMemoryKey(memory.key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'postgres');
    const m = encodeMemoryChanges(memory.changes, 'postgres');
    const session = sessionSaveSize(c);
    const entries = encodedSize(m.added);
    return this.transaction(
      { rows: session.rows + entries.rows, chars: session.chars + entries.chars },
      () => `${describeSessionSave(c)} with ${describeSave('a memory save', { entries: m.added })}`,
      async (db) => {
        // Session row first, then the memory row: every save that locks both locks them in this order.
        const version = await this.writeSession(db, key, changes, c);
        await this.writeMemory(db, memory.key, memory.changes, m);
        return version;
      },
    );
  }

  /** A session save's statements, inside the caller's transaction. */
  private async writeSession(db: Queryable, key: SessionKey, changes: SessionChanges, c: EncodedSessionChanges): Promise<number> {
    // Upsert-and-lock: ON CONFLICT DO UPDATE locks the row until commit, so concurrent saves of
    // this session queue here and each sees the previous one's last_seq.
    const locked = await db.query(
      `INSERT INTO ${this.s}.sessions AS t (tenant, session_id) VALUES ($1, $2)
         ON CONFLICT (tenant, session_id) DO UPDATE SET tenant = EXCLUDED.tenant
         RETURNING id, last_seq, user_id, (expires_at IS NOT NULL AND expires_at <= now()) AS expired, (xmax = 0) AS inserted,
           (SELECT ARRAY[first_seq, last_seq, length(items)]::text[] FROM ${this.s}.session_history h
             WHERE h.session_pk = t.id ORDER BY first_seq DESC LIMIT 1) AS tail`,
      [tenantOf(key), key.sessionId],
    );
    const row = locked.rows[0] as {
      id: string;
      last_seq: string;
      user_id: string | null;
      expired: boolean;
      inserted: boolean;
      tail: string[] | null;
    };
    // Rolled back with the transaction: the upsert above leaves nothing when the owner changed.
    if (!row.inserted && !row.expired) checkOwner(key, changes.owner, row.user_id);
    let seq = Number(row.last_seq);
    if (row.expired) {
      // Expired: the session starts over, as if it had been deleted.
      await db.query(`DELETE FROM ${this.s}.session_state WHERE session_pk = $1`, [row.id]);
      await db.query(`DELETE FROM ${this.s}.session_history WHERE session_pk = $1`, [row.id]);
      await db.query(`UPDATE ${this.s}.sessions SET user_id = NULL, user_input = NULL, pending_run = NULL, version = 0 WHERE id = $1`, [
        row.id,
      ]);
    }
    if (c.deleted.length) {
      await db.query(`DELETE FROM ${this.s}.session_state WHERE session_pk = $1 AND key = ANY($2::text[])`, [row.id, c.deleted]);
    }
    if (c.set.length) {
      await db.query(
        `INSERT INTO ${this.s}.session_state (session_pk, key, value)
           SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS t(k, v)
           ON CONFLICT (session_pk, key) DO UPDATE SET value = EXCLUDED.value`,
        [row.id, c.set.map(([k]) => k), c.set.map(([, v]) => v)],
      );
    }
    if (c.replaced) await db.query(`DELETE FROM ${this.s}.session_history WHERE session_pk = $1`, [row.id]);
    const messages = [...(c.replaced ?? []), ...c.appended];
    if (messages.length) {
      // The last chunk takes what fits (unless the history was just emptied); the rest makes new chunks.
      const tail = row.tail && !row.expired && !c.replaced ? row.tail.map(Number) : undefined;
      const open = tail && tail[1] === seq ? tail : undefined;
      const [more, ...rest] = chunkHistory(messages, open ? open[1] - open[0] + 1 : HISTORY_CHUNK, open ? open[2] : 0);
      let fresh = rest;
      let extended = 0;
      if (open && more.length) {
        const res = await db.query(
          `UPDATE ${this.s}.session_history SET items = items || ',' || $3, last_seq = $4 WHERE session_pk = $1 AND first_seq = $2`,
          [row.id, open[0], more.join(','), seq + more.length],
        );
        // The tail was read with this statement's snapshot, taken before it waited for the row lock: a
        // save that emptied the history meanwhile (expired, replaced) deleted it. Then these start a chunk.
        if (res.rowCount === 1) extended = more.length;
        else fresh = [more, ...rest];
      }
      if (fresh.length) {
        const firsts: number[] = [];
        let next = seq + extended;
        for (const chunk of fresh) {
          firsts.push(next + 1);
          next += chunk.length;
        }
        await db.query(
          `INSERT INTO ${this.s}.session_history (session_pk, first_seq, last_seq, items)
             SELECT $1, f, f + n - 1, items FROM unnest($2::bigint[], $3::int[], $4::text[]) AS t(f, n, items)`,
          [row.id, firsts, fresh.map((chunk) => chunk.length), fresh.map((chunk) => chunk.join(','))],
        );
      }
      seq += messages.length;
    }
    const updated = await db.query(
      `UPDATE ${this.s}.sessions SET
           user_id = COALESCE($2, user_id),
           user_input = CASE WHEN $3 THEN $4 ELSE user_input END,
           pending_run = CASE WHEN $5 THEN $6 ELSE pending_run END,
           last_seq = $7, version = version + 1,
           expires_at = CASE WHEN $8::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $8::float8) END
         WHERE id = $1 RETURNING version`,
      [
        row.id,
        c.userId ?? null,
        c.userInput !== undefined,
        c.userInput ?? null,
        c.pendingRun !== undefined,
        c.pendingRun ?? null,
        seq,
        this.ttlSeconds ?? null,
      ],
    );
    return Number((updated.rows[0] as { version: string }).version);
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    this.forgetHistory(JSON.stringify([tenantOf(key), key.sessionId]));
    await this.query(`DELETE FROM ${this.s}.sessions WHERE tenant = $1 AND session_id = $2`, [tenantOf(key), key.sessionId]);
  }

  /** Deletes every session past its TTL; returns how many. Loads already ignore them; run it now and then. */
  async purgeExpired(): Promise<number> {
    const res = await this.query(`DELETE FROM ${this.s}.sessions WHERE expires_at <= now()`, []);
    return res.rowCount ?? 0;
  }

  async claimSession(key: SessionKey, userId: string | null): Promise<string | null> {
    checkSessionKey(key);
    if (userId !== null) checkId('userId', userId);
    return this.transaction(
      { rows: 0, chars: 0 },
      () => 'a session claim',
      async (db) => {
        // Insert-if-absent; on conflict the row is locked until commit, so a concurrent claim waits and then sees the owner.
        const { rows } = await db.query(
          `INSERT INTO ${this.s}.sessions (tenant, session_id, user_id, expires_at)
         VALUES ($1, $2, $3, CASE WHEN $4::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $4::float8) END)
         ON CONFLICT (tenant, session_id) DO UPDATE SET tenant = EXCLUDED.tenant
         RETURNING id, user_id, (expires_at IS NOT NULL AND expires_at <= now()) AS expired`,
          [tenantOf(key), key.sessionId, userId, this.ttlSeconds ?? null],
        );
        const row = rows[0] as { id: string; user_id: string | null; expired: boolean };
        if (!row.expired) return row.user_id;
        // Expired: the session starts over, owned by the claimant.
        await db.query(`DELETE FROM ${this.s}.session_state WHERE session_pk = $1`, [row.id]);
        await db.query(`DELETE FROM ${this.s}.session_history WHERE session_pk = $1`, [row.id]);
        await db.query(
          `UPDATE ${this.s}.sessions SET user_id = $2, user_input = NULL, pending_run = NULL, version = 0,
           expires_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $3::float8) END
         WHERE id = $1`,
          [row.id, userId, this.ttlSeconds ?? null],
        );
        return userId;
      },
    );
  }

  async compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown): Promise<boolean> {
    checkSessionKey(key);
    const res = await this.query(
      `UPDATE ${this.s}.sessions SET pending_run = $3, version = version + 1
       WHERE tenant = $1 AND session_id = $2 AND COALESCE(pending_run, 'null') = $4 AND (expires_at IS NULL OR expires_at > now())`,
      [tenantOf(key), key.sessionId, next === null ? null : JSON.stringify(next), JSON.stringify(expected ?? null)],
    );
    return res.rowCount === 1;
  }

  async deleteMemory(key: MemoryKey): Promise<void> {
    checkMemoryKey(key);
    // Nothing of it stays in this process (another process's copy goes at its next load: a new row id).
    this.memoryCache.delete(memoryKeyString(key));
    this.vocabularies.delete(memoryKeyString(key));
    // memory_entries go with it (ON DELETE CASCADE).
    await this.query(`DELETE FROM ${this.s}.memories WHERE tenant = $1 AND agent = $2 AND user_id = $3`, [
      tenantOf(key),
      key.agentName,
      key.userId,
    ]);
  }

  /**
   * Entries are only ever appended, so this process keeps each recently used memory's entries
   * (frozen) and search index, and a load reads only the entries saved since; `memory.search` on
   * a loaded memory then uses that index instead of indexing every entry on every run.
   */
  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    checkMemoryKey(key);
    const scope = memoryKeyString(key);
    const known = this.memoryCache.get(scope);
    // The entries after those cached, if the memory is still the row they were read from (its id is
    // never reused: a memory deleted and created again by any process is read whole); one statement.
    const { rows } = await this.query(
      `SELECT m.id, m.summary, m.version, f.after_seq,
         ARRAY(SELECT body FROM ${this.s}.memory_entries e WHERE e.memory_pk = m.id AND e.seq > f.after_seq ORDER BY seq) AS entries
       FROM ${this.s}.memories m, LATERAL (SELECT CASE WHEN m.id = $5::bigint THEN $4::bigint ELSE 0 END AS after_seq) f
       WHERE m.tenant = $1 AND m.agent = $2 AND m.user_id = $3`,
      [tenantOf(key), key.agentName, key.userId, known?.entries.length ?? 0, known?.generation ?? null],
    );
    const row = rows[0] as { id: string; summary: string | null; version: string; after_seq: string; entries: string[] } | undefined;
    if (!row) {
      this.memoryCache.delete(scope);
      return undefined;
    }
    const tail = toMemorySnapshot(key, { entries: row.entries, summary: row.summary, version: Number(row.version) });
    for (const e of tail.entries) Object.freeze(e);
    const { cached, count } = growCachedEntries(known, row.id, Number(row.after_seq), tail.entries);
    this.memoryCache.delete(scope);
    this.memoryCache.set(scope, cached);
    if (this.memoryCache.size > 256) this.memoryCache.delete(this.memoryCache.keys().next().value as string);
    const { entries: _tail, ...rest } = tail;
    return keptSnapshot(
      rest,
      cached.entries,
      { search: (query, limit) => (cached.index ??= new CachedMemoryIndex(cached.entries, 0)).search(query, limit) },
      count,
    );
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    checkMemoryKey(key);
    const c = encodeMemoryChanges(changes, 'postgres');
    return this.transaction(
      encodedSize(c.added),
      () => describeSave('a memory save', { entries: c.added }),
      (db) => this.writeMemory(db, key, changes, c),
    );
  }

  /** A memory save's statements, inside the caller's transaction. */
  private async writeMemory(db: Queryable, key: MemoryKey, changes: MemoryChanges, c: EncodedMemoryChanges): Promise<number> {
    const locked = await db.query(
      `INSERT INTO ${this.s}.memories (tenant, agent, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (tenant, agent, user_id) DO UPDATE SET tenant = EXCLUDED.tenant RETURNING id, last_seq`,
      [tenantOf(key), key.agentName, key.userId],
    );
    const row = locked.rows[0] as { id: string; last_seq: string };
    if (c.added.length) {
      const words = changes.added.map((e) => entryWords(e));
      await db.query(
        `INSERT INTO ${this.s}.memory_entries (memory_pk, seq, body, words)
           SELECT $1, $2::bigint + ord, body, to_tsvector('simple', w) || array_to_tsvector(ARRAY[${SCOPE_LEXEME('$1::bigint')}])
           FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(body, w, ord)`,
        [row.id, row.last_seq, c.added, words.map((w) => w.join(' '))],
      );
      await db.query(
        `INSERT INTO ${this.s}.memory_terms (memory_pk, term) SELECT DISTINCT $1::bigint, term FROM unnest($2::text[]) AS t(term)
           ON CONFLICT DO NOTHING`,
        [row.id, [...new Set(words.flat())]],
      );
    }
    const updated = await db.query(
      `UPDATE ${this.s}.memories SET summary = CASE WHEN $2 THEN $3 ELSE summary END,
           last_seq = last_seq + $4, version = version + 1 WHERE id = $1 RETURNING version`,
      [row.id, c.summary !== undefined, c.summary ?? null, c.added.length],
    );
    return Number((updated.rows[0] as { version: string }).version);
  }

  /**
   * Ranked search over a memory's stored entries in PostgreSQL: the GIN index on each entry's
   * tsvector finds the matches, ts_rank orders them. Each query term matches as a prefix, spelled
   * out as the memory's words it begins (exact lexemes: a cheaper index lookup and rank than a
   * `:*` prefix; up to PREFIX_WORDS of them, fewer for a query of many terms); a term that is no
   * word's prefix in this memory is replaced by its nearest words within the typo distance (as
   * AgentMemory's fuzzy 0.2). Bounded by MEMORY_QUERY_LIMITS: a tsquery of tens of thousands of
   * operands exceeded PostgreSQL's stack depth.
   */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    const terms = queryTerms(query);
    if (terms.length === 0 || limit <= 0) return [];
    // Fewer words per prefix the more terms, so the tsquery stays within MEMORY_QUERY_LIMITS.operands.
    const prefixWords = prefixWordsPerTerm(terms.length, PREFIX_WORDS);
    const scope = memoryKeyString(key);
    const vocabulary = this.vocabularies.get(scope);
    // Typos expanded against the vocabulary as this process last read it: exact if the memory has not changed since (checked below).
    const guesses = vocabulary ? typoWords(terms, vocabulary.words) : [];
    // One statement: the memory's row, each query term's words in it (C collation: a prefix is an index
    // range), the ranked hits for those and the guesses, and when a term has none and the vocabulary
    // this process holds is not the current one, the vocabulary. The hits' tsquery is a scalar
    // subquery (an InitPlan parameter), so the GIN index can serve it as an index condition: joined
    // from a CTE it was a join filter, and without statistics the planner chose a sequential scan.
    const { rows } = await this.query(
      `WITH m AS (SELECT id, version, quote_literal(${SCOPE_LEXEME('id')})::tsquery AS scope FROM ${this.s}.memories
                  WHERE tenant = $1 AND agent = $2 AND user_id = $3),
       t AS (SELECT t.term, t.ord, ARRAY(SELECT w.term FROM ${this.s}.memory_terms w, m WHERE w.memory_pk = m.id
                                    AND w.term >= t.term COLLATE "C" AND w.term < (t.term || chr(1114111)) COLLATE "C"
                                  ORDER BY w.term LIMIT $8::int + 1) AS words
             FROM unnest($4::text[]) WITH ORDINALITY AS t(term, ord)),
       q AS (SELECT to_tsquery('simple', string_agg(op, ' | ')) AS q FROM (
               SELECT op FROM (
                 SELECT t.ord, quote_literal(term) || ':*' AS op FROM t WHERE cardinality(words) > $8::int
                 UNION ALL SELECT t.ord, quote_literal(w) FROM t, unnest(t.words) AS w WHERE cardinality(t.words) BETWEEN 1 AND $8::int
                 UNION ALL SELECT 1000000 + g.ord, quote_literal(g.g) FROM unnest($6::text[]) WITH ORDINALITY AS g(g, ord)
               ) o ORDER BY ord LIMIT ${MEMORY_QUERY_LIMITS.operands}) ops HAVING count(*) > 0),
       hits AS (SELECT e.seq, ts_rank(e.words, (SELECT q FROM q)) AS score FROM ${this.s}.memory_entries e
                WHERE e.words @@ (SELECT q.q && m.scope FROM q, m) ORDER BY score DESC, e.seq LIMIT $5)
       SELECT 'hit' AS kind, e.body AS value, h.score, h.seq, NULL::text[] AS words
         FROM hits h, m, ${this.s}.memory_entries e WHERE e.memory_pk = m.id AND e.seq = h.seq
       UNION ALL SELECT 'memory', id::text, NULL, version, NULL FROM m
       UNION ALL SELECT 'term', term, NULL, NULL, words FROM t
       UNION ALL SELECT 'word', w.term, NULL, NULL, NULL FROM ${this.s}.memory_terms w, m
         WHERE w.memory_pk = m.id AND m.id || ' ' || m.version <> $7 AND EXISTS (SELECT 1 FROM t WHERE cardinality(words) = 0)`,
      [
        tenantOf(key),
        key.agentName,
        key.userId,
        terms,
        limit,
        guesses,
        vocabulary ? `${vocabulary.pk} ${vocabulary.version}` : '',
        prefixWords,
      ],
    );
    type Row = { kind: string; value: string; score: number | null; seq: string | null; words: string[] | null };
    const result = rows as Row[];
    const memory = result.find((r) => r.kind === 'memory');
    if (!memory) {
      this.vocabularies.delete(scope);
      return [];
    }
    const current = vocabulary !== undefined && vocabulary.pk === memory.value && vocabulary.version === memory.seq;
    const fetched = result.filter((r) => r.kind === 'word').map((r) => r.value);
    if (!current && fetched.length) {
      this.vocabularies.delete(scope);
      this.vocabularies.set(scope, { pk: memory.value, version: memory.seq!, words: fetched.sort() });
      if (this.vocabularies.size > 256) this.vocabularies.delete(this.vocabularies.keys().next().value as string);
    }
    let hits = result.filter((r) => r.kind === 'hit');
    const known = result.filter((r) => r.kind === 'term' && r.words!.length > 0);
    const typos = result.filter((r) => r.kind === 'term' && r.words!.length === 0 && fuzzyDistance(r.value) > 0).map((r) => r.value);
    if (!current && (typos.length || guesses.length)) {
      // The memory changed since its vocabulary was read (or never was): expand typos against the one just fetched, then rank again.
      const operands = known.flatMap((r) =>
        r.words!.length > prefixWords ? [tsTerm(r.value, true)] : r.words!.map((w) => tsTerm(w, false)),
      );
      for (const t of typos) for (const w of fuzzyMatches(t, fetched)) operands.push(tsTerm(w, false));
      if (operands.length === 0) return [];
      operands.length = Math.min(operands.length, MEMORY_QUERY_LIMITS.operands);
      const again = await this.query(
        `SELECT 'hit' AS kind, body AS value, ts_rank(words, q) AS score, seq FROM ${this.s}.memory_entries, to_tsquery('simple', $2) AS q
         WHERE words @@ (q && quote_literal(${SCOPE_LEXEME('$1::bigint')})::tsquery) ORDER BY score DESC, seq LIMIT $3`,
        [memory.value, operands.join(' | '), limit],
      );
      hits = again.rows as Row[];
    }
    return hits
      .sort((a, b) => Number(b.score) - Number(a.score) || Number(a.seq) - Number(b.seq))
      .map((r) => ({ ...(JSON.parse(r.value) as MemoryEntry), score: Number(r.score) }));
  }

  private pubsub?: PgChannels;

  /** pg_notify through the pool, LISTEN on one pooled client while anything is subscribed (see StoreChannels). */
  get channels(): StoreChannels {
    return (this.pubsub ??= new PgChannels(this.pool, this.s.slice(1, -1)));
  }

  /**
   * Idempotency claims kept in this store's schema, for `new IdempotencyLedger(store.idempotency('refunds'))`:
   * processes sharing the database run each key's side effect once.
   */
  idempotency<T>(namespace = 'default'): IdempotencyClaims<T> {
    checkId('namespace', namespace);
    return new PostgresIdempotencyClaims<T>((sql, params) => this.query(sql, params), this.s, namespace);
  }

  /** Ends the pool this store created; a pool passed in stays open (its owner ends it). */
  async close(): Promise<void> {
    await this.pubsub?.close();
    if (this.owned && !this.pool.ended) await this.pool.end();
    // The app's pool is the app's again: only this store's listener goes.
    if (!this.owned) (this.pool as PgPoolLike).off?.('error', this.poolError);
  }

  private query(sql: string, params: unknown[]) {
    return guard('postgres', async () => {
      await this.migrated();
      return this.pool.query(sql, params);
    });
  }

  /** One save in a transaction; a large one gets statement and read timeouts grown with its size. */
  private transaction<T>(size: { rows: number; chars: number }, saving: () => string, work: (db: Queryable) => Promise<T>): Promise<T> {
    return guard(
      'postgres',
      async () => {
        await this.migrated();
        const extra = saveAllowanceMs(size.rows, size.chars);
        const client = await this.pool.connect();
        const readTimeout = extra < 200 ? undefined : this.timeoutMs + 1000 + extra;
        const db: Queryable = {
          query: (text, values) =>
            client.query(readTimeout === undefined ? { text, values } : ({ text, values, query_timeout: readTimeout } as never)),
        };
        let broken = false;
        // A checked-out client reports a lost connection on itself, not on the pool.
        const lost = () => (broken = true);
        client.on('error', lost);
        try {
          await db.query('BEGIN');
          if (readTimeout !== undefined) await db.query(`SET LOCAL statement_timeout = ${Math.ceil(this.timeoutMs + extra)}`);
          const result = await work(db);
          await db.query('COMMIT');
          return result;
        } catch (err) {
          // A failed ROLLBACK means the connection is gone: drop it rather than reuse it.
          await db.query('ROLLBACK').catch(() => (broken = true));
          throw err;
        } finally {
          client.off('error', lost);
          client.release(broken);
        }
      },
      saving,
    );
  }

  /** Creates or migrates the tables once per store; retried on the next call if it failed. */
  private migrated(): Promise<void> {
    this.ready ??= this.migrate().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  private async migrate(): Promise<void> {
    const db = await this.pool.connect();
    let broken = false;
    const lost = () => (broken = true);
    db.on('error', lost);
    try {
      await db.query('BEGIN');
      // Serializes app instances starting at once against the same database.
      await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolwright-migrate:${this.s}`]);
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await db.query(`CREATE TABLE IF NOT EXISTS ${this.s}.schema_version (version integer NOT NULL)`);
      const current = Number((await db.query(`SELECT max(version) AS v FROM ${this.s}.schema_version`)).rows[0]?.v ?? 0);
      if (current > MIGRATIONS.length) {
        throw new Error(`database schema version ${current} is newer than this toolwright (${MIGRATIONS.length}); upgrade toolwright`);
      }
      for (let v = current; v < MIGRATIONS.length; v++) {
        const step = MIGRATIONS[v];
        if (typeof step === 'string') await db.query(step.replace(/\$S/g, this.s));
        else await step(db, this.s);
        await db.query(`INSERT INTO ${this.s}.schema_version (version) VALUES ($1)`, [v + 1]);
      }
      await db.query('COMMIT');
    } catch (err) {
      await db.query('ROLLBACK').catch(() => (broken = true));
      throw err;
    } finally {
      db.off('error', lost);
      db.release(broken);
    }
  }
}

/** The words of `vocabulary` (sorted) within the typo distance of each term that begins none of them. */
function typoWords(terms: readonly string[], vocabulary: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of terms) {
    const lo = lowerBound(vocabulary, t);
    if (lo < vocabulary.length && vocabulary[lo].startsWith(t)) continue;
    for (const w of fuzzyMatches(t, vocabulary)) out.push(w);
  }
  return out;
}

/**
 * Splits encoded messages into history chunks (see HISTORY_CHUNK): the first continues a last
 * chunk of `count` messages and `chars` characters (empty if that one is full), the rest are new.
 */
function chunkHistory(messages: readonly string[], count: number, chars: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  for (const m of messages) {
    if (count >= HISTORY_CHUNK || chars >= HISTORY_CHUNK_CHARS) {
      chunks.push(current);
      current = [];
      count = 0;
      chars = 0;
    }
    current.push(m);
    count++;
    chars += m.length + 1;
  }
  chunks.push(current);
  return chunks;
}

/** What a session save writes, for its timeouts. */
function sessionSaveSize(c: EncodedSessionChanges): { rows: number; chars: number } {
  return encodedSize([...c.appended, ...(c.replaced ?? []), ...c.set.map(([, v]) => v)]);
}

/** The one thing a save does with its connection. */
interface Queryable {
  query(text: string, values?: unknown[]): Promise<import('pg').QueryResult>;
}

/** pg is an optional peer dependency: loaded only when a PostgresStore makes its own pool. */
function pg(): typeof import('pg') {
  return requirePeer('pg', 'npm install pg@8', 'PostgresStore without a pool');
}
