import { IsString, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  MemoryNotLoadedError,
  Param,
  ScriptedModel,
  Tool,
  ToolCallFailedError,
  type ToolInterface,
} from 'toolwright';
import { type MemoryKey, type MemorySnapshot } from '../../src/stores';

class TextInput {
  @Param({ description: 'Text' }) @IsString() @MinLength(1) text!: string;
}

/** Counts memory loads: a run that reads no memory must not load it. */
class CountingStore extends InMemoryStore {
  memoryLoads = 0;
  override async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    this.memoryLoads++;
    return super.loadMemory(key);
  }
}

@Tool({ name: 'echo', description: 'Echo', input: TextInput })
class EchoTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput) {
    return { text };
  }
}

/** Writes memory without reading it: needs no declaration. */
@Tool({ name: 'note_fact', description: 'Remember a fact', input: TextInput })
class NoteFactTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput, _c: AgentContext, memory: AgentMemory) {
    memory.addFact(text);
    return { ok: true };
  }
}

@Tool({ name: 'recall', description: 'Search memory', input: TextInput, memory: true })
class RecallTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput, _c: AgentContext, memory: AgentMemory) {
    return { hits: memory.search(text).map((h) => h.content), facts: memory.getFacts().length };
  }
}

/** Reads memory but forgot to declare it. */
@Tool({ name: 'sneaky_recall', description: 'Reads memory undeclared', input: TextInput })
class UndeclaredRecallTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput, _c: AgentContext, memory: AgentMemory) {
    return { hits: memory.search(text).length };
  }
}

const who = { sessionId: 's-1', userId: 'u-1' };
const memoryKey = { agentName: 'a', userId: 'u-1' };
const call = (name: string, text: string, id?: string) => ({ name, arguments: { text }, ...(id ? { id } : {}) });

async function seed(store: InMemoryStore, facts: string[]): Promise<void> {
  const memory = new AgentMemory(memoryKey);
  for (const f of facts) memory.addFact(f);
  await store.saveMemory(memoryKey, memory.takeChanges());
}

describe('memory is loaded only when a run may read it', () => {
  it('a run whose tools and instructions read no memory never loads it, and what tools add is still saved after the stored entries', async () => {
    const store = new CountingStore();
    await seed(store, ['stored fact']);
    store.memoryLoads = 0;
    const model = new ScriptedModel([{ toolCalls: [call('echo', 'x'), call('note_fact', 'new fact')] }, { text: 'done' }]);
    const agent = new Agent({ name: 'a', model, tools: [EchoTool, NoteFactTool, RecallTool], store, instructions: 'Be brief.' });
    await agent.run('hi', who);
    expect(store.memoryLoads).toBe(0);
    expect((await store.loadMemory(memoryKey))!.entries.map((e) => e.content)).toEqual(['stored fact', 'new fact']);
  });

  it('loads the memory once, before the first call to a tool declaring memory: true, keeping what earlier calls added', async () => {
    const store = new CountingStore();
    await seed(store, ['likes express shipping', 'lives in Oslo']);
    store.memoryLoads = 0;
    const model = new ScriptedModel([
      { toolCalls: [call('note_fact', 'express is urgent')] },
      { toolCalls: [call('recall', 'express'), call('recall', 'oslo')] },
      { text: 'done' },
    ]);
    const result = await new Agent({ name: 'a', model, tools: [NoteFactTool, RecallTool], store }).run('hi', who);
    expect(store.memoryLoads).toBe(1);
    const [express, oslo] = result.toolCalls.slice(1).map((r) => JSON.parse(r.result));
    expect(express.hits.sort()).toEqual(['express is urgent', 'likes express shipping']);
    expect(express.facts).toBe(3);
    expect(oslo.hits).toEqual(['lives in Oslo']);
    expect((await store.loadMemory(memoryKey))!.entries.map((e) => e.content)).toEqual([
      'likes express shipping',
      'lives in Oslo',
      'express is urgent',
    ]);
  });

  it('a tool reading memory it did not declare fails with a typed error naming the fix', async () => {
    const store = new CountingStore();
    const model = new ScriptedModel([{ toolCalls: [call('sneaky_recall', 'x')] }, { text: 'done' }]);
    const error = await new Agent({ name: 'a', model, tools: [UndeclaredRecallTool], store }).run('hi', who).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallFailedError);
    const cause = (error as { cause: { cause: unknown } }).cause.cause;
    expect(cause).toBeInstanceOf(MemoryNotLoadedError);
    expect((cause as MemoryNotLoadedError).code).toBe('MEMORY_NOT_LOADED');
    expect((cause as Error).message).toMatch(/@Tool\(\{ memory: true \}\)/);
  });

  it('instructions taking the memory, or loadMemory: true, load it at the start of the run', async () => {
    const store = new CountingStore();
    await seed(store, ['prefers email']);
    store.memoryLoads = 0;
    const model = new ScriptedModel([{ text: 'ok' }]);
    const instructions = (_c: AgentContext, memory: AgentMemory) =>
      `Facts: ${memory
        .getFacts()
        .map((f) => f.content)
        .join('; ')}`;
    await new Agent({ name: 'a', model, tools: [EchoTool], store, instructions }).run('hi', who);
    expect(model.requests[0].instructions).toBe('Facts: prefers email');
    expect(store.memoryLoads).toBe(1);

    await new Agent({ name: 'a', model: new ScriptedModel([{ text: 'ok' }]), tools: [EchoTool], store, loadMemory: true }).run('hi', who);
    expect(store.memoryLoads).toBe(2);
    await new Agent({ name: 'a', model: new ScriptedModel([{ text: 'ok' }]), tools: [EchoTool], store, instructions: () => 'static' }).run(
      'hi',
      who,
    );
    expect(store.memoryLoads).toBe(2);
  });

  it('an unloaded AgentMemory records additions and refuses every read until hydrated', () => {
    const memory = AgentMemory.unloaded(memoryKey);
    expect(memory.loaded).toBe(false);
    memory.addFact('new');
    memory.updateSummary('s2');
    for (const read of [
      () => memory.getAll(),
      () => memory.getFacts(),
      () => memory.getLearnings(),
      () => memory.getPreferences(),
      () => memory.search('x'),
    ]) {
      expect(read).toThrow(MemoryNotLoadedError);
    }
    expect(memory.getSummary()).toBe('s2'); // written in this run: known without loading
    memory.hydrate({
      ...memoryKey,
      entries: [{ id: 'e0', type: 'fact', content: 'old', createdAt: '2024-01-01T00:00:00.000Z' }],
      summary: 's1',
      version: 1,
    });
    expect(memory.getFacts().map((f) => f.content)).toEqual(['old', 'new']);
    expect(memory.getSummary()).toBe('s2');
    expect(memory.search('old').map((h) => h.id)).toEqual(['e0']);
    expect(memory.takeChanges()).toEqual({ added: [expect.objectContaining({ content: 'new' })], summary: 's2' });
  });
});
