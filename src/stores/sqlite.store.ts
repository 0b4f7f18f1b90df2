import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../errors/errors';
import type { IdempotencyClaims } from '../side-effects/claims';
import { SqliteIdempotencyClaims } from './claims/sqlite-claims';
import type { RateCounters } from '../side-effects/rate-counters';
import { SqliteRateCounters } from './rate/sqlite-rate';
import { attachIndex, lazyEntries } from '../session/kept-memory';
import type { MemorySearchResult } from '../session/memory-entry';
import type {
  MemoryChanges,
  MemoryEntry,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';
import type { ListOptions, ListPage, LoadSessionOptions, MemorySummary, SessionStore, SessionSummary, StoreChannels } from './store';
import { checkListOptions, stringTuple } from './list-page';
import { listMemoryRows, listSessionRows } from './sqlite/list-rows';
import { SqliteChannels } from './channels/sqlite-channels';
import type { SqliteConnection, SqliteDriverName, SqliteRowMode, SqliteStatement } from './sqlite/driver';
import { checkSqliteDriver } from './sqlite/open-driver';
import {
  checkHistoryLimit,
  checkId,
  checkMemoryKey,
  checkSessionChanges,
  checkSessionKey,
  describeSave,
  describeSessionSave,
  encodeMemoryChanges,
  encodeSessionChanges,
  guard,
  stateFromEntries,
  tenantOf,
  toMemorySnapshot,
  toSessionSnapshot,
} from './snapshot-rows';
import { deleteMemoryRows, searchScope, writeMemory } from './sqlite/memory-rows';
import { openDatabase } from './sqlite/open-database';
import { deleteSessionRows, historyMark, isExpired, writeSession, type Clock, type SessionMetaRow, type Sql } from './sqlite/session-rows';

export { SQLITE_SCHEMA_VERSION } from './sqlite/migrations';

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
  /** Each SQL text is always used in one mode (object, raw or pluck); cached per text and mode. */
  private readonly sql: Sql = (text: string, mode: SqliteRowMode = 'object'): SqliteStatement => {
    const key = mode === 'object' ? text : `${mode}:${text}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db().prepare(text, mode);
      this.statements.set(key, statement);
    }
    return statement;
  };
  private readonly clock: Clock = () => this.now();
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
        if (!row || isExpired(row, this.now())) return undefined;
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
      () => this.db().transaction('immediate', () => writeSession(this.sql, this.clock, this.options.sessionTtlSeconds, key, changes, c)),
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
          const version = writeSession(this.sql, this.clock, this.options.sessionTtlSeconds, key, changes, c);
          writeMemory(this.sql, memory.key, memory.changes, m);
          return version;
        }),
      () => `${describeSessionSave(c)} with ${describeSave('a memory save', { entries: m.added })}`,
    );
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    return guard('sqlite', () => {
      const db = this.db();
      db.transaction('immediate', () => {
        const id = this.sql('SELECT id FROM sessions WHERE tenant = ? AND session_id = ?', 'pluck').get(tenantOf(key), key.sessionId) as
          number | undefined;
        if (id !== undefined) deleteSessionRows(this.sql, id);
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
        deleteMemoryRows(this.sql, id);
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
        for (const id of ids) deleteSessionRows(this.sql, id);
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
        if (row && !isExpired(row, this.now())) return row.user_id;
        if (row) deleteSessionRows(this.sql, row.id);
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
        return attachIndex(snapshot, { search: (query, limit) => searchScope(this.sql, pk, query, limit) });
      });
    });
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    checkMemoryKey(key);
    const c = encodeMemoryChanges(changes, 'sqlite');
    return guard(
      'sqlite',
      () => this.db().transaction('immediate', () => writeMemory(this.sql, key, changes, c)),
      () => describeSave('a memory save', { entries: c.added }),
    );
  }

  /** Ranked search over a memory's stored entries in the database (FTS5 bm25, prefixes, typos). */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    return guard('sqlite', () => {
      const pk = this.sql('SELECT id FROM memories WHERE tenant = ? AND agent = ? AND user_id = ?', 'pluck').get(
        tenantOf(key),
        key.agentName,
        key.userId,
      ) as number | undefined;
      return pk === undefined ? [] : searchScope(this.sql, pk, query, limit);
    });
  }

  /** One page of a tenant's sessions in id order, read in one statement (see sqlite/list-rows). */
  async listSessions(options: ListOptions = {}): Promise<ListPage<SessionSummary>> {
    const o = checkListOptions(options, stringTuple(1));
    return guard('sqlite', () => listSessionRows(this.sql, this.now(), o));
  }

  /** One page of a tenant's memories in (agent, user) order. */
  async listMemories(options: ListOptions = {}): Promise<ListPage<MemorySummary>> {
    const o = checkListOptions(options, stringTuple(2));
    return guard('sqlite', () => listMemoryRows(this.sql, o));
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

  /** Fixed-window counters kept in this store's file, shared by the processes using it (see SqliteRateCounters). */
  rateCounters(namespace = 'default'): RateCounters {
    checkId('namespace', namespace);
    return new SqliteRateCounters(() => ({ sql: (text, mode) => this.sql(text, mode) }), namespace);
  }

  async close(): Promise<void> {
    await this.pubsub?.close();
    this.opened?.close();
    this.release?.();
  }

  /** Opened on first use, so a bad path fails the call (typed) rather than the constructor. */
  private db(): SqliteConnection {
    if (this.opened) return this.opened;
    const { db, release } = openDatabase(this.path, this.options);
    this.opened = db;
    this.release = release;
    return db;
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : Date.now();
  }
}
