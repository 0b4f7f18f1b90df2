import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { CachedMemoryIndex } from '../../src/session/cached-memory-index';
import type { MemorySearchResult } from '../../src/session/memory-entry';
import type { MemoryEntry } from '../../src/session/snapshots';

/**
 * The in-process index (in-memory and Redis stores, PostgreSQL's loaded memories, AgentMemory's
 * own entries) against MiniSearch configured as AgentMemory searched before it: same hits, same
 * scores, same order up to ties, over random memories grown in batches and random queries with
 * prefixes, typos, repeated terms, case and punctuation.
 */
const reference = () => new MiniSearch<MemoryEntry>({ fields: ['content', 'category', 'context'], idField: 'id' });
const OPTIONS = { prefix: true, fuzzy: 0.2, combineWith: 'OR' } as const;

// A small vocabulary sharing prefixes and near-spellings, so prefix and fuzzy matches are common.
const WORDS = [
  'refund',
  'refunds',
  'refunded',
  'ref',
  'order',
  'orders',
  'ordered',
  'norway',
  'norwegian',
  'ship',
  'shipping',
  'shipped',
  'kettle',
  'kettles',
  'invoice',
  'invoices',
  'email',
  'emails',
  'birthday',
  'march',
  'café',
  'Åse',
  'a',
  'x',
];
const word = fc.constantFrom(...WORDS);
const text = fc
  .array(fc.tuple(word, fc.constantFrom(' ', ' ', ', ', '-', '. ', ': '), fc.boolean()), { minLength: 1, maxLength: 10 })
  .map((parts) => parts.map(([w, sep, upper]) => (upper ? w.toUpperCase() : w) + sep).join(''));
const entry = fc.record(
  { content: text, category: fc.option(text, { nil: undefined }), context: fc.option(text, { nil: undefined }) },
  { requiredKeys: ['content'] },
);
const queryWord = fc.oneof(
  word,
  word.map((w) => w.slice(0, Math.max(1, w.length - 2))), // a prefix
  word.map((w) => (w.length > 4 ? w.slice(0, 2) + w.slice(3) : w)), // a letter dropped
  word.map((w) => (w.length > 5 ? w.slice(0, 3) + 'q' + w.slice(4) : w)), // a letter changed
);
const query = fc
  .tuple(fc.array(queryWord, { minLength: 1, maxLength: 4 }), fc.constantFrom(' ', ', ', ' - '))
  .map(([ws, sep]) => ws.join(sep));

let nextId = 0;
const toEntries = (fields: Array<Partial<MemoryEntry>>): MemoryEntry[] =>
  fields.map((f) => {
    const e = { id: `e-${nextId++}`, type: 'fact', createdAt: '2026-01-01T00:00:00.000Z', content: f.content! } as MemoryEntry;
    if (f.category !== undefined) e.category = f.category;
    if (f.context !== undefined) e.context = f.context;
    return e;
  });

/** Equal up to floating point rounding (the two add the same terms in a different order). */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function expectSameRanking(actual: MemorySearchResult[], expected: Array<{ id: string; score: number }>, limit: number): void {
  expect(actual).toHaveLength(Math.min(limit, expected.length));
  actual.forEach((hit, i) => {
    expect(close(hit.score, expected[i].score)).toBe(true);
    // Entries tied on score may come in either order: the hit is one of those with its score.
    expect(expected.filter((e) => close(e.score, hit.score)).map((e) => e.id)).toContain(hit.id);
  });
  expect(new Set(actual.map((h) => h.id)).size).toBe(actual.length);
}

describe('CachedMemoryIndex', () => {
  it('ranks as MiniSearch does, as entries are added in batches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(entry, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.array(query, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 12 }),
        (batches, queries, limit) => {
          const index = new CachedMemoryIndex([], 0);
          const mini = reference();
          for (const batch of batches) {
            const entries = toEntries(batch);
            index.add(entries);
            mini.addAll(entries);
            for (const q of queries) {
              const byId = new Map(entries.map((e) => [e.id, e]));
              const hits = index.search(q, limit);
              expectSameRanking(hits, mini.search(q, OPTIONS), limit);
              // The hits are the entries themselves, with their score.
              for (const h of hits) if (byId.has(h.id)) expect(h).toEqual({ ...byId.get(h.id), score: h.score });
            }
          }
          expect(index.count).toBe(batches.flat().length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('adds an entry it already holds once', () => {
    const [e] = toEntries([{ content: 'refund the kettle' }]);
    const index = new CachedMemoryIndex([e], 0);
    index.add([e, e]);
    expect(index.count).toBe(1);
    expect(index.search('kettle', 10)).toHaveLength(1);
  });

  it('answers the same query twice the same way (its scratch space is left clean)', () => {
    const index = new CachedMemoryIndex(toEntries(WORDS.map((w, i) => ({ content: `${w} ${WORDS[(i * 7) % WORDS.length]} refund` }))), 0);
    const first = index.search('refund ship', 5);
    expect(index.search('norway', 3).length).toBeGreaterThan(0);
    expect(index.search('refund ship', 5)).toEqual(first);
  });
});
