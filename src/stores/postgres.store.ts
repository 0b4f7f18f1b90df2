import type { Pool, PoolClient } from 'pg';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';
import type { LoadSessionOptions, SessionStore } from './store';
import { requirePeer } from '../errors/optional-peer';
import { ToolwrightConfigError } from '../errors/errors';
import {
  checkHistoryLimit,
  encodeMemoryChanges,
  encodeSessionChanges,
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
const MIGRATIONS: readonly string[] = [
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
];

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
  private ready?: Promise<void>;

  constructor(options: PostgresStoreOptions = {}) {
    const schema = options.schema ?? 'toolwright';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new ToolwrightConfigError(`invalid schema name ${JSON.stringify(schema)}: use letters, digits and _`);
    this.s = `"${schema}"`;
    this.ttlSeconds = options.sessionTtlSeconds;
    this.owned = !options.pool;
    const timeout = options.statementTimeoutMs ?? 5000;
    this.pool =
      (options.pool as Pool | undefined) ??
      new (pg().Pool)({
        connectionString: options.connectionString,
        connectionTimeoutMillis: timeout,
        statement_timeout: timeout,
        query_timeout: timeout + 1000,
      });
    // An idle client losing its server emits on the pool; the next query reports it typed.
    if (this.owned) this.pool.on('error', () => undefined);
  }

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    const limit = checkHistoryLimit(options.historyLimit);
    // One statement reads one snapshot: meta, state and history cannot come from different turns.
    const { rows } = await this.query(
      `SELECT s.user_id, s.user_input, s.pending_run, s.version,
         ARRAY(SELECT key FROM ${this.s}.session_state st WHERE st.session_pk = s.id ORDER BY key) AS state_keys,
         ARRAY(SELECT value FROM ${this.s}.session_state st WHERE st.session_pk = s.id ORDER BY key) AS state_values,
         ARRAY(SELECT body FROM (SELECT seq, body FROM ${this.s}.session_messages m WHERE m.session_pk = s.id
                                 ORDER BY seq DESC LIMIT $3) t ORDER BY seq) AS history
       FROM ${this.s}.sessions s
       WHERE s.tenant = $1 AND s.session_id = $2 AND (s.expires_at IS NULL OR s.expires_at > now())`,
      [tenantOf(key), key.sessionId, limit ?? null],
    );
    const row = rows[0] as
      | { user_id: string | null; user_input: string | null; pending_run: string | null; version: string; state_keys: string[]; state_values: string[]; history: string[] }
      | undefined;
    if (!row) return undefined;
    return toSessionSnapshot(key, {
      userId: row.user_id,
      state: stateFromEntries(row.state_keys.map((k, i) => [k, row.state_values[i] as string] as const)),
      history: row.history,
      userInput: row.user_input,
      pendingRun: row.pending_run,
      version: Number(row.version),
    });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    const c = encodeSessionChanges(changes);
    return this.transaction(async (db) => {
      // Upsert-and-lock: ON CONFLICT DO UPDATE locks the row until commit, so concurrent saves of
      // this session queue here and each sees the previous one's last_seq.
      const locked = await db.query(
        `INSERT INTO ${this.s}.sessions (tenant, session_id) VALUES ($1, $2)
         ON CONFLICT (tenant, session_id) DO UPDATE SET tenant = EXCLUDED.tenant
         RETURNING id, last_seq, (expires_at IS NOT NULL AND expires_at <= now()) AS expired`,
        [tenantOf(key), key.sessionId],
      );
      const row = locked.rows[0] as { id: string; last_seq: string; expired: boolean };
      let seq = Number(row.last_seq);
      if (row.expired) {
        // Expired: the session starts over, as if it had been deleted.
        await db.query(`DELETE FROM ${this.s}.session_state WHERE session_pk = $1`, [row.id]);
        await db.query(`DELETE FROM ${this.s}.session_messages WHERE session_pk = $1`, [row.id]);
        await db.query(
          `UPDATE ${this.s}.sessions SET user_id = NULL, user_input = NULL, pending_run = NULL, version = 0 WHERE id = $1`,
          [row.id],
        );
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
      if (c.replaced) await db.query(`DELETE FROM ${this.s}.session_messages WHERE session_pk = $1`, [row.id]);
      const messages = [...(c.replaced ?? []), ...c.appended];
      if (messages.length) {
        await db.query(
          `INSERT INTO ${this.s}.session_messages (session_pk, seq, body)
           SELECT $1, $2::bigint + ord, body FROM unnest($3::text[]) WITH ORDINALITY AS t(body, ord)`,
          [row.id, seq, messages],
        );
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
        [row.id, c.userId ?? null, c.userInput !== undefined, c.userInput ?? null, c.pendingRun !== undefined, c.pendingRun ?? null, seq, this.ttlSeconds ?? null],
      );
      return Number((updated.rows[0] as { version: string }).version);
    });
  }

  async deleteSession(key: SessionKey): Promise<void> {
    await this.query(`DELETE FROM ${this.s}.sessions WHERE tenant = $1 AND session_id = $2`, [tenantOf(key), key.sessionId]);
  }

  /** Deletes every session past its TTL; returns how many. Loads already ignore them; run it now and then. */
  async purgeExpired(): Promise<number> {
    const res = await this.query(`DELETE FROM ${this.s}.sessions WHERE expires_at <= now()`, []);
    return res.rowCount ?? 0;
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    const { rows } = await this.query(
      `SELECT m.summary, m.version,
         ARRAY(SELECT body FROM ${this.s}.memory_entries e WHERE e.memory_pk = m.id ORDER BY seq) AS entries
       FROM ${this.s}.memories m WHERE m.tenant = $1 AND m.agent = $2 AND m.user_id = $3`,
      [tenantOf(key), key.agentName, key.userId],
    );
    const row = rows[0] as { summary: string | null; version: string; entries: string[] } | undefined;
    return row && toMemorySnapshot(key, { entries: row.entries, summary: row.summary, version: Number(row.version) });
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    const c = encodeMemoryChanges(changes);
    return this.transaction(async (db) => {
      const locked = await db.query(
        `INSERT INTO ${this.s}.memories (tenant, agent, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (tenant, agent, user_id) DO UPDATE SET tenant = EXCLUDED.tenant RETURNING id, last_seq`,
        [tenantOf(key), key.agentName, key.userId],
      );
      const row = locked.rows[0] as { id: string; last_seq: string };
      if (c.added.length) {
        await db.query(
          `INSERT INTO ${this.s}.memory_entries (memory_pk, seq, body)
           SELECT $1, $2::bigint + ord, body FROM unnest($3::text[]) WITH ORDINALITY AS t(body, ord)`,
          [row.id, row.last_seq, c.added],
        );
      }
      const updated = await db.query(
        `UPDATE ${this.s}.memories SET summary = CASE WHEN $2 THEN $3 ELSE summary END,
           last_seq = last_seq + $4, version = version + 1 WHERE id = $1 RETURNING version`,
        [row.id, c.summary !== undefined, c.summary ?? null, c.added.length],
      );
      return Number((updated.rows[0] as { version: string }).version);
    });
  }

  /** Ends the pool this store created; a pool passed in stays open (its owner ends it). */
  async close(): Promise<void> {
    if (this.owned && !this.pool.ended) await this.pool.end();
  }

  private query(sql: string, params: unknown[]) {
    return guard('postgres', async () => {
      await this.migrated();
      return this.pool.query(sql, params);
    });
  }

  private transaction<T>(work: (db: PoolClient) => Promise<T>): Promise<T> {
    return guard('postgres', async () => {
      await this.migrated();
      const db = await this.pool.connect();
      let broken = false;
      // A checked-out client reports a lost connection on itself, not on the pool.
      const lost = () => (broken = true);
      db.on('error', lost);
      try {
        await db.query('BEGIN');
        const result = await work(db);
        await db.query('COMMIT');
        return result;
      } catch (err) {
        // A failed ROLLBACK means the connection is gone: drop it rather than reuse it.
        await db.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      } finally {
        db.off('error', lost);
        db.release(broken);
      }
    });
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
        await db.query((MIGRATIONS[v] as string).replace(/\$S/g, this.s));
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

/** pg is an optional peer dependency: loaded only when a PostgresStore makes its own pool. */
function pg(): typeof import('pg') {
  return requirePeer('pg', 'npm install pg@8', 'PostgresStore without a pool');
}
