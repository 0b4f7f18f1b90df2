import { randomUUID } from 'node:crypto';
import { AgentContext } from '../../src/session/agent-context';
import { AgentMemory } from '../../src/session/agent-memory';
import type { Message } from '../../src/session/message';
import type { SessionKey } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';
import { InvalidIdError, StoreUnavailableError } from '../../src/errors/errors';
import { SessionForbiddenError } from '../../src/errors/session-forbidden';
import { describeMemorySearch } from './memory-search-conformance';

export interface ConformanceStoreOptions {
  sessionTtlSeconds?: number;
  clock?: () => number;
}

export interface ConformanceFeatures {
  /** The store honours `sessionTtlSeconds`; 'clock': by the `clock` option, which the test advances instead of sleeping. */
  ttl?: boolean | 'clock';
  /** Counts everything the backend holds (rows, keys): what a deleted session or memory must not leave behind. */
  residue?: (store: SessionStore) => Promise<number>;
}

const user = (content: string): Message => ({ role: 'user', content });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One turn as the agent runner does it: load once, run, save the recorded changes once. */
async function turn(store: SessionStore, key: SessionKey, body: (ctx: AgentContext) => void): Promise<number> {
  const snap = await store.loadSession(key);
  const ctx = snap ? AgentContext.fromSnapshot(snap) : new AgentContext({ sessionId: key.sessionId, tenantId: key.tenantId });
  body(ctx);
  return store.saveSession(key, ctx.takeChanges());
}

/**
 * The behaviour every SessionStore must show. `makeStore` is called once for the suite (and
 * again for the TTL test); each test uses fresh random session ids, so stores may be shared.
 */
export function describeStoreConformance(
  name: string,
  makeStore: (options?: ConformanceStoreOptions) => SessionStore | Promise<SessionStore>,
  features: ConformanceFeatures = {},
): void {
  describe(`${name} store conformance`, () => {
    let store: SessionStore;
    const sid = () => `s-${randomUUID()}`;

    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('returns undefined for a session or memory that does not exist', async () => {
      await expect(store.loadSession({ sessionId: sid() })).resolves.toBeUndefined();
      await expect(store.loadMemory({ agentName: 'a', userId: sid() })).resolves.toBeUndefined();
    });

    it('marks where the stored history ends: the same for every load and window until messages are stored, never repeated', async () => {
      const key = { sessionId: sid() };
      expect(await store.claimSession(key, 'u-1')).toBe('u-1');
      const seen = [(await store.loadSession(key))!.historyMark];
      await store.saveSession(key, { set: { a: 1 }, deleted: [], appended: [user('1'), user('2'), user('3')] });
      const full = await store.loadSession(key);
      expect((await store.loadSession(key, { historyLimit: 1 }))!.historyMark).toBe(full!.historyMark);
      seen.push(full!.historyMark);
      // State, the paused run and userInput move no mark; messages do, also when the history is replaced by as many.
      await store.saveSession(key, { set: { b: 2 }, deleted: ['a'], appended: [], userInput: 'x' });
      expect(await store.compareAndSetPendingRun(key, null, { paused: true })).toBe(true);
      expect((await store.loadSession(key))!.historyMark).toBe(full!.historyMark);
      await store.saveSession(key, { set: {}, deleted: [], appended: [], replacedHistory: [user('a'), user('b'), user('c')] });
      seen.push((await store.loadSession(key))!.historyMark);
      // Deleted and created again under its id, by a claim or a save: a new mark, though the history is as long again.
      await store.deleteSession(key);
      await store.claimSession(key, 'u-1');
      seen.push((await store.loadSession(key))!.historyMark);
      await store.deleteSession(key);
      await store.saveSession(key, { set: {}, deleted: [], appended: [user('1'), user('2'), user('3')] });
      seen.push((await store.loadSession(key))!.historyMark);
      expect(seen.every((m) => typeof m === 'string')).toBe(true);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('round-trips state, history, userInput, userId and pendingRun through AgentContext', async () => {
      const key = { sessionId: sid(), tenantId: 't-1' };
      const ctx = new AgentContext({ sessionId: key.sessionId, userId: 'u-1', tenantId: 't-1' });
      ctx.setState('user_id', 'u-1');
      ctx.setState('cart', { items: [{ sku: 'A', qty: 2 }], total: 9.5, note: 'é ✓ \u0000' });
      ctx.setState('flag', false);
      ctx.setState('nothing', null);
      ctx.setUserInput('refund order A-100');
      ctx.addMessage(user('hello'));
      ctx.addMessage({
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'process_refund', arguments: '{"order_id":"A-100"}' }],
      });
      ctx.addMessage({ role: 'tool', toolCallId: 'c1', name: 'process_refund', content: '{"status":"success"}' });
      const pendingRun = { step: 3, approvals: [{ callId: 'c1', status: 'pending' }] };
      const version = await store.saveSession(key, { ...ctx.takeChanges(), pendingRun });
      expect(version).toBe(1);

      const snap = await store.loadSession(key);
      expect(snap).toEqual({
        sessionId: key.sessionId,
        tenantId: 't-1',
        userId: 'u-1',
        state: { user_id: 'u-1', cart: { items: [{ sku: 'A', qty: 2 }], total: 9.5, note: 'é ✓ \u0000' }, flag: false, nothing: null },
        history: ctx.getConversationHistory(),
        userInput: 'refund order A-100',
        pendingRun,
        version: 1,
        historyMark: expect.any(String),
      });
      const again = AgentContext.fromSnapshot(snap!);
      expect(again.getState('cart')).toEqual(ctx.getState('cart'));
      expect(again.getUserInput()).toBe('refund order A-100');

      // Scalars are last-writer-wins and kept when a later turn does not touch them.
      await store.saveSession(key, { set: {}, deleted: [], appended: [] });
      expect((await store.loadSession(key))!.pendingRun).toEqual(pendingRun);
      await store.saveSession(key, { set: {}, deleted: [], appended: [], pendingRun: null, userInput: null });
      const cleared = await store.loadSession(key);
      expect(cleared!.pendingRun).toBeNull();
      expect(cleared!.userInput).toBeNull();
      expect(cleared!.userId).toBe('u-1');
    });

    it('merges state per key: a save touches only the keys it set or deleted', async () => {
      const key = { sessionId: sid() };
      await turn(store, key, (c) => c.loadState({ a: 1, b: 2, c: 3 }));
      // Two turns loaded the same version; each changes different keys.
      const s1 = AgentContext.fromSnapshot((await store.loadSession(key))!);
      const s2 = AgentContext.fromSnapshot((await store.loadSession(key))!);
      s1.setState('a', 10);
      s1.forgetState('c');
      s2.setState('b', 20);
      s2.setState('d', 4);
      await store.saveSession(key, s1.takeChanges());
      await store.saveSession(key, s2.takeChanges());
      expect((await store.loadSession(key))!.state).toEqual({ a: 10, b: 20, d: 4 });
    });

    it('deletes a session (and only that one)', async () => {
      const key = { sessionId: sid() };
      const other = { sessionId: sid() };
      await turn(store, key, (c) => {
        c.setState('x', 1);
        c.addMessage(user('m'));
      });
      await turn(store, other, (c) => c.setState('y', 2));
      await store.deleteSession(key);
      await expect(store.loadSession(key)).resolves.toBeUndefined();
      expect((await store.loadSession(other))!.state).toEqual({ y: 2 });
      // A deleted session starts again from nothing.
      await turn(store, key, (c) => c.addMessage(user('new')));
      const fresh = await store.loadSession(key);
      expect(fresh).toMatchObject({ state: {}, history: [user('new')], version: 1 });
      await expect(store.deleteSession({ sessionId: sid() })).resolves.toBeUndefined();
    });

    it('leaves nothing behind of a deleted session and a deleted memory', async () => {
      const before = features.residue ? await features.residue(store) : 0;
      const key = { sessionId: sid(), tenantId: 'gone' };
      const memoryKey = { agentName: 'mcp', userId: `mcp-session:${key.sessionId}`, tenantId: 'gone' };
      const keep = { agentName: 'mcp', userId: `keep-${sid()}`, tenantId: 'gone' };
      await turn(store, key, (c) => {
        c.setState('cart', { items: [1, 2] });
        c.setUserInput('hello');
        ['1', '2', '3'].forEach((m) => c.addMessage(user(m)));
      });
      await store.saveSession(key, { set: {}, deleted: [], appended: [], pendingRun: { paused: true } });
      for (const k of [memoryKey, keep]) {
        const memory = new AgentMemory(k);
        memory.addFact('likes tea');
        memory.addPreference('short answers');
        memory.updateSummary('a summary');
        await store.saveMemory(k, memory.takeChanges());
      }
      await store.deleteSession(key);
      await store.deleteMemory(memoryKey);
      await expect(store.loadSession(key)).resolves.toBeUndefined();
      await expect(store.loadMemory(memoryKey)).resolves.toBeUndefined();
      expect((await store.loadMemory(keep))!.entries).toHaveLength(2);
      await store.deleteMemory(keep);
      if (features.residue) expect(await features.residue(store)).toBe(before);
      // Both start again from nothing, and deleting what does not exist is no error.
      const memory = new AgentMemory(memoryKey);
      memory.addFact('new');
      await store.saveMemory(memoryKey, memory.takeChanges());
      expect((await store.loadMemory(memoryKey))!.entries.map((e) => e.content)).toEqual(['new']);
      await store.deleteMemory(memoryKey);
      await expect(store.deleteMemory({ agentName: 'none', userId: sid() })).resolves.toBeUndefined();
    });

    it('replaces the history before appending when setConversationHistory was called', async () => {
      const key = { sessionId: sid() };
      await turn(store, key, (c) => ['1', '2', '3'].forEach((m) => c.addMessage(user(m))));
      await turn(store, key, (c) => {
        c.setConversationHistory([user('summary of 1-3')]);
        c.addMessage(user('4'));
      });
      await turn(store, key, (c) => c.addMessage(user('5')));
      expect((await store.loadSession(key))!.history).toEqual([user('summary of 1-3'), user('4'), user('5')]);
    });

    it('increments the version on every save', async () => {
      const key = { sessionId: sid() };
      const versions: number[] = [];
      for (let i = 0; i < 4; i++) versions.push(await turn(store, key, (c) => c.setState('i', i)));
      expect(versions).toEqual([1, 2, 3, 4]);
      expect((await store.loadSession(key))!.version).toBe(4);
    });

    it('loses no write when 50 turns run concurrently on one session', async () => {
      const key = { sessionId: sid(), tenantId: 't-conc' };
      const turns = Array.from({ length: 50 }, (_, i) =>
        turn(store, key, (c) => {
          c.setState(`turn-${i}`, i);
          c.addMessage(user(`${i}:a`));
          c.addMessage(user(`${i}:b`));
          c.addMessage(user(`${i}:c`));
        }),
      );
      const versions = await Promise.all(turns);
      expect(new Set(versions).size).toBe(50);

      const snap = (await store.loadSession(key))!;
      expect(snap.version).toBe(50);
      expect(Object.keys(snap.state).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `turn-${i}`).sort());
      const contents = snap.history.map((m) => m.content as string);
      expect(contents).toHaveLength(150);
      // Each turn's three messages are contiguous and in order.
      for (let p = 0; p < 150; p += 3) {
        const [n] = contents[p].split(':');
        expect(contents.slice(p, p + 3)).toEqual([`${n}:a`, `${n}:b`, `${n}:c`]);
      }
      expect(new Set(contents.map((c) => c.split(':')[0])).size).toBe(50);
    });

    it('scopes memory by agent, user and tenant: search never returns another scope', async () => {
      const run = randomUUID();
      const scopes = [
        { agentName: 'support', userId: `alice-${run}` },
        { agentName: 'support', userId: `bob-${run}` },
        { agentName: 'billing', userId: `alice-${run}` },
        { agentName: 'support', userId: `alice-${run}`, tenantId: 'other-tenant' },
      ];
      for (const [i, scope] of scopes.entries()) {
        const memory = new AgentMemory(scope);
        memory.addFact(`scope${i} prefers express shipping to warehouse${i}`, 0.9);
        memory.addPreference(`scope${i} likes email`, 'contact');
        if (i === 0) memory.updateSummary('alice, support');
        expect(await store.saveMemory(scope, memory.takeChanges())).toBe(1);
      }
      for (const [i, scope] of scopes.entries()) {
        const snap = await store.loadMemory(scope);
        expect(snap).toMatchObject({ agentName: scope.agentName, userId: scope.userId, version: 1 });
        const memory = AgentMemory.fromSnapshot(snap!);
        const hits = memory.search('express shipping warehouse email');
        expect(hits.length).toBe(2);
        for (const hit of hits) expect(hit.content).toContain(`scope${i} `);
        expect(memory.getSummary()).toBe(i === 0 ? 'alice, support' : null);
      }
      // Entries append; the summary is last-writer-wins.
      const m = AgentMemory.fromSnapshot((await store.loadMemory(scopes[0]))!);
      m.addLearning('refunds need an order id', 'turn 2');
      m.updateSummary('alice, support, refunds');
      expect(await store.saveMemory(scopes[0], m.takeChanges())).toBe(2);
      const after = (await store.loadMemory(scopes[0]))!;
      expect(after.entries.map((e) => e.type)).toEqual(['fact', 'preference', 'learning']);
      expect(after.entries[0]).toEqual(AgentMemory.fromSnapshot(after).getFacts()[0]);
      expect(after.summary).toBe('alice, support, refunds');
    });

    it('loads a memory as it was at the load: entries saved later are not in that snapshot', async () => {
      const key = { agentName: 'support', userId: `u-${randomUUID()}` };
      const first = new AgentMemory(key);
      first.addFact('lives in Oslo');
      first.addFact('has a dog');
      await store.saveMemory(key, first.takeChanges());
      const loaded = (await store.loadMemory(key))!;
      const memory = AgentMemory.fromSnapshot(loaded);
      const later = new AgentMemory(key);
      later.addFact('moved to Bergen');
      await store.saveMemory(key, later.takeChanges());
      await store.loadMemory(key); // a store keeping memories in the process has now read the new entry
      expect(loaded.entries.map((e) => e.content)).toEqual(['lives in Oslo', 'has a dog']);
      expect(memory.getFacts().map((e) => e.content)).toEqual(['lives in Oslo', 'has a dog']);
      expect((await store.loadMemory(key))!.entries.map((e) => e.content)).toEqual(['lives in Oslo', 'has a dog', 'moved to Bergen']);
    });

    it('isolates tenants: the same session id in two tenants is two sessions', async () => {
      const id = sid();
      await turn(store, { sessionId: id, tenantId: 'acme' }, (c) => c.setState('owner', 'acme'));
      await turn(store, { sessionId: id, tenantId: 'globex' }, (c) => c.setState('owner', 'globex'));
      await turn(store, { sessionId: id }, (c) => c.setState('owner', 'none'));
      expect((await store.loadSession({ sessionId: id, tenantId: 'acme' }))!.state).toEqual({ owner: 'acme' });
      expect((await store.loadSession({ sessionId: id, tenantId: 'globex' }))!.state).toEqual({ owner: 'globex' });
      expect((await store.loadSession({ sessionId: id }))!.state).toEqual({ owner: 'none' });
      await store.deleteSession({ sessionId: id, tenantId: 'acme' });
      expect((await store.loadSession({ sessionId: id, tenantId: 'globex' }))!.state).toEqual({ owner: 'globex' });
    });

    it('returns only the last N messages with historyLimit, keeping all stored', async () => {
      const key = { sessionId: sid() };
      await turn(store, key, (c) => Array.from({ length: 10 }, (_, i) => c.addMessage(user(`m${i}`))));
      expect((await store.loadSession(key, { historyLimit: 3 }))!.history).toEqual([user('m7'), user('m8'), user('m9')]);
      expect((await store.loadSession(key, { historyLimit: 0 }))!.history).toEqual([]);
      expect((await store.loadSession(key, { historyLimit: 50 }))!.history).toHaveLength(10);
      expect((await store.loadSession(key))!.history).toHaveLength(10);
      await expect(store.loadSession(key, { historyLimit: -1 })).rejects.toMatchObject({
        name: 'ToolwrightConfigError',
        code: 'INVALID_CONFIG',
      });
    });

    it('loads a 10,000-message session in order', async () => {
      const key = { sessionId: sid() };
      const ctx = new AgentContext({ sessionId: key.sessionId });
      for (let i = 0; i < 10_000; i++) ctx.addMessage(user(`message ${i}`));
      await store.saveSession(key, ctx.takeChanges());
      await turn(store, key, (c) => c.addMessage(user('message 10000')));
      const snap = (await store.loadSession(key))!;
      expect(snap.history).toHaveLength(10_001);
      expect(snap.history.every((m, i) => m.content === `message ${i}`)).toBe(true);
      expect((await store.loadSession(key, { historyLimit: 2 }))!.history).toEqual([user('message 9999'), user('message 10000')]);
    });

    it('keeps __proto__ and constructor state keys as plain data and pollutes no prototype', async () => {
      const key = { sessionId: sid() };
      const evil = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}') as Record<
        string,
        unknown
      >;
      await turn(store, key, (c) => {
        c.loadState(evil);
        c.setState('toString', 'plain');
      });
      const snap = (await store.loadSession(key))!;
      // The prototype is still an Object.prototype (structuredClone may hand one of another realm).
      expect(Object.getPrototypeOf(Object.getPrototypeOf(snap.state))).toBeNull();
      expect(snap.state.polluted).toBeUndefined();
      expect(Object.keys(snap.state).sort()).toEqual(['__proto__', 'constructor', 'toString']);
      expect(Object.getOwnPropertyDescriptor(snap.state, '__proto__')!.value).toEqual({ polluted: 'yes' });
      expect(Object.getOwnPropertyDescriptor(snap.state, 'constructor')!.value).toEqual({ prototype: { polluted: 'yes' } });
      const ctx = AgentContext.fromSnapshot(snap);
      expect(ctx.getState('__proto__')).toEqual({ polluted: 'yes' });
      expect(ctx.getState('toString')).toBe('plain');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      // Deleting such a key deletes the data, not anything inherited.
      await turn(store, key, (c) => c.forgetState('__proto__'));
      expect(Object.keys((await store.loadSession(key))!.state).sort()).toEqual(['constructor', 'toString']);
    });

    it('claims a new session for exactly one owner, atomically; an existing session keeps its owner', async () => {
      // 20 claimants at once (users and anonymous): one wins, every claim reports that winner.
      const key = { sessionId: sid(), tenantId: 't-claim' };
      const claimants = Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? null : `user-${i}`));
      const owners = await Promise.all(claimants.map((u) => store.claimSession(key, u)));
      expect(new Set(owners).size).toBe(1);
      expect(claimants).toContain(owners[0]);
      const created = (await store.loadSession(key))!;
      expect(created).toMatchObject({ state: {}, history: [], version: 0, pendingRun: null });
      expect(created.userId ?? null).toBe(owners[0]);

      // A claim never takes over a session that exists, whoever owns it.
      const owned = { sessionId: sid() };
      await turn(store, owned, (c) => c.addMessage(user('hi')));
      await store.saveSession(owned, { userId: 'alice', set: {}, deleted: [], appended: [] });
      await expect(store.claimSession(owned, 'mallory')).resolves.toBe('alice');
      await expect(store.claimSession(owned, null)).resolves.toBe('alice');
      const anonymous = { sessionId: sid() };
      await expect(store.claimSession(anonymous, null)).resolves.toBeNull();
      await expect(store.claimSession(anonymous, 'mallory')).resolves.toBeNull();
      expect((await store.loadSession(owned))!).toMatchObject({ userId: 'alice', history: [user('hi')], version: 2 });
      // The claimed session is an ordinary one: saves merge into it.
      await turn(store, key, (c) => c.addMessage(user('first')));
      expect((await store.loadSession(key))!).toMatchObject({ history: [user('first')], version: 1 });
    });

    it('a save naming the owner it loaded writes nothing when the session now has another owner', async () => {
      const base = { set: { secret: 'x' }, deleted: [], appended: [user('secret turn')], userInput: 'secret', pendingRun: { runId: 'r' } };
      for (const [loaded, now] of [
        ['alice', 'mallory'],
        ['alice', null],
        [null, 'mallory'],
      ] as const) {
        const key = { sessionId: sid(), tenantId: 't-owner' };
        await expect(store.claimSession(key, now)).resolves.toBe(now);
        await expect(store.saveSession(key, { ...base, owner: loaded })).rejects.toBeInstanceOf(SessionForbiddenError);
        const kept = (await store.loadSession(key))!;
        expect(kept).toMatchObject({ state: {}, history: [], userInput: null, pendingRun: null, version: 0 });
        expect(kept.userId ?? null).toBe(now);
        // The same owner writes as usual; a missing session is created with the save.
        await expect(store.saveSession(key, { ...base, owner: now })).resolves.toBe(1);
        const fresh = { sessionId: sid() };
        await expect(store.saveSession(fresh, { ...base, userId: 'alice', owner: 'alice' })).resolves.toBe(1);
        expect((await store.loadSession(fresh))!).toMatchObject({ userId: 'alice', history: [user('secret turn')] });
      }
    });

    it('swaps a pending run only when it is still the one expected: of 20 swaps at once, one wins', async () => {
      const key = { sessionId: sid() };
      await expect(store.compareAndSetPendingRun(key, null, { runId: 'r' })).resolves.toBe(false); // no session
      const paused = { kind: 'run', runId: 'r-1', approvals: [{ id: '__proto__' }], decisions: { constructor: { ok: true } } };
      await store.saveSession(key, { set: {}, deleted: [], appended: [user('x')], pendingRun: paused });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.compareAndSetPendingRun(key, paused, { ...paused, claim: `claimant-${i}` })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      const snap = (await store.loadSession(key))!;
      expect(snap.pendingRun).toEqual({ ...paused, claim: `claimant-${winner}` });
      expect(snap.version).toBe(2);
      expect(snap.history).toEqual([user('x')]);
      // A stale expectation fails and writes nothing; the current one succeeds, also to null.
      await expect(store.compareAndSetPendingRun(key, paused, null)).resolves.toBe(false);
      await expect(store.compareAndSetPendingRun(key, snap.pendingRun, null)).resolves.toBe(true);
      expect((await store.loadSession(key))!).toMatchObject({ pendingRun: null, version: 3 });
      await expect(store.compareAndSetPendingRun(key, null, paused)).resolves.toBe(true);
      expect((await store.loadSession(key))!.pendingRun).toEqual(paused);
    });

    it('refuses ids no store can keep exactly with InvalidIdError, before any I/O, and stores nothing', async () => {
      const bad = ['', 'a\u0000b', 'lone \uD800 high', 'lone \uDFFF low', '\uDC00\uD800', 'x'.repeat(10_000), 'é'.repeat(257)];
      const changes = { set: { a: 1 }, deleted: [], appended: [user('m')] };
      for (const id of bad) {
        const calls: Array<() => Promise<unknown>> = [
          () => store.loadSession({ sessionId: id }),
          () => store.saveSession({ sessionId: id }, changes),
          () => store.saveSession({ sessionId: sid(), tenantId: id }, changes),
          () => store.saveSession({ sessionId: sid() }, { ...changes, userId: id }),
          () => store.deleteSession({ sessionId: id }),
          () => store.claimSession({ sessionId: id }, null),
          () => store.claimSession({ sessionId: sid() }, id),
          () => store.compareAndSetPendingRun({ sessionId: id }, null, null),
          () => store.loadMemory({ agentName: 'a', userId: id }),
          () => store.loadMemory({ agentName: id, userId: 'u' }),
          () => store.saveMemory({ agentName: 'a', userId: id }, { added: [] }),
          () => store.saveMemory({ agentName: 'a', userId: 'u', tenantId: id }, { added: [] }),
        ];
        for (const call of calls) {
          const error = await call().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidIdError);
          expect(error).not.toBeInstanceOf(StoreUnavailableError);
          expect((error as InvalidIdError).code).toBe('INVALID_ID');
        }
      }
      // Ids at the limit, and astral characters (well-formed surrogate pairs), are kept exactly and apart.
      const ids = ['😀'.repeat(128), '😁'.repeat(128), 'x'.repeat(512), 'ä'.repeat(256)];
      for (const [i, id] of ids.entries())
        await store.saveSession({ sessionId: id, tenantId: id }, { userId: id, set: { i }, deleted: [], appended: [] });
      for (const [i, id] of ids.entries()) {
        expect(await store.loadSession({ sessionId: id, tenantId: id })).toMatchObject({
          sessionId: id,
          tenantId: id,
          userId: id,
          state: { i },
        });
      }
    });
    it('saves 120,000 messages and 100,000 memory entries in one save each, and loads them back', async () => {
      const key = { sessionId: sid() };
      const ctx = new AgentContext({ sessionId: key.sessionId });
      for (let i = 0; i < 120_000; i++) ctx.addMessage(user(`m${i}`));
      ctx.setState('big', 'x'.repeat(100_000));
      await expect(store.saveSession(key, ctx.takeChanges())).resolves.toBe(1);
      const snap = (await store.loadSession(key))!;
      expect(snap.history).toHaveLength(120_000);
      expect(snap.history[119_999]).toEqual(user('m119999'));
      expect((snap.state.big as string).length).toBe(100_000);

      const memoryKey = { agentName: 'bulk', userId: sid() };
      const memory = new AgentMemory(memoryKey);
      for (let i = 0; i < 100_000; i++) memory.remember(`entry ${i} about topic${i % 100}`);
      await expect(store.saveMemory(memoryKey, memory.takeChanges())).resolves.toBe(1);
      const loaded = (await store.loadMemory(memoryKey))!;
      expect(loaded.entries).toHaveLength(100_000);
      expect(AgentMemory.fromSnapshot(loaded).search('topic42', 3)).toHaveLength(3);
      await store.deleteSession(key);
    }, 120_000);

    describeMemorySearch(() => store);

    if (features.ttl) {
      it('expires a session after sessionTtlSeconds without saves, and a later save starts fresh', async () => {
        // Server-side TTLs (Redis, PostgreSQL) need real time; a store with a clock option does not.
        const fake = { now: Date.now() };
        const wait = features.ttl === 'clock' ? async (ms: number) => void (fake.now += ms) : sleep;
        const ttlStore = await makeStore({ sessionTtlSeconds: 1, ...(features.ttl === 'clock' ? { clock: () => fake.now } : {}) });
        try {
          const key = { sessionId: sid() };
          await turn(ttlStore, key, (c) => {
            c.setState('k', 1);
            c.addMessage(user('old'));
          });
          await wait(500);
          // A save refreshes the TTL of the whole session.
          await turn(ttlStore, key, (c) => c.setState('k2', 2));
          await wait(700);
          expect((await ttlStore.loadSession(key))!.state).toEqual({ k: 1, k2: 2 });
          await wait(1300);
          await expect(ttlStore.loadSession(key)).resolves.toBeUndefined();
          await turn(ttlStore, key, (c) => c.addMessage(user('new')));
          expect(await ttlStore.loadSession(key)).toMatchObject({ state: {}, history: [user('new')], version: 1 });
        } finally {
          await ttlStore.close();
        }
      });
    }
  });
}
