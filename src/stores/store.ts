import type { MemorySearchResult } from '../session/memory-search';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';

/**
 * Where sessions and memories live. A turn loads once and saves once; `save*` applies the
 * turn's changes atomically as a merge (see `SessionChanges`), so concurrent turns of one
 * session lose no write. Implementations throw `StoreUnavailableError` when the backend is
 * down or times out, and leave nothing half-written; an id no store can keep exactly fails first
 * with `InvalidIdError` (`checkSessionKey` / `checkMemoryKey`).
 */
export interface LoadSessionOptions {
  /**
   * Return only the last N history messages (everything stays stored; the window only limits
   * what is loaded). Omitted: the whole history.
   */
  historyLimit?: number;
}

/**
 * Messages between the processes sharing a store (Redis PUBLISH/SUBSCRIBE, PostgreSQL
 * NOTIFY/LISTEN, a table of recent messages in a SQLite file; in process for the in-memory store). At most once, and only to
 * subscribers listening when the message is published: for signals such as "cancel this call",
 * never for data that must arrive.
 */
export interface StoreChannels {
  /**
   * Sends `message` (at most 7,999 UTF-8 bytes, else StoreLimitError) to every subscriber of
   * `channel`, in every process; StoreUnavailableError when the backend is down.
   */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `listener` with every message published on `channel` until the returned function is
   * called. Resolves once listening works or its failure was reported to `onError`; never
   * rejects for a backend that is down: it keeps trying, reporting each outage once.
   */
  subscribe(channel: string, listener: (message: string) => void, onError?: (error: unknown) => void): Promise<() => Promise<void>>;
}

/** What `listSessions` / `listMemories` read: one tenant's (none: the sessions stored without one), one page at a time. */
export interface ListOptions {
  /** The tenant whose sessions or memories are listed; omitted: those stored without a tenant. */
  tenantId?: string;
  /** Only this user's: the session's owner, the memory's user. */
  userId?: string;
  /** At most this many a page (1 to 500; default 50). A Redis page may hold fewer and still have a `next`. */
  limit?: number;
  /** The `next` of the previous page (opaque); omitted: the first page. */
  after?: string;
}

/** One stored session, without its history or state. */
export interface SessionSummary {
  sessionId: string;
  tenantId?: string;
  /** The owner (absent: anonymous). */
  userId?: string;
  version: number;
  /** How many history messages are stored. */
  messages?: number;
  /** A run is paused, waiting for approvals or input. */
  paused: boolean;
}

/** One stored memory, without its entries. */
export interface MemorySummary {
  agentName: string;
  userId: string;
  tenantId?: string;
  /** How many entries are stored. */
  entries?: number;
}

export interface ListPage<T> {
  items: T[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

export interface SessionStore {
  /** `undefined` when the session does not exist yet (or has expired, for stores with a TTL). */
  loadSession(key: SessionKey, options?: LoadSessionOptions): Promise<SessionSnapshot | undefined>;
  /** Creates the session when missing; returns the new version. */
  saveSession(key: SessionKey, changes: SessionChanges): Promise<number>;
  /**
   * One run's save: the session's changes and the memory's, all or nothing (one transaction, one
   * script), so a failed save leaves the session where it was and a retry runs the turn again on
   * it. Returns the session's new version. Optional for a custom store: without it the runner saves
   * the memory first, then the session (a failed memory save then never advances the session).
   */
  saveTurn?(key: SessionKey, changes: SessionChanges, memory: { key: MemoryKey; changes: MemoryChanges }): Promise<number>;
  /** Removes everything stored for the session (state, history, paused run); a missing session is no error. */
  deleteSession(key: SessionKey): Promise<void>;
  /**
   * Claims a session for `userId` (null: anonymous) atomically: when it does not exist (or has expired)
   * it is created empty (version 0) and owned by the claimant; otherwise nothing changes. Returns the
   * session's owner afterwards (null: anonymous), so of two claims at once exactly one owner wins.
   */
  claimSession(key: SessionKey, userId: string | null): Promise<string | null>;
  /**
   * Replaces the session's `pendingRun` with `next` only if it still equals `expected` (as JSON text),
   * atomically, and counts as a save (version + 1). Returns whether it did: of two processes resuming
   * one paused run, exactly one wins.
   */
  compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown): Promise<boolean>;
  loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined>;
  /** Creates the memory when missing; returns the new version. */
  saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number>;
  /** Removes the memory and all its entries (e.g. a memory scoped to an MCP session that ended); a missing one is no error. */
  deleteMemory(key: MemoryKey): Promise<void>;
  /**
   * Ranked full-text search over one memory's stored entries, where they are stored (SQLite FTS5,
   * PostgreSQL tsvector + GIN, a cached per-scope index in memory and for Redis); best first, at
   * most `limit` (default 10). The same matching as `AgentMemory.search`: prefixes, small typos.
   */
  searchMemory?(key: MemoryKey, query: string, limit?: number): Promise<MemorySearchResult[]>;
  /**
   * One page of the stored sessions of a tenant (optionally of one user), read-only: id order in
   * the in-memory and SQL stores, the server's SCAN order in Redis. A session stored throughout the
   * paging is listed exactly once (Redis: at least once; see RedisStore.listSessions). Optional for a
   * custom store: the studio's Sessions page needs it.
   */
  listSessions?(options?: ListOptions): Promise<ListPage<SessionSummary>>;
  /** One page of the stored memories of a tenant (optionally of one user), as `listSessions`. */
  listMemories?(options?: ListOptions): Promise<ListPage<MemorySummary>>;
  /** Messages between the processes sharing this store (optional; see StoreChannels). */
  readonly channels?: StoreChannels;
  close(): Promise<void>;
}
