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

export interface SessionStore {
  /** `undefined` when the session does not exist yet (or has expired, for stores with a TTL). */
  loadSession(key: SessionKey, options?: LoadSessionOptions): Promise<SessionSnapshot | undefined>;
  /** Creates the session when missing; returns the new version. */
  saveSession(key: SessionKey, changes: SessionChanges): Promise<number>;
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
  close(): Promise<void>;
}
