/** What a memory holds and what a search of it returns: the types a snapshot and an index share. */

export type MemoryEntryType = 'fact' | 'learning' | 'preference' | 'general' | (string & {});

export interface MemoryEntry {
  id: string;
  type: MemoryEntryType;
  content: string;
  /** Facts: 0..1. */
  confidence?: number;
  /** Learnings: where it was learned. */
  context?: string;
  /** Preferences: the category (`general` by default). */
  category?: string;
  metadata?: Record<string, unknown>;
  createdAt: string;
}

/** A hit of a memory search: the entry itself and its score (higher is better; scales differ per store). */
export type MemorySearchResult = MemoryEntry & { score: number };

/**
 * A ranked search over a memory's stored entries that a store keeps for it (SQLite FTS5, a
 * cached per-scope index), so a search does not rebuild an index from every entry per run.
 * Synchronous like every AgentMemory read: stores whose index needs I/O per search
 * (PostgreSQL) offer `searchMemory` on the store instead.
 */
export interface MemoryIndex {
  search(query: string, limit: number): MemorySearchResult[];
}
