import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { AgentMemory } from '../../src/session/agent-memory';
import type { MemorySearchResult } from '../../src/session/memory-search';
import type { Message } from '../../src/session/message';
import type { MemoryEntry, MemoryKey, SessionKey } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';

/**
 * What two store instances sharing one backend (two processes, as far as their caches go) must
 * agree on: whatever one of them wrote, deleted, recreated or rewrote, the other's next load or
 * search returns exactly what is stored now, never what it cached of an earlier life of the same
 * memory or session. The reference is a plain model of what is stored, so no store's cache can
 * hide in it. `instances()` gives the two instances (the same one twice for a store that is one
 * process by construction).
 */
export function describeCrossInstanceConformance(name: string, instances: () => [SessionStore, SessionStore]): void {
  /** Words no other word begins and none within another's typo distance: a search for one finds exactly the entries holding it. */
  const WORDS = ['apple', 'zebra', 'violin', 'quartz', 'mango'];
  /** Each word with a typo (within its typo distance of it alone): a search expands it against the memory's vocabulary. */
  const TYPOS: Record<string, string> = { appla: 'apple', zebro: 'zebra', violim: 'violin', quartx: 'quartz', mangu: 'mango' };
  let counter = 0;
  const entry = (): MemoryEntry => {
    const n = counter++;
    return {
      id: `e${n}-${randomUUID()}`,
      type: 'fact',
      content: `${WORDS[n % WORDS.length]} n${n}`,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
  };
  const message = (): Message => ({ role: 'user', content: `m${counter++}` });
  const ids = (entries: readonly { id: string }[]) => entries.map((e) => e.id).sort();
  const holding = (entries: readonly MemoryEntry[], word: string) => entries.filter((e) => e.content.startsWith(`${word} `));

  interface StoredMemory {
    entries: MemoryEntry[];
    summary: string | null;
    version: number;
  }
  interface StoredSession {
    history: Message[];
    owner: string | null;
    version: number;
    state: Record<string, unknown>;
  }

  async function expectMemory(store: SessionStore, key: MemoryKey, stored: StoredMemory | undefined): Promise<void> {
    const snap = await store.loadMemory(key);
    if (!stored) return expect(snap).toBeUndefined();
    expect(snap).toBeDefined();
    // Read at once: a store may read entries lazily, as of the load.
    expect({ entries: snap!.entries.map((e) => e.id), summary: snap!.summary, version: snap!.version }).toEqual({
      entries: stored.entries.map((e) => e.id),
      summary: stored.summary,
      version: stored.version,
    });
    // The `memory: true` path: an AgentMemory loaded from the store searches through the store's index.
    const memory = AgentMemory.fromSnapshot(snap!);
    for (const word of WORDS) expect(ids(memory.search(word, 1000))).toEqual(ids(holding(stored.entries, word)));
  }

  async function expectSearch(store: SessionStore, key: MemoryKey, query: string, stored: StoredMemory | undefined): Promise<void> {
    if (!store.searchMemory) return;
    const hits: MemorySearchResult[] = await store.searchMemory(key, query, 1000);
    expect(ids(hits)).toEqual(ids(holding(stored?.entries ?? [], TYPOS[query] ?? query)));
  }

  async function expectSession(store: SessionStore, key: SessionKey, stored: StoredSession | undefined, limit?: number): Promise<void> {
    const snap = await store.loadSession(key, limit === undefined ? {} : { historyLimit: limit });
    if (!stored) return expect(snap).toBeUndefined();
    expect(snap).toBeDefined();
    const history = limit === undefined ? stored.history : stored.history.slice(Math.max(0, stored.history.length - limit));
    expect({ history: snap!.history, owner: snap!.userId ?? null, version: snap!.version, state: snap!.state }).toEqual({
      history: limit === 0 ? [] : history,
      owner: stored.owner,
      version: stored.version,
      state: stored.state,
    });
  }

  describe(`${name}: two instances on one backend agree with what is stored`, () => {
    let a: SessionStore;
    let b: SessionStore;
    beforeAll(() => {
      [a, b] = instances();
    });

    it('a memory deleted and recreated longer by another instance is read whole: its old entries never come back', async () => {
      const key = { agentName: 'x', userId: `u-${randomUUID()}` };
      const first = [entry(), entry(), entry()];
      await a.saveMemory(key, { added: first });
      await expectMemory(a, key, { entries: first, summary: null, version: 1 });
      await expectSearch(a, key, 'apple', { entries: first, summary: null, version: 1 });
      // Another process deletes it and writes more entries than this one has cached (then exactly as many).
      await b.deleteMemory(key);
      const second = [entry(), entry(), entry(), entry(), entry()];
      await b.saveMemory(key, { added: second });
      await expectMemory(a, key, { entries: second, summary: null, version: 1 });
      await expectSearch(a, key, 'apple', { entries: second, summary: null, version: 1 });
      await b.deleteMemory(key);
      const third = [entry(), entry(), entry(), entry(), entry()];
      await b.saveMemory(key, { added: third, summary: 'new' });
      await expectMemory(a, key, { entries: third, summary: 'new', version: 1 });
      for (const word of WORDS) await expectSearch(a, key, word, { entries: third, summary: 'new', version: 1 });
    });

    it('a memory loaded before another instance deleted and recreated it never searches the new memory', async () => {
      const key = { agentName: 'x', userId: `u-${randomUUID()}` };
      const old = [entry(), entry()];
      await a.saveMemory(key, { added: old });
      const loaded = AgentMemory.fromSnapshot((await a.loadMemory(key))!);
      await b.deleteMemory(key);
      const fresh = Array.from({ length: 10 }, entry);
      await b.saveMemory(key, { added: fresh });
      for (const word of WORDS) {
        const hits = ids(loaded.search(word, 1000));
        expect(hits.filter((id) => fresh.some((e) => e.id === id))).toEqual([]);
      }
      await expectMemory(a, key, { entries: fresh, summary: null, version: 1 });
    });

    it('a session deleted and recreated longer by another instance is read whole', async () => {
      const key = { sessionId: `s-${randomUUID()}` };
      const first = [message(), message()];
      await a.saveSession(key, { set: { n: 1 }, deleted: [], appended: first });
      await expectSession(a, key, { history: first, owner: null, version: 1, state: { n: 1 } });
      await b.deleteSession(key);
      const second = [message(), message(), message(), message()];
      await b.saveSession(key, { set: { m: 2 }, deleted: [], appended: second });
      await expectSession(a, key, { history: second, owner: null, version: 1, state: { m: 2 } });
    });

    type Who = 'a' | 'b';
    type MemoryOp =
      | { op: 'remember'; who: Who; key: number; n: number; summary: boolean }
      | { op: 'forget' | 'load' | 'twoLoads'; who: Who; key: number }
      | { op: 'search'; who: Who; key: number; word: string };
    type SessionOp =
      | { op: 'append' | 'replace'; who: Who; key: number; n: number }
      | { op: 'deleteSession' | 'loadSession'; who: Who; key: number; limit?: number }
      | { op: 'claim'; who: Who; key: number; owner: string | null };
    const who = fc.constantFrom<Who>('a', 'b');
    // Mostly one key, so that deletes and recreations hit what the other instance has cached.
    const key = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) });
    const memoryOp: fc.Arbitrary<MemoryOp> = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({ op: fc.constant('remember' as const), who, key, n: fc.integer({ min: 0, max: 6 }), summary: fc.boolean() }),
      },
      { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('forget' as const, 'load' as const, 'twoLoads' as const), who, key }) },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constant('search' as const), who, key, word: fc.constantFrom(...WORDS, ...Object.keys(TYPOS)) }),
      },
    );
    const count = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 6 }) }, { weight: 1, arbitrary: fc.constant(260) });
    const sessionOp: fc.Arbitrary<SessionOp> = fc.oneof(
      fc.record({ op: fc.constantFrom('append' as const, 'replace' as const), who, key, n: count }),
      fc.record(
        { op: fc.constantFrom('deleteSession' as const, 'loadSession' as const), who, key, limit: fc.constantFrom(0, 3) },
        { requiredKeys: ['op', 'who', 'key'] },
      ),
      fc.record({ op: fc.constant('claim' as const), who, key, owner: fc.constantFrom('alice', 'bob', null) }),
    );

    it('random interleavings of two instances’ memory writes, deletes, loads and searches agree with a model of what is stored (property)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(memoryOp, { minLength: 1, maxLength: 25 }), async (ops) => {
          const run = randomUUID();
          const keys = [0, 1].map((i) => ({ agentName: 'agent', userId: `u${i}-${run}` }));
          const memories: Array<StoredMemory | undefined> = [undefined, undefined];
          for (const o of ops) {
            const store = o.who === 'a' ? a : b;
            const mk = keys[o.key];
            switch (o.op) {
              case 'remember': {
                const added = Array.from({ length: o.n }, entry);
                const summary = o.summary ? `summary ${counter++}` : undefined;
                const version = await store.saveMemory(mk, summary === undefined ? { added } : { added, summary });
                const m = (memories[o.key] ??= { entries: [], summary: null, version: 0 });
                m.entries.push(...added);
                if (summary !== undefined) m.summary = summary;
                expect(version).toBe(++m.version);
                break;
              }
              case 'forget':
                await store.deleteMemory(mk);
                memories[o.key] = undefined;
                break;
              case 'load':
                await expectMemory(store, mk, memories[o.key]);
                break;
              case 'twoLoads':
                // Two loads of one scope at once in one instance: neither may see the other's half-applied cache.
                await Promise.all([expectMemory(store, mk, memories[o.key]), expectMemory(store, mk, memories[o.key])]);
                break;
              case 'search':
                await expectSearch(store, mk, o.word, memories[o.key]);
                break;
            }
          }
          // Finally both instances read everything as stored.
          for (const store of [a, b])
            for (const i of [0, 1]) {
              await expectMemory(store, keys[i], memories[i]);
              for (const word of WORDS) await expectSearch(store, keys[i], word, memories[i]);
            }
        }),
        { numRuns: 40 },
      );
    }, 240_000);

    it('random interleavings of two instances’ session appends, rewrites, deletes, claims and loads agree with a model of what is stored (property)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(sessionOp, { minLength: 1, maxLength: 20 }), async (ops) => {
          const run = randomUUID();
          const keys = [0, 1].map((i) => ({ sessionId: `s${i}-${run}` }));
          const sessions: Array<StoredSession | undefined> = [undefined, undefined];
          for (const o of ops) {
            const store = o.who === 'a' ? a : b;
            const sk = keys[o.key];
            switch (o.op) {
              case 'append':
              case 'replace': {
                const messages = Array.from({ length: o.n }, message);
                const s = (sessions[o.key] ??= { history: [], owner: null, version: 0, state: {} });
                await store.saveSession(sk, {
                  set: { [o.op]: counter },
                  deleted: [],
                  appended: o.op === 'append' ? messages : [],
                  ...(o.op === 'replace' ? { replacedHistory: messages } : {}),
                });
                s.history = o.op === 'append' ? [...s.history, ...messages] : messages;
                s.state[o.op] = counter;
                s.version++;
                break;
              }
              case 'deleteSession':
                await store.deleteSession(sk);
                sessions[o.key] = undefined;
                break;
              case 'loadSession':
                await expectSession(store, sk, sessions[o.key], o.limit);
                await expectSession(store, sk, sessions[o.key]);
                break;
              case 'claim': {
                const expected = sessions[o.key] ? sessions[o.key]!.owner : o.owner;
                await expect(store.claimSession(sk, o.owner)).resolves.toBe(expected);
                sessions[o.key] ??= { history: [], owner: o.owner, version: 0, state: {} };
                break;
              }
            }
          }
          for (const store of [a, b]) for (const i of [0, 1]) await expectSession(store, keys[i], sessions[i]);
        }),
        { numRuns: 25 },
      );
    }, 240_000);
  });
}
