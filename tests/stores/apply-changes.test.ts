import type { Message } from 'toolwright';
import type { MemoryEntry, MemorySnapshot, SessionChanges, SessionSnapshot } from '../../src/stores';
import { applyMemoryChanges, applySessionChanges, memoryKeyString, sessionKeyString } from '../../src/stores/apply-changes';

const user = (content: string): Message => ({ role: 'user', content });
const noChanges: SessionChanges = { set: {}, deleted: [], appended: [] };

function session(overrides: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    sessionId: 's-1',
    userId: 'u-1',
    tenantId: 't-1',
    state: { a: 1, b: 2 },
    history: [user('one')],
    userInput: 'one',
    pendingRun: null,
    version: 3,
    ...overrides,
  };
}

describe('applySessionChanges', () => {
  it('creates a session from nothing at version 1', () => {
    expect(
      applySessionChanges(undefined, { sessionId: 's-new', tenantId: 't-1' }, { ...noChanges, set: { a: 1 }, appended: [user('hi')] }),
    ).toEqual({
      sessionId: 's-new',
      tenantId: 't-1',
      userId: undefined,
      state: { a: 1 },
      history: [user('hi')],
      userInput: null,
      pendingRun: null,
      version: 1,
    });
  });

  it('merges state per key and bumps the version', () => {
    const next = applySessionChanges(session(), { sessionId: 's-1' }, { ...noChanges, set: { b: 20, c: 30 }, deleted: ['a'] });
    expect(next.state).toEqual({ b: 20, c: 30 });
    expect(next.version).toBe(4);
  });

  it('applies deletes before sets', () => {
    const next = applySessionChanges(session(), { sessionId: 's-1' }, { ...noChanges, set: { a: 'kept' }, deleted: ['a'] });
    expect(next.state).toEqual({ a: 'kept', b: 2 });
  });

  it('appends messages in order', () => {
    const next = applySessionChanges(session(), { sessionId: 's-1' }, { ...noChanges, appended: [user('two'), user('three')] });
    expect(next.history).toEqual([user('one'), user('two'), user('three')]);
  });

  it('replaces the history before appending', () => {
    const next = applySessionChanges(
      session(),
      { sessionId: 's-1' },
      { ...noChanges, replacedHistory: [user('summary')], appended: [user('two')] },
    );
    expect(next.history).toEqual([user('summary'), user('two')]);
  });

  it('keeps scalars unless changed, and lets null clear them', () => {
    const base = session({ pendingRun: { step: 1 } });
    const kept = applySessionChanges(base, { sessionId: 's-1' }, noChanges);
    expect(kept).toMatchObject({ userId: 'u-1', userInput: 'one', pendingRun: { step: 1 } });
    const cleared = applySessionChanges(base, { sessionId: 's-1' }, { ...noChanges, userInput: null, pendingRun: null });
    expect(cleared).toMatchObject({ userInput: null, pendingRun: null });
    const changed = applySessionChanges(
      base,
      { sessionId: 's-1' },
      { ...noChanges, userId: 'u-2', userInput: 'two', pendingRun: { step: 2 } },
    );
    expect(changed).toMatchObject({ userId: 'u-2', userInput: 'two', pendingRun: { step: 2 } });
  });

  it('is pure: the current snapshot is left as it was', () => {
    const base = session();
    const before = structuredClone(base);
    applySessionChanges(
      base,
      { sessionId: 's-1' },
      { ...noChanges, set: { z: 1 }, deleted: ['a'], appended: [user('two')], userInput: 'x' },
    );
    expect(base).toEqual(before);
  });

  it('stores a "__proto__" key as plain data without polluting anything', () => {
    const changes: SessionChanges = { ...noChanges, set: JSON.parse('{"__proto__": {"polluted": 1}, "ok": true}') };
    const next = applySessionChanges(session(), { sessionId: 's-1' }, changes);
    expect(Object.getOwnPropertyNames(next.state)).toEqual(['a', 'b', '__proto__', 'ok']);
    expect(Object.getPrototypeOf(next.state)).toBe(Object.prototype);
    expect(next.state.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('applyMemoryChanges', () => {
  const entry = (id: string): MemoryEntry => ({ id, type: 'fact', content: id, createdAt: '2024-01-01T00:00:00.000Z' });

  it('creates a memory from nothing at version 1', () => {
    expect(applyMemoryChanges(undefined, { agentName: 'support', userId: 'u-1' }, { added: [entry('e1')], summary: 'hi' })).toEqual({
      agentName: 'support',
      userId: 'u-1',
      tenantId: undefined,
      entries: [entry('e1')],
      summary: 'hi',
      version: 1,
    });
  });

  it('appends entries, keeps or replaces the summary, and bumps the version', () => {
    const base: MemorySnapshot = { agentName: 'support', userId: 'u-1', entries: [entry('e1')], summary: 'old', version: 2 };
    const kept = applyMemoryChanges(base, base, { added: [entry('e2')] });
    expect(kept).toMatchObject({ entries: [entry('e1'), entry('e2')], summary: 'old', version: 3 });
    expect(applyMemoryChanges(base, base, { added: [], summary: null }).summary).toBeNull();
    expect(base.entries).toEqual([entry('e1')]);
  });
});

describe('key strings', () => {
  it('tell sessions apart even when ids contain separators', () => {
    expect(sessionKeyString({ tenantId: 'a:b', sessionId: 'c' })).not.toBe(sessionKeyString({ tenantId: 'a', sessionId: 'b:c' }));
    expect(sessionKeyString({ sessionId: 's' })).not.toBe(sessionKeyString({ tenantId: 't', sessionId: 's' }));
    expect(sessionKeyString({ tenantId: 't', sessionId: 's' })).toBe(sessionKeyString({ tenantId: 't', sessionId: 's' }));
  });

  it('tell memories apart by tenant, agent and user', () => {
    const keys = [
      memoryKeyString({ agentName: 'a', userId: 'u' }),
      memoryKeyString({ agentName: 'a', userId: 'v' }),
      memoryKeyString({ agentName: 'b', userId: 'u' }),
      memoryKeyString({ agentName: 'a', userId: 'u', tenantId: 't' }),
      memoryKeyString({ agentName: 'a","u', userId: '' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
