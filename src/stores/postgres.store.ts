import type { Pool } from 'pg';
import type { IdempotencyClaims } from '../side-effects/claims';
import { PostgresIdempotencyClaims } from './claims/postgres-claims';
import type { RateCounters } from '../side-effects/rate-counters';
import { PostgresRateCounters } from './rate/postgres-rate';
import { memoryKeyString } from './apply-changes';
import { CachedMemoryIndex } from '../session/cached-memory-index';
import { growCachedEntries, keptSnapshot, setRecent, type CachedEntries } from '../session/kept-memory';
import type { MemorySearchResult } from '../session/memory-entry';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';
import type { Message } from '../session/message';
import type { ListOptions, ListPage, LoadSessionOptions, MemorySummary, SessionStore, SessionSummary, StoreChannels } from './store';
import { checkListOptions, stringTuple } from './list-page';
import { listMemoryRows, listSessionRows } from './postgres/list-rows';
import { PgChannels } from './channels/pg-channels';
import { requirePeer } from '../errors/optional-peer';
import { ToolwrightConfigError } from '../errors/errors';
import { quietListener } from './driver-errors';
import {
  checkHistoryLimit,
  checkId,
  checkMemoryKey,
  checkSessionChanges,
  checkSessionKey,
  describeSave,
  describeSessionSave,
  encodedSize,
  encodeMemoryChanges,
  encodeSessionChanges,
  type EncodedSessionChanges,
  guard,
  tenantOf,
  toMemorySnapshot,
  toSessionSnapshot,
} from './snapshot-rows';
import { HistoryCache } from './postgres/history-cache';
import { migrate, POSTGRES_SCHEMA_VERSION as MIGRATED_VERSION } from './postgres/migrations';
import { readSession } from './postgres/read-session';
import { searchMemory, type Vocabularies } from './postgres/search';
import { inTransaction, type Queryable } from './postgres/transaction';
import { writeMemory } from './postgres/write-memory';
import { claimSessionRow, writeSession } from './postgres/write-session';

/**
 * The schema version this toolwright migrates to. Declared here, not re-exported, so the public
 * declarations never reach the migrations module and its `pg` types (pg is an optional peer).
 */
export const POSTGRES_SCHEMA_VERSION: number = MIGRATED_VERSION;

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
  /** Recently loaded sessions' history text (see HistoryCache). */
  private readonly history = new HistoryCache();
  /** Per memory scope: its entries as last loaded here, of one generation (the memory's row id: a recreated memory gets a new one). */
  private readonly memoryCache = new Map<string, CachedEntries>();
  /** Per memory scope searched here: its id, version and vocabulary (sorted), to expand a typo with no vocabulary fetch. */
  private readonly vocabularies: Vocabularies = new Map();
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
    let cached = limit === undefined ? this.history.get(scope) : undefined;
    let read = await readSession(this.pool, this.s, () => this.migrated(), key, limit, cached?.lastSeq ?? 0);
    if (read && cached && (read.pk !== cached.pk || read.firstSeq !== cached.firstSeq)) {
      // Recreated or its history replaced since it was cached (either gives it new message numbers): read it whole.
      this.history.forget(scope);
      cached = undefined;
      read = await readSession(this.pool, this.s, () => this.migrated(), key, limit, 0);
    } else if (cached && read) {
      // The cached chunks plus what was appended since: the chunk it went into, as it is now, and any new ones.
      const from = read.chunks.length ? read.chunks[0].first : Infinity;
      read.chunks = [...cached.chunks.filter((c) => c.first < from), ...read.chunks];
    }
    if (!read) {
      this.history.forget(scope);
      return undefined;
    }
    if (limit === undefined) this.history.keep(scope, read, cached);
    let messages: Message[] = [];
    for (const chunk of read.chunks) for (const m of JSON.parse(`[${chunk.items}]`) as Message[]) messages.push(m);
    // A window reads the chunks holding its messages; the first may hold older ones.
    if (limit !== undefined && messages.length > limit) messages = limit === 0 ? [] : messages.slice(-limit);
    return toSessionSnapshot(key, { ...read.row, history: [], messages });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    checkSessionKey(key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'postgres');
    return this.transaction(
      sessionSaveSize(c),
      () => describeSessionSave(c),
      (db) => writeSession(db, this.s, this.ttlSeconds, key, changes, c),
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
        const version = await writeSession(db, this.s, this.ttlSeconds, key, changes, c);
        await writeMemory(db, this.s, memory.key, memory.changes, m);
        return version;
      },
    );
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    this.history.forget(JSON.stringify([tenantOf(key), key.sessionId]));
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
      (db) => claimSessionRow(db, this.s, this.ttlSeconds, key, userId),
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
    setRecent(this.memoryCache, scope, cached, 256);
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
      (db) => writeMemory(db, this.s, key, changes, c),
    );
  }

  /** Ranked search over a memory's stored entries in PostgreSQL (see postgres/search.ts). */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    return searchMemory((sql, params) => this.query(sql, params), this.s, this.vocabularies, key, query, limit);
  }

  /** One page of a tenant's sessions in id order, one statement (see postgres/list-rows). */
  async listSessions(options: ListOptions = {}): Promise<ListPage<SessionSummary>> {
    const o = checkListOptions(options, stringTuple(1));
    return listSessionRows((sql, params) => this.query(sql, params), this.s, o);
  }

  /** One page of a tenant's memories in (agent, user) order. */
  async listMemories(options: ListOptions = {}): Promise<ListPage<MemorySummary>> {
    const o = checkListOptions(options, stringTuple(2));
    return listMemoryRows((sql, params) => this.query(sql, params), this.s, o);
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

  /** Fixed-window counters kept in this store's schema, by the database's clock (see PostgresRateCounters). */
  rateCounters(namespace = 'default'): RateCounters {
    checkId('namespace', namespace);
    return new PostgresRateCounters((sql, params) => this.query(sql, params), this.s, namespace);
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
  private transaction<T>(size: { rows: number; chars: number }, saving: () => string, work: (db: Queryable) => Promise<T>): Promise<T> {
    return guard(
      'postgres',
      async () => {
        await this.migrated();
        return inTransaction(this.pool, this.timeoutMs, size, work);
      },
      saving,
    );
  }

  /** Creates or migrates the tables once per store; retried on the next call if it failed. */
  private migrated(): Promise<void> {
    this.ready ??= migrate(this.pool, this.timeoutMs, this.s).catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }
}

/** What a session save writes, for its timeouts. */
function sessionSaveSize(c: EncodedSessionChanges): { rows: number; chars: number } {
  return encodedSize([...c.appended, ...(c.replaced ?? []), ...c.set.map(([, v]) => v)]);
}

/** pg is an optional peer dependency: loaded only when a PostgresStore makes its own pool. */
function pg(): typeof import('pg') {
  return requirePeer('pg', 'npm install pg@8', 'PostgresStore without a pool');
}
