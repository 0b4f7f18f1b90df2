import { randomUUID } from 'node:crypto';
import type { Message } from '../../src/session/message';
import type { MemoryEntry } from '../../src/session/snapshots';
import type { ListOptions, ListPage, SessionStore } from '../../src/stores/store';
import { InvalidIdError, StoreUnavailableError } from '../../src/errors/errors';
import { InvalidListOptionError } from '../../src/stores/list-page';

const user = (content: string): Message => ({ role: 'user', content });
const entry = (content: string): MemoryEntry => ({ id: randomUUID(), type: 'fact', content, createdAt: new Date(0).toISOString() });

/** Every page from the first, following `next`; fails on a loop. */
async function allPages<T>(list: (o: ListOptions) => Promise<ListPage<T>>, options: ListOptions): Promise<{ items: T[]; pages: T[][] }> {
  const pages: T[][] = [];
  let after: string | undefined;
  do {
    const page = await list({ ...options, after });
    pages.push(page.items);
    after = page.next;
    if (pages.length > 200) throw new Error('the pages never end');
  } while (after !== undefined);
  return { items: pages.flat(), pages };
}

/**
 * `listSessions` / `listMemories` on a store: the same suite on every store. Each test lists its
 * own random tenant, so the store may be shared. `down` makes a store whose backend is unreachable.
 */
export function describeListing(
  name: string,
  makeStore: () => SessionStore | Promise<SessionStore>,
  down?: () => SessionStore | Promise<SessionStore>,
): void {
  describe(`${name} store listing`, () => {
    let store: SessionStore;
    const tenant = () => `t-${randomUUID()}`;
    const sessions = (o: ListOptions) => allPages((x) => store.listSessions!(x), o);
    const memories = (o: ListOptions) => allPages((x) => store.listMemories!(x), o);

    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('lists nothing for a tenant with nothing stored', async () => {
      await expect(store.listSessions!({ tenantId: tenant() })).resolves.toEqual({ items: [] });
      await expect(store.listMemories!({ tenantId: tenant() })).resolves.toEqual({ items: [] });
    });

    it("summarizes each session: owner, version, stored messages, a paused run; a tenant's list holds only its own", async () => {
      const [a, b] = [tenant(), tenant()];
      await store.claimSession({ sessionId: 'one', tenantId: a }, 'ann');
      await store.saveSession(
        { sessionId: 'one', tenantId: a },
        { set: { k: 1 }, deleted: [], appended: [user('1'), user('2'), user('3')] },
      );
      await store.saveSession({ sessionId: 'two', tenantId: a }, { set: {}, deleted: [], appended: [user('x')] });
      // The history replaced by fewer messages: the count is what is stored now.
      await store.saveSession({ sessionId: 'two', tenantId: a }, { set: {}, deleted: [], appended: [user('y')], replacedHistory: [] });
      expect(await store.compareAndSetPendingRun({ sessionId: 'two', tenantId: a }, null, { paused: true })).toBe(true);
      await store.claimSession({ sessionId: 'one', tenantId: b }, 'bob');

      const listed = await store.listSessions!({ tenantId: a });
      expect(listed.next).toBeUndefined();
      expect(listed.items.sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual([
        { sessionId: 'one', tenantId: a, userId: 'ann', version: 1, messages: 3, paused: false },
        { sessionId: 'two', tenantId: a, version: 3, messages: 1, paused: true },
      ]);
      expect((await store.listSessions!({ tenantId: b })).items).toEqual([
        { sessionId: 'one', tenantId: b, userId: 'bob', version: 0, messages: 0, paused: false },
      ]);
      // The paused run cleared: not paused any more.
      expect(await store.compareAndSetPendingRun({ sessionId: 'two', tenantId: a }, { paused: true }, null)).toBe(true);
      expect((await store.listSessions!({ tenantId: a })).items.find((s) => s.sessionId === 'two')!.paused).toBe(false);
      // A deleted session is not listed.
      await store.deleteSession({ sessionId: 'one', tenantId: a });
      expect((await store.listSessions!({ tenantId: a })).items.map((s) => s.sessionId)).toEqual(['two']);
    });

    it('lists the sessions stored without a tenant apart from every tenant', async () => {
      const id = `no-tenant-${randomUUID()}`;
      const t = tenant();
      await store.claimSession({ sessionId: id }, 'nadia');
      await store.claimSession({ sessionId: id, tenantId: t }, 'tess');
      const { items } = await sessions({ userId: 'nadia', limit: 500 });
      expect(items.filter((s) => s.sessionId === id)).toEqual([{ sessionId: id, userId: 'nadia', version: 0, messages: 0, paused: false }]);
      expect((await store.listSessions!({ tenantId: t })).items.map((s) => [s.sessionId, s.userId])).toEqual([[id, 'tess']]);
      await store.deleteSession({ sessionId: id });
    });

    it("lists one user's sessions and memories when asked", async () => {
      const t = tenant();
      for (const [sid, owner] of [
        ['a1', 'ann'],
        ['b1', 'bob'],
        ['a2', 'ann'],
        ['n1', null],
        ['b2', 'bob'],
      ] as const)
        await store.claimSession({ sessionId: sid, tenantId: t }, owner);
      for (const [agent, u] of [
        ['desk', 'ann'],
        ['desk', 'bob'],
        ['billing', 'ann'],
      ])
        await store.saveMemory({ agentName: agent, userId: u, tenantId: t }, { added: [entry(`${agent} ${u}`)] });
      const ann = await sessions({ tenantId: t, userId: 'ann', limit: 1 });
      expect(ann.items.map((s) => s.sessionId).sort()).toEqual(['a1', 'a2']);
      expect((await sessions({ tenantId: t, userId: 'nobody' })).items).toEqual([]);
      expect((await sessions({ tenantId: t })).items.map((s) => s.sessionId).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'n1']);
      const annMemories = await memories({ tenantId: t, userId: 'ann', limit: 1 });
      expect(annMemories.items.sort((x, y) => x.agentName.localeCompare(y.agentName))).toEqual([
        { agentName: 'billing', userId: 'ann', tenantId: t, entries: 1 },
        { agentName: 'desk', userId: 'ann', tenantId: t, entries: 1 },
      ]);
      expect((await memories({ tenantId: t })).items).toHaveLength(3);
    });

    it('pages through many sessions and memories with no repeat and no miss, each page at most `limit`', async () => {
      const t = tenant();
      const ids = Array.from({ length: 37 }, (_, i) => `s-${String(i).padStart(2, '0')}`);
      await Promise.all(
        ids.map((sid) => store.saveSession({ sessionId: sid, tenantId: t }, { set: {}, deleted: [], appended: [user(sid)] })),
      );
      const agents = Array.from({ length: 13 }, (_, i) => `agent-${i}`);
      await Promise.all(agents.map((a) => store.saveMemory({ agentName: a, userId: 'u', tenantId: t }, { added: [entry(a), entry('b')] })));
      const listed = await sessions({ tenantId: t, limit: 5 });
      expect(listed.items.map((s) => s.sessionId).sort()).toEqual(ids);
      expect(listed.pages.every((p) => p.length <= 5)).toBe(true);
      expect(listed.pages.length).toBeGreaterThanOrEqual(8);
      expect(listed.items.every((s) => s.messages === 1 && s.version === 1)).toBe(true);
      const mem = await memories({ tenantId: t, limit: 4 });
      expect(mem.items.map((m) => m.agentName).sort()).toEqual([...agents].sort());
      expect(mem.pages.every((p) => p.length <= 4)).toBe(true);
      expect(mem.items.every((m) => m.entries === 2)).toBe(true);
    });

    it('keeps ids with odd characters exactly, a glob or JSON look-alike in a tenant included', async () => {
      const odd = ['*', 'a?b', '[x]', 'back\\slash', 'quote"d', 'co,mma', '}:meta', '{brace}', 'émoji 🧰', 'sp ace', '["t",'];
      const t = `t*?[${randomUUID()}]\\"`;
      const lookAlike = `t*?[${randomUUID()}]`; // matches `t` as a glob if the tenant is not escaped
      for (const sid of odd) await store.claimSession({ sessionId: sid, tenantId: t }, 'ü*');
      await store.claimSession({ sessionId: 'other', tenantId: lookAlike }, 'x');
      for (const agent of odd) await store.saveMemory({ agentName: agent, userId: '[*]', tenantId: t }, { added: [entry('e')] });
      const listed = await sessions({ tenantId: t, limit: 3 });
      expect(listed.items.map((s) => s.sessionId).sort()).toEqual([...odd].sort());
      expect(listed.items.every((s) => s.userId === 'ü*' && s.tenantId === t)).toBe(true);
      expect((await sessions({ tenantId: t, userId: 'ü*', limit: 2 })).items).toHaveLength(odd.length);
      const mem = await memories({ tenantId: t, userId: '[*]', limit: 3 });
      expect(mem.items.map((m) => m.agentName).sort()).toEqual([...odd].sort());
    });

    it('refuses a bad limit, a cursor it did not hand out, or an id no store keeps, before any I/O (typed)', async () => {
      for (const limit of [0, 501, 1.5, Number.NaN, -1]) {
        const err = await store.listSessions!({ limit }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidListOptionError);
        expect((err as InvalidListOptionError).code).toBe('INVALID_REQUEST');
      }
      for (const after of ['garbage!', 'e30', Buffer.from('[1,2,3]').toString('base64url'), '']) {
        await expect(store.listSessions!({ after })).rejects.toBeInstanceOf(InvalidListOptionError);
        await expect(store.listMemories!({ after })).rejects.toBeInstanceOf(InvalidListOptionError);
      }
      await expect(store.listSessions!({ tenantId: '' })).rejects.toBeInstanceOf(InvalidIdError);
      await expect(store.listMemories!({ userId: 'a\u0000b' })).rejects.toBeInstanceOf(InvalidIdError);
    });

    if (down) {
      it('fails with StoreUnavailableError when the backend is down', async () => {
        const unreachable = await down();
        try {
          for (const call of [() => unreachable.listSessions!({}), () => unreachable.listMemories!({ tenantId: 't', userId: 'u' })]) {
            const err = await call().catch((e: unknown) => e);
            expect(err).toBeInstanceOf(StoreUnavailableError);
            expect((err as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
          }
        } finally {
          await unreachable.close();
        }
      });
    }
  });
}
