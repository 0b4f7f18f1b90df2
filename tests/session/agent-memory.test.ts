import { AgentMemory } from 'toolwright';
import { type MemoryEntry } from '../../src/stores';
import { isEmptyMemoryChanges } from '../../src/session/snapshots';

const newMemory = (userId = 'u-1') => new AgentMemory({ agentName: 'support', userId, tenantId: 't-1' });

describe('scope', () => {
  it('belongs to one agent, user and tenant', () => {
    const memory = newMemory();
    expect(memory.agentName).toBe('support');
    expect(memory.userId).toBe('u-1');
    expect(memory.tenantId).toBe('t-1');
    expect(memory.getAll()).toEqual([]);
    expect(memory.getSummary()).toBeNull();
  });
});

describe('entries', () => {
  it('adds facts with confidence 1 by default', () => {
    const memory = newMemory();
    const fact = memory.addFact('Lives in Oslo');
    memory.addFact('Has a dog', 0.4);
    expect(fact).toMatchObject({ type: 'fact', content: 'Lives in Oslo', confidence: 1 });
    expect(memory.getFacts().map((f) => [f.content, f.confidence])).toEqual([
      ['Lives in Oslo', 1],
      ['Has a dog', 0.4],
    ]);
  });

  it.each([-0.1, 1.5, NaN])('rejects the confidence %p', (confidence) => {
    expect(() => newMemory().addFact('x', confidence)).toThrow(RangeError);
  });

  it('accepts the confidence bounds 0 and 1', () => {
    const memory = newMemory();
    memory.addFact('unsure', 0);
    memory.addFact('sure', 1);
    expect(memory.getFacts()).toHaveLength(2);
  });

  it('adds learnings with an optional context', () => {
    const memory = newMemory();
    memory.addLearning('Prefers short answers', 'ticket T-4');
    memory.addLearning('Asks about invoices');
    expect(memory.getLearnings()).toEqual([
      expect.objectContaining({ type: 'learning', content: 'Prefers short answers', context: 'ticket T-4' }),
      expect.objectContaining({ type: 'learning', content: 'Asks about invoices' }),
    ]);
    expect(memory.getLearnings()[1]).not.toHaveProperty('context');
  });

  it("adds preferences in category 'general' by default and filters by category", () => {
    const memory = newMemory();
    memory.addPreference('Email over phone');
    memory.addPreference('Dark mode', 'ui');
    memory.addPreference('English', 'language');
    expect(memory.getPreferences().map((p) => p.content)).toEqual(['Email over phone', 'Dark mode', 'English']);
    expect(memory.getPreferences('general')).toEqual([expect.objectContaining({ content: 'Email over phone', category: 'general' })]);
    expect(memory.getPreferences('ui').map((p) => p.content)).toEqual(['Dark mode']);
    expect(memory.getPreferences('none')).toEqual([]);
  });

  it("remembers free-form entries with type 'general' by default and metadata", () => {
    const memory = newMemory();
    const general = memory.remember('Called on Monday');
    const typed = memory.remember('Order A-1 was late', 'incident', { orderId: 'A-1' });
    expect(general).toMatchObject({ type: 'general', content: 'Called on Monday' });
    expect(general).not.toHaveProperty('metadata');
    expect(typed).toMatchObject({ type: 'incident', content: 'Order A-1 was late', metadata: { orderId: 'A-1' } });
  });

  it('gives each entry an id and an ISO creation time, and keeps them in order', () => {
    const memory = newMemory();
    const a = memory.addFact('a');
    const b = memory.remember('b');
    expect(a.id).not.toBe(b.id);
    expect(new Date(a.createdAt).toISOString()).toBe(a.createdAt);
    expect(memory.getAll().map((e) => e.content)).toEqual(['a', 'b']);
  });

  it('keeps each type apart', () => {
    const memory = newMemory();
    memory.addFact('fact');
    memory.addLearning('learning');
    memory.addPreference('preference');
    memory.remember('general');
    expect(memory.getFacts().map((e) => e.content)).toEqual(['fact']);
    expect(memory.getLearnings().map((e) => e.content)).toEqual(['learning']);
    expect(memory.getPreferences().map((e) => e.content)).toEqual(['preference']);
  });

  it('rejects empty content', () => {
    expect(() => newMemory().addFact('')).toThrow(TypeError);
    expect(() => newMemory().remember('')).toThrow(TypeError);
  });
});

describe('summary', () => {
  it('is replaced by updateSummary', () => {
    const memory = newMemory();
    memory.updateSummary('Customer since 2020');
    memory.updateSummary('Customer since 2019');
    expect(memory.getSummary()).toBe('Customer since 2019');
  });
});

describe('search', () => {
  function supportMemory(): AgentMemory {
    const memory = newMemory();
    memory.addFact('The customer asked for a refund of order A-100');
    memory.addFact('Refund refund refund: the customer wants a refund for the broken refund kettle');
    memory.addLearning('Shipping to Norway takes five days', 'ticket T-7');
    memory.addPreference('Prefers email notifications', 'contact');
    memory.remember('Birthday is in March');
    return memory;
  }

  it('ranks the more relevant entry first', () => {
    const results = supportMemory().search('refund');
    expect(results.map((r) => r.content)).toEqual([
      'Refund refund refund: the customer wants a refund for the broken refund kettle',
      'The customer asked for a refund of order A-100',
    ]);
    expect(results[0].score).toBeGreaterThan(results[1].score);
  });

  it('returns the entries themselves with a score', () => {
    const memory = supportMemory();
    const [hit] = memory.search('Norway');
    const entry = memory.getLearnings()[0];
    expect(hit).toEqual({ ...entry, score: expect.any(Number) });
  });

  it('matches prefixes', () => {
    expect(
      supportMemory()
        .search('notif')
        .map((r) => r.content),
    ).toEqual(['Prefers email notifications']);
  });

  it('finds entries by category and context too', () => {
    const memory = supportMemory();
    expect(memory.search('contact').map((r) => r.content)).toEqual(['Prefers email notifications']);
    expect(memory.search('T-7').map((r) => r.content)).toContain('Shipping to Norway takes five days');
  });

  it('tolerates a small typo', () => {
    expect(
      supportMemory()
        .search('birthdy')
        .map((r) => r.content),
    ).toEqual(['Birthday is in March']);
  });

  it('ranks entries matching more query terms higher', () => {
    const results = supportMemory().search('shipping norway days');
    expect(results[0].content).toBe('Shipping to Norway takes five days');
  });

  it('respects the limit', () => {
    const memory = newMemory();
    for (let i = 0; i < 15; i++) memory.remember(`note number ${i} about invoices`);
    expect(memory.search('invoices')).toHaveLength(10); // default limit
    expect(memory.search('invoices', 3)).toHaveLength(3);
    expect(memory.search('invoices', 0)).toEqual([]);
  });

  it('returns nothing for an empty or blank query, or no match', () => {
    const memory = supportMemory();
    expect(memory.search('')).toEqual([]);
    expect(memory.search('   ')).toEqual([]);
    expect(memory.search('xylophone')).toEqual([]);
  });

  it('finds entries added after the first search', () => {
    const memory = supportMemory();
    expect(memory.search('invoice')).toEqual([]);
    memory.addFact('Pays every invoice late');
    expect(memory.search('invoice').map((r) => r.content)).toEqual(['Pays every invoice late']);
  });

  it("is scoped to its own entries: another user's memory is never searched", () => {
    const mine = newMemory('u-1');
    const theirs = newMemory('u-2');
    mine.addFact('Allergic to peanuts');
    theirs.addFact('Allergic to peanuts and shellfish');
    expect(mine.search('allergic peanuts').map((r) => r.content)).toEqual(['Allergic to peanuts']);
    expect(theirs.search('shellfish').map((r) => r.content)).toEqual(['Allergic to peanuts and shellfish']);
    expect(mine.search('shellfish')).toEqual([]);
  });
});

describe('takeChanges and snapshots', () => {
  it('records added entries and a changed summary, then resets', () => {
    const memory = new AgentMemory({ agentName: 'support', userId: 'u-1', entries: [], summary: 'old' });
    const fact = memory.addFact('new fact');
    memory.updateSummary('new summary');
    expect(memory.takeChanges()).toEqual({ added: [fact], summary: 'new summary' });
    const empty = memory.takeChanges();
    expect(empty).toEqual({ added: [] });
    expect(isEmptyMemoryChanges(empty)).toBe(true);
  });

  it('restores entries and summary from a snapshot without recording them as changes', () => {
    const stored: MemoryEntry = {
      id: 'e-1',
      type: 'fact',
      content: 'Lives in Oslo',
      confidence: 0.9,
      createdAt: '2024-01-01T00:00:00.000Z',
    };
    const memory = AgentMemory.fromSnapshot({
      agentName: 'support',
      userId: 'u-1',
      tenantId: 't-1',
      entries: [stored],
      summary: 'VIP',
      version: 3,
    });
    expect(memory.getFacts()).toEqual([stored]);
    expect(memory.getSummary()).toBe('VIP');
    expect(memory.tenantId).toBe('t-1');
    expect(memory.search('oslo').map((r) => r.id)).toEqual(['e-1']);
    expect(memory.takeChanges()).toEqual({ added: [] });
  });
});
