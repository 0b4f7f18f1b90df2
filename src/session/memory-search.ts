import type { MemoryEntry, MemorySnapshot } from './snapshots';

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

/**
 * Bounds on what one search costs, whatever the query (docs/persistence.md, "Memory search"): a
 * 9 KB query of 1,500 near-miss words used to expand every word against the whole vocabulary
 * (seconds of synchronous CPU on SQLite) and build a PostgreSQL tsquery of 41,600 operands (stack
 * depth exceeded). Every store applies the same limits, so a query finds the same entries on each.
 */
export const MEMORY_QUERY_LIMITS = Object.freeze({
  /** UTF-16 code units of a query read; the rest is ignored. */
  chars: 4096,
  /** Distinct terms searched: the query's first ones (later repeats of those still count). */
  terms: 32,
  /** A word, indexed or searched, is its first 128 UTF-16 code units (a pair is never cut). */
  wordChars: 128,
  /** Typo expansions kept per term: the nearest words, then the first in code unit order. */
  expansions: 8,
  /** Operands of one backend query (an FTS5 MATCH, a tsquery). */
  operands: 256,
});

/**
 * MiniSearch's own tokenizer: split on spaces and punctuation, lower-cased. Every store indexes
 * these words. NUL also splits: PostgreSQL text cannot hold it and FTS5's query parser stops at it.
 */
// eslint-disable-next-line no-control-regex -- NUL is the character this class must split on
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}\u0000]+/u;

/** The first `max` code units of `text`, without cutting a surrogate pair in two. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A token as the index keeps it: lower-cased and clipped, so a long one stays under every backend's key size. */
const indexWord = (token: string) => clip(token.toLowerCase(), MEMORY_QUERY_LIMITS.wordChars);

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const t of text.split(SPACE_OR_PUNCTUATION)) if (t) out.push(indexWord(t));
  return out;
}

/** The searchable words of an entry: content, category and context. */
export function entryWords(entry: MemoryEntry): string[] {
  const words = tokenize(entry.content);
  if (entry.category) words.push(...tokenize(entry.category));
  if (entry.context) words.push(...tokenize(entry.context));
  return words;
}

/**
 * A query's terms, each with how many times it occurs (MiniSearch scores a repeated term again),
 * bounded by MEMORY_QUERY_LIMITS: its first `chars` code units, its first `terms` distinct terms.
 */
export function queryTermCounts(query: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokenize(clip(query, MEMORY_QUERY_LIMITS.chars))) {
    const n = counts.get(t);
    if (n !== undefined) counts.set(t, n + 1);
    else if (counts.size < MEMORY_QUERY_LIMITS.terms) counts.set(t, 1);
  }
  return counts;
}

/** Query terms, each once (bounded as queryTermCounts). */
export function queryTerms(query: string): string[] {
  return [...queryTermCounts(query).keys()];
}

/** How many words a term's prefix may be spelled out as, so `terms` terms stay within the operand limit. */
export function prefixWordsPerTerm(terms: number, wanted: number): number {
  return Math.max(1, Math.min(wanted, Math.floor(MEMORY_QUERY_LIMITS.operands / Math.max(1, terms))));
}

/** The edit distance a query term tolerates: MiniSearch's `fuzzy: 0.2` (20% of its length, rounded). */
export function fuzzyDistance(term: string): number {
  return Math.min(6, Math.round(term.length * 0.2));
}

/** Levenshtein distance, or max + 1 as soon as it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      let v = prev[j - 1] + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      if (prev[j] + 1 < v) v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
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

// Two reusable rows: the distance runs synchronously, so one pair serves every call. Plain arrays
// and comparisons: Int32Array rows with a three-argument Math.min ran 10-25x slower under jest's vm.
const rowA: number[] = [];
const rowB: number[] = [];

/** The first position in `sorted` whose word is not below `value` (where the words it begins start). */
export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Terms of `vocabulary` within the fuzzy distance of `term` (for stores that expand typos against a term list), the nearest few. */
export function fuzzyMatches(term: string, vocabulary: Iterable<string>): string[] {
  const max = fuzzyDistance(term);
  if (max === 0) return [];
  const found: Array<[string, number]> = [];
  for (const candidate of vocabulary) {
    if (candidate === term) continue;
    const d = editDistance(term, candidate, max);
    if (d <= max) found.push([candidate, d]);
  }
  return nearest(found).map(([w]) => w);
}

/** The MEMORY_QUERY_LIMITS.expansions nearest of a term's typo matches: by distance, then code unit order. */
export function nearest<T extends readonly [string, number, ...unknown[]]>(found: T[]): T[] {
  if (found.length <= MEMORY_QUERY_LIMITS.expansions) return found;
  return found.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, MEMORY_QUERY_LIMITS.expansions);
}

/**
 * MiniSearch's radix tree, its own term dictionary: exact, prefix and bounded-edit-distance lookups,
 * so this index matches query terms exactly as MiniSearch does.
 */
interface TermMap<T> {
  get(term: string): T | undefined;
  set(term: string, value: T): unknown;
  atPrefix(prefix: string): Iterable<[string, T]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [T, number]>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SearchableMap = require('minisearch/SearchableMap') as new <T>() => TermMap<T>;

/** The fields searched, in MiniSearch's order (the order scores are added in). */
const FIELDS = ['content', 'category', 'context'] as const;
/** MiniSearch's defaults: BM25+ parameters and the weights of prefix and fuzzy matches. */
const K = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** One term's postings in one field: entry numbers (ascending) and the term's frequency in each. */
interface Postings {
  docs: number[];
  tfs: number[];
}

/**
 * An inverted index over one memory scope's stored entries, kept by a store across runs and
 * grown as entries are saved (memory entries are only ever appended). It scores exactly as
 * MiniSearch with MEMORY_SEARCH_OPTIONS (BM25+ per field, prefix and fuzzy terms weighted, a hit
 * multiplied by how many query terms it matched; tests/session/memory-index.test.ts checks it
 * against MiniSearch), but a search visits only the postings of the matched terms, adds into a
 * flat array and keeps the top `limit` in a heap: no result object per matching entry, no sort of
 * every match.
 */
export class CachedMemoryIndex implements MemoryIndex {
  /** Each term's postings per field: a hash map for exact lookups, the radix tree for prefix and fuzzy ones. */
  private readonly postings = new Map<string, Array<Postings | undefined>>();
  private readonly terms = new SearchableMap<Array<Postings | undefined>>();
  private readonly entries: MemoryEntry[] = [];
  private readonly ids = new Set<string>();
  /** Per field: each entry's length (MiniSearch's: distinct raw tokens), and the running average. */
  private readonly lengths: number[][] = FIELDS.map(() => []);
  private readonly average: number[] = FIELDS.map(() => 0);
  // Per-search scratch, one slot per entry, left zeroed after each search.
  private scores = new Float64Array(0);
  private matched = new Uint16Array(0);
  private lastTerm = new Uint16Array(0);

  constructor(
    entries: readonly MemoryEntry[],
    /** The stored version and entry count this index reflects. */
    public version: number,
  ) {
    this.add(entries);
  }

  get count(): number {
    return this.entries.length;
  }

  add(entries: readonly MemoryEntry[]): void {
    for (const e of entries) {
      if (this.ids.has(e.id)) continue;
      this.ids.add(e.id);
      const doc = this.entries.length;
      this.entries.push(e);
      for (let f = 0; f < FIELDS.length; f++) {
        const value = e[FIELDS[f]];
        if (value == null) continue;
        const raw = String(value).split(SPACE_OR_PUNCTUATION);
        const length = new Set(raw).size;
        // MiniSearch's running average: over the entries so far, updated only by those having the field.
        this.average[f] = (this.average[f] * doc + length) / (doc + 1);
        this.lengths[f][doc] = length;
        const counts = new Map<string, number>();
        for (const token of raw) {
          if (!token) continue;
          const word = indexWord(token);
          counts.set(word, (counts.get(word) ?? 0) + 1);
        }
        for (const [term, tf] of counts) {
          let fields = this.postings.get(term);
          if (!fields) {
            this.postings.set(term, (fields = []));
            this.terms.set(term, fields);
          }
          const postings = (fields[f] ??= { docs: [], tfs: [] });
          postings.docs.push(doc);
          postings.tfs.push(tf);
        }
      }
    }
  }

  search(query: string, limit: number): MemorySearchResult[] {
    if (!query.trim() || limit <= 0) return [];
    const n = this.entries.length;
    if (this.scores.length < n) {
      const size = Math.max(n, this.scores.length * 2);
      this.scores = new Float64Array(size);
      this.matched = new Uint16Array(size);
      this.lastTerm = new Uint16Array(size);
    }
    const { scores, matched, lastTerm } = this;
    const touched: number[] = [];
    // MiniSearch runs a repeated query term again (its score counts twice) but counts it once as a matched term.
    const repeats = queryTermCounts(query);
    let termNo = 0;
    for (const [term, times] of repeats) {
      termNo = (termNo % 65535) + 1;
      const visit = (fields: Array<Postings | undefined>, weight: number) => {
        for (let f = 0; f < FIELDS.length; f++) {
          const p = fields[f];
          if (!p) continue;
          const df = p.docs.length;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          const w = weight * times * idf;
          const lengths = this.lengths[f];
          const norm = K / this.average[f];
          for (let j = 0; j < df; j++) {
            const doc = p.docs[j];
            const tf = p.tfs[j];
            if (matched[doc] === 0) touched.push(doc);
            if (lastTerm[doc] !== termNo) {
              lastTerm[doc] = termNo;
              matched[doc]++;
            }
            scores[doc] += w * (D + (tf * (K + 1)) / (tf + K * (1 - B) + norm * B * lengths[doc]));
          }
        }
      };
      const exact = this.postings.get(term);
      if (exact) visit(exact, 1);
      const distance = fuzzyDistance(term);
      const fuzzy = distance > 0 ? this.terms.fuzzyGet(term, distance) : undefined;
      for (const [word, fields] of this.terms.atPrefix(term)) {
        if (word.length === term.length) continue;
        // A word the term begins counts as a prefix match, never also as a fuzzy one.
        fuzzy?.delete(word);
        visit(fields, (PREFIX_WEIGHT * word.length) / (word.length + 0.3 * (word.length - term.length)));
      }
      if (fuzzy) {
        const typos: Array<[string, number, Array<Postings | undefined>]> = [];
        for (const [word, [fields, d]] of fuzzy) if (d > 0) typos.push([word, d, fields]);
        for (const [word, d, fields] of nearest(typos)) visit(fields, (FUZZY_WEIGHT * word.length) / (word.length + d));
      }
    }
    // The top `limit` by score (ties: the older entry first) in a min-heap of the best so far.
    const heap: number[] = [];
    const finalScore = (doc: number) => scores[doc] * matched[doc];
    const worse = (a: number, b: number) => {
      const sa = finalScore(a);
      const sb = finalScore(b);
      return sa < sb || (sa === sb && a > b);
    };
    for (const doc of touched) {
      if (heap.length < limit) {
        heap.push(doc);
        siftUp(heap, heap.length - 1, worse);
      } else if (worse(heap[0], doc)) {
        heap[0] = doc;
        siftDown(heap, 0, worse);
      }
    }
    heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
    const out = heap.map((doc) => ({ ...this.entries[doc], score: finalScore(doc) }));
    for (const doc of touched) {
      scores[doc] = 0;
      matched[doc] = 0;
      lastTerm[doc] = 0;
    }
    return out;
  }
}

function siftUp(heap: number[], i: number, worse: (a: number, b: number) => boolean): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(heap[i], heap[parent])) return;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

function siftDown(heap: number[], i: number, worse: (a: number, b: number) => boolean): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let least = i;
    if (l < heap.length && worse(heap[l], heap[least])) least = l;
    if (r < heap.length && worse(heap[r], heap[least])) least = r;
    if (least === i) return;
    [heap[i], heap[least]] = [heap[least], heap[i]];
    i = least;
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
