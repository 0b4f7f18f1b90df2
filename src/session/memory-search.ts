import MiniSearch from 'minisearch';
import type { MemoryEntry } from './snapshots';

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

/** MiniSearch's own tokenizer: split on spaces and punctuation, lower-cased. Every store indexes these words. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const t of text.split(SPACE_OR_PUNCTUATION)) if (t) out.push(t.toLowerCase());
  return out;
}

/** The searchable words of an entry: content, category and context. */
export function entryWords(entry: MemoryEntry): string[] {
  const words = tokenize(entry.content);
  if (entry.category) words.push(...tokenize(entry.category));
  if (entry.context) words.push(...tokenize(entry.context));
  return words;
}

/** Query terms, each once. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** The edit distance a query term tolerates: MiniSearch's `fuzzy: 0.2` (20% of its length, rounded). */
export function fuzzyDistance(term: string): number {
  return Math.min(6, Math.round(term.length * 0.2));
}

/** Levenshtein distance, or max + 1 as soon as it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length + 1 > rowA.length) rowA = new Int32Array(b.length + 1);
  if (b.length + 1 > rowB.length) rowB = new Int32Array(b.length + 1);
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[b.length];
}

// Two reusable rows: the distance runs synchronously, so one pair serves every call.
let rowA = new Int32Array(32);
let rowB = new Int32Array(32);

/** Terms of `vocabulary` within the fuzzy distance of `term` (for stores that expand typos against a term list). */
export function fuzzyMatches(term: string, vocabulary: Iterable<string>): string[] {
  const max = fuzzyDistance(term);
  if (max === 0) return [];
  const out: string[] = [];
  for (const candidate of vocabulary) if (candidate !== term && editDistance(term, candidate, max) <= max) out.push(candidate);
  return out;
}

export const MEMORY_SEARCH_OPTIONS = { prefix: true, fuzzy: 0.2, combineWith: 'OR' } as const;

/** BM25 via MiniSearch, with prefix and light fuzzy matching, over content, category and context. */
export function newMiniSearch(): MiniSearch<MemoryEntry> {
  return new MiniSearch<MemoryEntry>({ fields: ['content', 'category', 'context'], idField: 'id' });
}

/**
 * A MiniSearch index over one memory scope's stored entries, kept by a store across runs and
 * grown as entries are saved (memory entries are only ever appended).
 */
export class CachedMemoryIndex implements MemoryIndex {
  private readonly mini = newMiniSearch();
  private readonly byId = new Map<string, MemoryEntry>();

  constructor(
    entries: readonly MemoryEntry[],
    /** The stored version and entry count this index reflects. */
    public version: number,
  ) {
    this.add(entries);
  }

  get count(): number {
    return this.byId.size;
  }

  add(entries: readonly MemoryEntry[]): void {
    for (const e of entries) {
      if (this.byId.has(e.id)) continue;
      this.byId.set(e.id, e);
      this.mini.add(e);
    }
  }

  search(query: string, limit: number): MemorySearchResult[] {
    if (!query.trim() || limit <= 0) return [];
    const hits = this.mini.search(query, MEMORY_SEARCH_OPTIONS);
    const out: MemorySearchResult[] = [];
    for (let i = 0; i < hits.length && out.length < limit; i++) {
      const entry = this.byId.get(hits[i].id as string);
      if (entry) out.push({ ...entry, score: hits[i].score });
    }
    return out;
  }
}

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
    this.indexes.delete(scope);
    this.indexes.set(scope, index);
    while (this.indexes.size > this.capacity) this.indexes.delete(this.indexes.keys().next().value as string);
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
