import type { MemoryEntry } from './memory-entry';

export type { MemoryIndex, MemorySearchResult } from './memory-entry';

/**
 * Bounds on what one search costs, whatever the query (docs/persistence.md, "Memory search"): an
 * unbounded query of near-miss words expands each word against the whole vocabulary (synchronous
 * CPU on SQLite) and can build a tsquery past PostgreSQL's stack depth. Every store applies the
 * same limits, so a query finds the same entries on each.
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
export const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}\u0000]+/u;

/** The first `max` code units of `text`, without cutting a surrogate pair in two. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A token as the index keeps it: lower-cased and clipped, so a long one stays under every backend's key size. */
export const indexWord = (token: string) => clip(token.toLowerCase(), MEMORY_QUERY_LIMITS.wordChars);

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
// and comparisons, as Int32Array rows with a three-argument Math.min were much slower under jest's vm.
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
