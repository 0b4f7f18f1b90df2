import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IsString } from 'class-validator';
import { AgentMemory, InMemoryStore, Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';
import { type LoadSessionOptions, type MemoryKey, type MemorySnapshot, type SessionKey, type SessionSnapshot } from '../../src/stores';
import { createMcpServer } from '../../src/mcp';

class TextInput {
  @Param({ description: 'Text' }) @IsString() text!: string;
}

@Tool({ name: 'count_state', description: 'Counts calls in session state', input: TextInput })
class CountStateTool implements ToolInterface<TextInput> {
  execute(_args: TextInput, context: AgentContext) {
    const n = context.getState<number>('n', 0)! + 1;
    context.setState('n', n);
    return { n, history: context.getConversationHistory().length };
  }
}

@Tool({ name: 'recall', description: 'Searches memory', input: TextInput, memory: true })
class RecallTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput, _context: AgentContext, memory: AgentMemory) {
    return { hits: memory.search(text).map((h) => h.content) };
  }
}

/** Records what each call asked the store for. */
class RecordingStore extends InMemoryStore {
  sessionLoads: Array<LoadSessionOptions | undefined> = [];
  memoryLoads = 0;
  override loadSession(key: SessionKey, options?: LoadSessionOptions): Promise<SessionSnapshot | undefined> {
    this.sessionLoads.push(options);
    return super.loadSession(key, options);
  }
  override loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    this.memoryLoads++;
    return super.loadMemory(key);
  }
}

describe('an MCP tool call loads what the tool can read', () => {
  it('loads the session state without its history, and the memory only for a tool declaring memory: true', async () => {
    const store = new RecordingStore();
    const memoryKey = { agentName: 'mcp', userId: 'anonymous' };
    const seed = new AgentMemory(memoryKey);
    seed.addFact('Prefers express shipping');
    await store.saveMemory(memoryKey, seed.takeChanges());
    await store.saveSession(
      { sessionId: 'sess' },
      { set: {}, deleted: [], appended: Array.from({ length: 50 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })) },
    );

    const server = createMcpServer(ToolRegistry.build({ tools: [CountStateTool, RecallTool] }), { store, sessionId: 'sess' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const text = (r: unknown) => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text);
      expect(text(await client.callTool({ name: 'count_state', arguments: { text: 'x' } }))).toEqual({ n: 1, history: 0 });
      expect(text(await client.callTool({ name: 'count_state', arguments: { text: 'x' } }))).toEqual({ n: 2, history: 0 });
      expect(store.memoryLoads).toBe(0);
      expect(text(await client.callTool({ name: 'recall', arguments: { text: 'express' } }))).toEqual({
        hits: ['Prefers express shipping'],
      });
      expect(store.memoryLoads).toBe(1);
      expect(store.sessionLoads.every((o) => o?.historyLimit === 0)).toBe(true);
      // The stored history is untouched by calls that did not load it.
      expect((await store.loadSession({ sessionId: 'sess' }))!.history).toHaveLength(50);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
