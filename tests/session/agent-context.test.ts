import { AgentContext, InvalidIdError, type Message } from 'toolwright';
import { type SessionSnapshot } from '../../src/stores';
import { isEmptySessionChanges } from '../../src/session/snapshots';

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

describe('identity', () => {
  it('exposes session, user and tenant ids', () => {
    const context = new AgentContext({ sessionId: 's-1', userId: 'u-1', tenantId: 't-1' });
    expect(context.sessionId).toBe('s-1');
    expect(context.getSessionId()).toBe('s-1');
    expect(context.userId).toBe('u-1');
    expect(context.tenantId).toBe('t-1');
    expect(context.toolCall).toBeUndefined();
    // Outside a cancellable call the signal is there and never fires.
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(context.signal.aborted).toBe(false);
    expect(context.idempotencyKey).toBeUndefined();
  });

  it('leaves user and tenant undefined when not given', () => {
    const context = new AgentContext({ sessionId: 's-1' });
    expect(context.userId).toBeUndefined();
    expect(context.tenantId).toBeUndefined();
  });
});

describe('user input', () => {
  it('is null by default, then what was set', () => {
    const context = new AgentContext({ sessionId: 's' });
    expect(context.getUserInput()).toBeNull();
    context.setUserInput('refund order A-1');
    expect(context.getUserInput()).toBe('refund order A-1');
    context.setUserInput(null);
    expect(context.getUserInput()).toBeNull();
  });

  it('starts from the init value', () => {
    expect(new AgentContext({ sessionId: 's', userInput: 'hi' }).getUserInput()).toBe('hi');
  });
});

describe('state', () => {
  it('gets, sets, checks and forgets keys', () => {
    const context = new AgentContext({ sessionId: 's', state: { user_id: 'u-1' } });
    expect(context.getState('user_id')).toBe('u-1');
    expect(context.hasState('user_id')).toBe(true);
    context.setState('cart', { items: 2 });
    expect(context.getState<{ items: number }>('cart')).toEqual({ items: 2 });
    context.forgetState('user_id');
    expect(context.hasState('user_id')).toBe(false);
    expect(context.getState('user_id')).toBeUndefined();
  });

  it('returns the default only for absent keys', () => {
    const context = new AgentContext({ sessionId: 's', state: { zero: 0, empty: '', nothing: null } });
    expect(context.getState('missing', 'fallback')).toBe('fallback');
    expect(context.getState('zero', 5)).toBe(0);
    expect(context.getState('empty', 'x')).toBe('');
    expect(context.getState('nothing', 'x')).toBeNull();
    expect(context.hasState('nothing')).toBe(true);
  });

  it('returns all state as a fresh object', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 1 } });
    context.setState('b', 2);
    const all = context.getAllState();
    expect(all).toEqual({ a: 1, b: 2 });
    all.c = 3;
    expect(context.hasState('c')).toBe(false);
  });

  it('merges loadState into the current state', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 1, b: 1 } });
    context.loadState({ b: 2, c: 3 });
    expect(context.getAllState()).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('does not copy the init object by reference', () => {
    const init = { a: 1 };
    const context = new AgentContext({ sessionId: 's', state: init });
    context.setState('a', 2);
    expect(init.a).toBe(1);
  });

  it('keeps a "__proto__" key as plain data', () => {
    const context = new AgentContext({ sessionId: 's' });
    context.setState('__proto__', { polluted: 1 });
    expect(context.getState('__proto__')).toEqual({ polluted: 1 });
    const all = context.getAllState();
    expect(Object.getOwnPropertyNames(all)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a key no store keeps exactly (lone surrogate, NUL, over 512 UTF-8 bytes) with InvalidIdError, recording nothing', () => {
    const context = new AgentContext({ sessionId: 's' });
    context.setState('kept', 1);
    for (const key of ['a\uD800', '\uDFFFb', 'a\u0000', 'x'.repeat(513), 'é'.repeat(257)]) {
      expect(() => context.setState(key, 1)).toThrow(InvalidIdError);
      expect(() => context.loadState({ fine: 1, [key]: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_ID', field: 'state key' }));
      expect(context.hasState('fine')).toBe(false);
    }
    // A delete names no index entry: any length (a key stored before the limit can still go), but never NUL or a lone surrogate.
    expect(() => context.forgetState('x'.repeat(2_000))).not.toThrow();
    expect(() => context.forgetState('a\uD800')).toThrow(InvalidIdError);
    expect(() => context.forgetState('a\u0000')).toThrow(InvalidIdError);
    // Well-formed pairs, U+FFFD itself, '' and exactly 512 bytes are ordinary keys.
    for (const key of ['😀', '\uFFFD', '', 'x'.repeat(512), 'é'.repeat(256)]) context.setState(key, key.length);
    expect(context.takeChanges()).toEqual({
      set: { kept: 1, '😀': 2, '\uFFFD': 1, '': 0, ['x'.repeat(512)]: 512, ['é'.repeat(256)]: 256 },
      deleted: ['x'.repeat(2_000)],
      appended: [],
    });
  });
});

describe('conversation history', () => {
  it('is empty by default and grows with addMessage', () => {
    const context = new AgentContext({ sessionId: 's' });
    expect(context.getConversationHistory()).toEqual([]);
    context.addMessage(user('hi'));
    context.addMessage(assistant('hello'));
    expect(context.getConversationHistory()).toEqual([user('hi'), assistant('hello')]);
  });

  it('is replaced by setConversationHistory', () => {
    const context = new AgentContext({ sessionId: 's', history: [user('old')] });
    const replacement = [user('new')];
    context.setConversationHistory(replacement);
    expect(context.getConversationHistory()).toEqual([user('new')]);
    replacement.push(user('later'));
    expect(context.getConversationHistory()).toHaveLength(1);
  });

  it('does not share the init array', () => {
    const history = [user('a')];
    const context = new AgentContext({ sessionId: 's', history });
    context.addMessage(user('b'));
    expect(history).toHaveLength(1);
  });
});

describe('takeChanges', () => {
  it('is empty for an untouched context without a user', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 1 }, history: [user('x')] });
    const changes = context.takeChanges();
    expect(changes).toEqual({ set: {}, deleted: [], appended: [] });
    expect(isEmptySessionChanges(changes)).toBe(true);
  });

  it('carries the user id so a store can record who owns the session', () => {
    expect(new AgentContext({ sessionId: 's', userId: 'u-1' }).takeChanges()).toEqual({
      userId: 'u-1',
      set: {},
      deleted: [],
      appended: [],
    });
  });

  it('records sets, deletes, appended messages and user input', () => {
    const context = new AgentContext({ sessionId: 's', state: { old: true } });
    context.setState('a', 1);
    context.loadState({ b: 2 });
    context.forgetState('old');
    context.addMessage(user('hi'));
    context.setUserInput('hi');
    expect(context.takeChanges()).toEqual({ set: { a: 1, b: 2 }, deleted: ['old'], appended: [user('hi')], userInput: 'hi' });
  });

  it('resets after each call: the next one holds only newer changes', () => {
    const context = new AgentContext({ sessionId: 's' });
    context.setState('a', 1);
    context.addMessage(user('one'));
    context.takeChanges();
    expect(context.takeChanges()).toEqual({ set: {}, deleted: [], appended: [] });
    context.addMessage(user('two'));
    expect(context.takeChanges()).toEqual({ set: {}, deleted: [], appended: [user('two')] });
  });

  it('keeps the last word per key: set then forget deletes, forget then set sets', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 0, b: 0 } });
    context.setState('a', 1);
    context.forgetState('a');
    context.forgetState('b');
    context.setState('b', 2);
    expect(context.takeChanges()).toEqual({ set: { b: 2 }, deleted: ['a'], appended: [] });
  });

  it('records a replaced history, with messages added after it as appended', () => {
    const context = new AgentContext({ sessionId: 's', history: [user('old')] });
    context.addMessage(user('dropped'));
    context.setConversationHistory([user('summary')]);
    context.addMessage(assistant('after'));
    expect(context.takeChanges()).toEqual({ set: {}, deleted: [], appended: [assistant('after')], replacedHistory: [user('summary')] });
  });

  it('records user input set back to null', () => {
    const context = new AgentContext({ sessionId: 's', userInput: 'x' });
    context.setUserInput(null);
    expect(context.takeChanges()).toEqual({ set: {}, deleted: [], appended: [], userInput: null });
  });
});

describe('per-call views (forToolCall)', () => {
  const call = { id: 'call-1', name: 'refund', idempotencyKey: 'key-1', signal: new AbortController().signal };

  it('carry the tool call, its signal and idempotency key; the parent does not', () => {
    const context = new AgentContext({ sessionId: 's', userId: 'u' });
    const view = context.forToolCall(call);
    expect(view.toolCall).toEqual(call);
    expect(view.signal).toBe(call.signal);
    expect(view.idempotencyKey).toBe('key-1');
    expect(view.sessionId).toBe('s');
    expect(view.getSessionId()).toBe('s');
    expect(view.userId).toBe('u');
    expect(context.toolCall).toBeUndefined();
  });

  it('share state, history and user input with the parent and each other', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 1 } });
    const first = context.forToolCall(call);
    const second = context.forToolCall({ ...call, id: 'call-2' });
    first.setState('b', 2);
    second.forgetState('a');
    first.addMessage(user('from a tool'));
    second.setUserInput('changed');
    expect(context.getAllState()).toEqual({ b: 2 });
    expect(second.getState('b')).toBe(2);
    expect(context.getConversationHistory()).toEqual([user('from a tool')]);
    expect(first.getUserInput()).toBe('changed');
  });

  it('record changes into the parent’s takeChanges', () => {
    const context = new AgentContext({ sessionId: 's', state: { a: 1 } });
    const view = context.forToolCall(call);
    view.setState('b', 2);
    view.forgetState('a');
    context.setState('c', 3);
    expect(context.takeChanges()).toEqual({ set: { b: 2, c: 3 }, deleted: ['a'], appended: [] });
    expect(view.takeChanges()).toEqual({ set: {}, deleted: [], appended: [] });
  });
});

describe('fromSnapshot', () => {
  const snapshot: SessionSnapshot = {
    sessionId: 's-9',
    userId: 'u-stored',
    tenantId: 't-1',
    state: { step: 2 },
    history: [user('hi')],
    userInput: 'hi',
    pendingRun: null,
    version: 4,
  };

  it('restores the session', () => {
    const context = AgentContext.fromSnapshot(snapshot);
    expect(context.sessionId).toBe('s-9');
    expect(context.userId).toBe('u-stored');
    expect(context.tenantId).toBe('t-1');
    expect(context.getAllState()).toEqual({ step: 2 });
    expect(context.getConversationHistory()).toEqual([user('hi')]);
    expect(context.getUserInput()).toBe('hi');
  });

  it('lets the real user override the stored one', () => {
    expect(AgentContext.fromSnapshot(snapshot, 'u-now').userId).toBe('u-now');
  });

  it('does not write into the snapshot', () => {
    const context = AgentContext.fromSnapshot(snapshot);
    context.setState('step', 3);
    context.addMessage(user('more'));
    expect(snapshot.state).toEqual({ step: 2 });
    expect(snapshot.history).toHaveLength(1);
  });
});
