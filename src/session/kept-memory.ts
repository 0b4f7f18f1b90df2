import type { CachedMemoryIndex } from './cached-memory-index';
import type { MemoryEntry, MemoryIndex } from './memory-entry';
import type { MemorySnapshot } from './snapshots';

/**
 * Per-scope indexes a store keeps in this process, least recently used dropped first, so the
 * cache stays bounded however many users a process serves.
 */
export class MemoryIndexCache {
  private readonly indexes = new Map<string, CachedMemoryIndex>();

  constructor(private readonly capacity = 256) {}

  get(scope: string): CachedMemoryIndex | undefined {
    const index = this.indexes.get(scope);
    if (index) {
      this.indexes.delete(scope);
      this.indexes.set(scope, index);
    }
    return index;
  }

  set(scope: string, index: CachedMemoryIndex): void {
    setRecent(this.indexes, scope, index, this.capacity);
  }

  delete(scope: string): void {
    this.indexes.delete(scope);
  }

  clear(): void {
    this.indexes.clear();
  }
}

/** Hands a store's index to AgentMemory with the snapshot, without making it part of the snapshot's data. */
export function attachIndex<T extends object>(snapshot: T, index: MemoryIndex): T {
  Object.defineProperty(snapshot, 'index', { value: index, enumerable: false, configurable: true, writable: true });
  return snapshot;
}

/**
 * A store's snapshot of a memory it keeps in the process: its entries are the first `entries.length`
 * of an array the store appends to, copied only when read (an AgentMemory searching through `index`
 * never reads them), so a load costs the same at 10 and at 50,000 entries.
 */
export function keptSnapshot(
  snapshot: Omit<MemorySnapshot, 'entries'>,
  entries: readonly MemoryEntry[],
  index: MemoryIndex,
  count = entries.length,
): MemorySnapshot {
  return attachIndex(
    lazyEntries<MemorySnapshot>(snapshot, () => entries.slice(0, count)),
    index,
  );
}

/**
 * A memory scope's entries as a store keeps them in its process between loads: a prefix of the
 * stored list of one generation of the memory (the id it was given when created, by whichever
 * process), so a load reads only the entries after it, and a memory deleted and created again by
 * another process (a new generation) is read whole, never appended to what was cached of the old one.
 */
export interface CachedEntries {
  generation: string;
  /** Frozen; only ever appended to. */
  entries: MemoryEntry[];
  index?: CachedMemoryIndex;
}

/**
 * Applies what a load read: `tail`, the stored entries from position `from` of `generation` (from
 * 0 when `known` is of another generation or none). Another load of the same scope in this process
 * may have grown `known` while this one waited: only entries it does not hold yet are appended.
 * Returns the cache to keep and how many of its entries this load read (its snapshot's count).
 */
export function growCachedEntries(
  known: CachedEntries | undefined,
  generation: string,
  from: number,
  tail: MemoryEntry[],
): { cached: CachedEntries; count: number } {
  if (from === 0 || !known || known.generation !== generation || known.entries.length < from)
    return { cached: { generation, entries: tail }, count: tail.length };
  const fresh = tail.slice(known.entries.length - from);
  for (const e of fresh) known.entries.push(e);
  known.index?.add(fresh);
  return { cached: known, count: from + tail.length };
}

/**
 * A snapshot whose `entries` are read when first used (then kept), with `readEntries` for
 * AgentMemory, which reads them only for a whole-memory read and searches through `index`.
 */
export function lazyEntries<T extends { entries: MemoryEntry[] }>(snapshot: Omit<T, 'entries'>, read: () => MemoryEntry[]): T {
  let entries: MemoryEntry[] | undefined;
  const readOnce = () => (entries ??= read());
  Object.defineProperty(snapshot, 'entries', {
    get: readOnce,
    set: (value: MemoryEntry[]) => (entries = value),
    enumerable: true,
    configurable: true,
  });
  Object.defineProperty(snapshot, 'readEntries', { value: readOnce, enumerable: false, configurable: true, writable: true });
  return snapshot as T;
}

/** Sets `key` as the most recently used entry of `map`, dropping the least recently used beyond `capacity`. */
export function setRecent<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > capacity) map.delete(map.keys().next().value as string);
}
