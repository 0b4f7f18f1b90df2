import type { MemorySearchResult } from '../session/memory-search';
import type {
  MemoryChanges,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';

/**
 * Where sessions and memories live. A turn loads once and saves once; `save*` applies the
 * turn's changes atomically as a merge (see `SessionChanges`), so concurrent turns of one
 * session lose no write. Implementations throw `StoreUnavailableError` when the backend is
 * down or times out, and leave nothing half-written.
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
  deleteSession(key: SessionKey): Promise<void>;
  loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined>;
  /** Creates the memory when missing; returns the new version. */
  saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number>;
  /**
   * Ranked full-text search over one memory's stored entries, where they are stored (SQLite FTS5,
   * PostgreSQL tsvector + GIN, a cached per-scope index in memory and for Redis); best first, at
   * most `limit` (default 10). The same matching as `AgentMemory.search`: prefixes, small typos.
   */
  searchMemory?(key: MemoryKey, query: string, limit?: number): Promise<MemorySearchResult[]>;
  close(): Promise<void>;
}
