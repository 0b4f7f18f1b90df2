/**
 * The execute_tool span lives in the registry's call path, so every surface gets it: an MCP
 * `tools/call` from the official SDK client, the AI SDK and LangChain adapters — each with the
 * surface's own call id and session.
 */
import 'reflect-metadata';
import { SpanStatusCode } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { IsString } from 'class-validator';
import { AgentContext, AgentMemory, InMemoryStore, Param, Tool, ToolRegistry } from 'toolwright';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { toLangChainTools } from '../../src/adapters/langchain';
import { createMcpServer } from '../../src/mcp';
import { startTracing } from '../support/tracing';

class NoteInput {
  @Param({ description: 'The note' }) @IsString() text!: string;
}

@Tool({ name: 'note', description: 'Take a note', input: NoteInput })
class NoteTool {
  execute(args: NoteInput) {
    if (args.text === 'boom') throw new Error('notebook full');
    return { saved: args.text };
  }
}

const registry = ToolRegistry.build({ tools: [NoteTool], tracing: { recordContent: true } });
const session = () => ({
  context: new AgentContext({ sessionId: 'surface-session', userId: 'u-1' }),
  memory: new AgentMemory({ agentName: 'surfaces', userId: 'u-1' }),
});

const tracing = startTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.exporter.reset());

const toolSpans = () => tracing.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');

describe('execute_tool spans on every surface', () => {
  it('MCP tools/call (official SDK client): one span per call, the request id as the call id, errors coded', async () => {
    const server = createMcpServer(registry, { store: new InMemoryStore(), sessionId: 'mcp-session', onError: () => undefined });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'spans', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const ok = (await client.callTool({ name: 'note', arguments: { text: 'hello' } })) as CallToolResult;
      const failed = (await client.callTool({ name: 'note', arguments: { text: 'boom' } })) as CallToolResult;
      expect([ok.isError ?? false, failed.isError]).toEqual([false, true]);
    } finally {
      await client.close();
      await server.close();
    }
    const [ok, failed] = toolSpans();
    expect(toolSpans()).toHaveLength(2);
    expect(ok.name).toBe('execute_tool note');
    expect(ok.attributes).toMatchObject({
      'gen_ai.tool.name': 'note',
      'gen_ai.conversation.id': 'mcp-session',
      'gen_ai.tool.call.arguments': '{"text":"hello"}',
      'gen_ai.tool.call.result': '{"saved":"hello"}',
    });
    expect(typeof ok.attributes['gen_ai.tool.call.id']).toBe('string');
    expect(failed.attributes['gen_ai.tool.call.id']).not.toBe(ok.attributes['gen_ai.tool.call.id']);
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);
    expect([failed.attributes['error.type'], failed.status.code]).toEqual(['TOOL_FAILED', SpanStatusCode.ERROR]);
  });

  it('the AI SDK adapter (generateText): the AI SDK tool call id', async () => {
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [{ type: 'tool-call', toolCallId: 'ai-call-7', toolName: 'note', input: '{"text":"from ai"}' }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
      ],
    });
    await generateText({ model, tools: toAiSdkTools(registry, { session: session() }), prompt: 'go', stopWhen: stepCountIs(2) });
    expect(toolSpans().map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], s.attributes['gen_ai.conversation.id']])).toEqual([
      ['execute_tool note', 'ai-call-7', 'surface-session'],
    ]);
  });

  it('the LangChain adapter: the LangChain tool call id; a failure is coded', async () => {
    const [note] = toLangChainTools(registry, { session: session() });
    await note.invoke({ type: 'tool_call', id: 'lc-call-1', name: 'note', args: { text: 'from langchain' } });
    await note.invoke({ type: 'tool_call', id: 'lc-call-2', name: 'note', args: { text: 'boom' } });
    expect(toolSpans().map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], s.attributes['error.type']])).toEqual([
      ['execute_tool note', 'lc-call-1', undefined],
      ['execute_tool note', 'lc-call-2', 'TOOL_FAILED'],
    ]);
  });
});
