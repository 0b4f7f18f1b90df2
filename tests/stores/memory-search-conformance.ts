import { randomUUID } from 'node:crypto';
import { AgentMemory } from '../../src/session/agent-memory';
import { MEMORY_QUERY_LIMITS, type MemorySearchResult } from '../../src/session/memory-search';
import type { MemoryKey } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';
import { watchSearch } from './search-probe';

/**
 * The memory search cases of tests/session/agent-memory.test.ts, on a store: once through an
 * AgentMemory loaded from it (the store's index) and once through `store.searchMemory` (the
 * search where the entries are stored). Ranking must not change with the store.
 */
export function describeMemorySearch(getStore: () => SessionStore): void {
  type Search = (store: SessionStore, key: MemoryKey, query: string, limit?: number) => Promise<MemorySearchResult[]>;
  const ways: Array<[string, Search]> = [
    [
      'AgentMemory loaded from the store',
      async (store, key, query, limit) => AgentMemory.fromSnapshot((await store.loadMemory(key))!).search(query, limit),
    ],
    ['store.searchMemory', (store, key, query, limit) => store.searchMemory!(key, query, limit)],
  ];

  async function supportMemory(store: SessionStore): Promise<MemoryKey> {
    const key = { agentName: 'support', userId: `u-${randomUUID()}`, tenantId: 't-1' };
    const memory = new AgentMemory(key);
    memory.addFact('The customer asked for a refund of order A-100');
    memory.addFact('Refund refund refund: the customer wants a refund for the broken refund kettle');
    memory.addLearning('Shipping to Norway takes five days', 'ticket T-7');
    memory.addPreference('Prefers email notifications', 'contact');
    memory.remember('Birthday is in March');
    await store.saveMemory(key, memory.takeChanges());
    // Another user's memory with the same words: never found.
    const other = new AgentMemory({ ...key, userId: `other-${randomUUID()}` });
    other.addFact('Refund for the other customer, shipping to Norway, birthday in May');
    await store.saveMemory(other, other.takeChanges());
    return key;
  }

  describe.each(ways)('memory search through %s', (_, search) => {
    const contents = (hits: MemorySearchResult[]) => hits.map((h) => h.content);

    it('ranks the more relevant entry first', async () => {
      const store = getStore();
      const results = await search(store, await supportMemory(store), 'refund');
      expect(contents(results)).toEqual([
        'Refund refund refund: the customer wants a refund for the broken refund kettle',
        'The customer asked for a refund of order A-100',
      ]);
      expect(results[0].score).toBeGreaterThan(results[1].score);
    });

    it('returns the entries themselves with a score', async () => {
      const store = getStore();
      const key = await supportMemory(store);
      const [hit] = await search(store, key, 'Norway');
      const entry = AgentMemory.fromSnapshot((await store.loadMemory(key))!).getLearnings()[0];
      expect(hit).toEqual({ ...entry, score: expect.any(Number) });
    });

    it('matches prefixes, categories, contexts, a small typo, and ranks entries matching more terms higher', async () => {
      const store = getStore();
      const key = await supportMemory(store);
      expect(contents(await search(store, key, 'notif'))).toEqual(['Prefers email notifications']);
      expect(contents(await search(store, key, 'contact'))).toEqual(['Prefers email notifications']);
      expect(contents(await search(store, key, 'T-7'))).toContain('Shipping to Norway takes five days');
      expect(contents(await search(store, key, 'birthdy'))).toEqual(['Birthday is in March']);
      expect((await search(store, key, 'shipping norway days'))[0].content).toBe('Shipping to Norway takes five days');
    });

    it('respects the limit and returns nothing for a blank query or no match', async () => {
      const store = getStore();
      const key = { agentName: 'support', userId: `u-${randomUUID()}` };
      const memory = new AgentMemory(key);
      for (let i = 0; i < 15; i++) memory.remember(`note number ${i} about invoices`);
      await store.saveMemory(key, memory.takeChanges());
      expect(await search(store, key, 'invoices')).toHaveLength(10);
      expect(await search(store, key, 'invoices', 3)).toHaveLength(3);
      expect(await search(store, key, 'invoices', 0)).toEqual([]);
      expect(await search(store, key, '   ')).toEqual([]);
      expect(await search(store, key, 'xylophone')).toEqual([]);
    });

    it('finds entries saved after an earlier search', async () => {
      const store = getStore();
      const key = await supportMemory(store);
      expect(await search(store, key, 'invoice')).toEqual([]);
      const memory = AgentMemory.fromSnapshot((await store.loadMemory(key))!);
      memory.addFact('Pays every invoice late');
      // Not saved yet: the loaded memory finds it itself.
      expect(contents(memory.search('invoice'))).toEqual(['Pays every invoice late']);
      await store.saveMemory(key, memory.takeChanges());
      expect(contents(memory.search('invoice'))).toEqual(['Pays every invoice late']);
      expect(contents(await search(store, key, 'invoice'))).toEqual(['Pays every invoice late']);
    });

    it('bounds a huge query: 1,500 near-miss words return hits, looking up at most 32 terms and 256 operands a query', async () => {
      const store = getStore();
      const key = { agentName: 'support', userId: `u-${randomUUID()}` };
      const memory = new AgentMemory(key);
      // 3,000 words alike enough that each near miss is within the typo distance of about 30 of them.
      const word = (i: number) => `order${String(i).padStart(4, '0')}`;
      for (let e = 0; e < 300; e++) memory.remember(Array.from({ length: 10 }, (_, j) => word(e * 10 + j)).join(' '));
      await store.saveMemory(key, memory.takeChanges());
      const query = Array.from({ length: 1_500 }, (_, i) => `ordex${String(i).padStart(4, '0')}`).join(' ');
      let hits: MemorySearchResult[] = [];
      const work = await watchSearch(async () => {
        hits = await search(store, key, query);
      });
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.every((h) => /^order\d{4}( order\d{4}){9}$/.test(h.content))).toBe(true);
      expect(work.terms).toBeGreaterThan(0);
      expect(work.terms).toBeLessThanOrEqual(MEMORY_QUERY_LIMITS.terms);
      for (const n of work.operands) expect(n).toBeLessThanOrEqual(MEMORY_QUERY_LIMITS.operands);
      // The same words again: the search is deterministic (the same first terms, the same nearest typos).
      expect(contents(await search(store, key, query))).toEqual(contents(hits));
    });

    it('keeps an entry with NUL and a 3,000-character token exactly, finds it by either, and answers a query holding them', async () => {
      const store = getStore();
      const key = { agentName: 'support', userId: `u-${randomUUID()}` };
      const memory = new AgentMemory(key);
      const long = 'x'.repeat(3_000);
      const content = `Pays\u0000late ${long} kettle \uD800 lone`;
      memory.addLearning(content, 'billing\u0000note');
      await store.saveMemory(key, memory.takeChanges());
      const [kept] = AgentMemory.fromSnapshot((await store.loadMemory(key))!).getLearnings();
      expect(kept).toMatchObject({ content, context: 'billing\u0000note' });
      for (const query of ['late', 'pays\u0000kettle', '\u0000', long, 'x'.repeat(200), 'note', `${long}\u0000${long}`])
        expect({ query: query.slice(0, 20), hits: contents(await search(store, key, query)) }).toEqual({
          query: query.slice(0, 20),
          hits: query === '\u0000' ? [] : [content],
        });
    });
  });
}
