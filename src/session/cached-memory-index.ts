import type { MemoryEntry, MemoryIndex, MemorySearchResult } from './memory-entry';
import { fuzzyDistance, indexWord, nearest, queryTermCounts, SPACE_OR_PUNCTUATION } from './memory-search';

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
