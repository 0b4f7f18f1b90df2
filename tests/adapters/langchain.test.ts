import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable, RunnableConfig } from '@langchain/core/runnables';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { AgentContext, AgentMemory } from '../../src';
import { toLangChainTools } from '../../src/adapters/langchain';
import type { ToolSession } from '../../src/adapters/shared';
import { registry } from '../fixtures/toolwright.config';

/**
 * A minimal tool-calling loop (the agent loop itself lives in the `langchain` package, not in
 * @langchain/core): step 1 a fake chat model with the tools bound returns a tool call, the tool
 * runs via `tool.invoke(toolCall, config)`, step 2 the model answers.
 */
async function runLoop(toolCall: { name: string; args: Record<string, unknown> }, config?: RunnableConfig) {
  const tools = toLangChainTools(registry, { session: (cfg) => (cfg?.configurable as { session: ToolSession }).session });
  const caller = new FakeStreamingChatModel({
    chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: 'call-1', type: 'tool_call', ...toolCall }] })],
  });
  const steps: Runnable<BaseMessage[], AIMessage | AIMessageChunk>[] = [
    caller.bindTools(tools),
    new FakeStreamingChatModel({ responses: [new AIMessage('done')] }),
  ];
  const messages: BaseMessage[] = [new HumanMessage('go')];
  for (const step of steps) {
    const reply = await step.invoke(messages);
    messages.push(reply);
    for (const call of reply.tool_calls ?? []) {
      const lcTool = tools.find((t) => t.name === call.name)!;
      messages.push((await lcTool.invoke({ ...call, type: 'tool_call' }, config)) as ToolMessage);
    }
  }
  return { messages, tools, bound: (steps[0] as unknown as { config: { tools: unknown[] } }).config.tools };
}

const toolMessage = (messages: BaseMessage[]) => messages.find((m): m is ToolMessage => m instanceof ToolMessage)!;

describe('LangChain.js adapter (StructuredTools, fake chat model)', () => {
  it('runs one tool call through the registry with the session from the RunnableConfig', async () => {
    const session = {
      context: new AgentContext({ sessionId: 's-lc', userId: 'u-lc' }),
      memory: new AgentMemory({ agentName: 'lc', userId: 'u-lc' }),
    };
    const { messages, bound } = await runLoop({ name: 'note', args: { text: 'from langchain' } }, { configurable: { session } });

    expect(messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(messages[3].content).toBe('done');
    const result = toolMessage(messages);
    expect(result.tool_call_id).toBe('call-1');
    expect(result.status).toBe('success');
    expect(JSON.parse(result.content as string)).toEqual({
      notes: ['from langchain'],
      sessionId: 's-lc',
      userId: 'u-lc',
      tenantId: null,
      facts: 1,
    });
    expect(session.context.getState('notes')).toEqual(['from langchain']);
    expect(session.memory.getFacts()).toHaveLength(1);

    // bindTools received the registry's JSON Schema unchanged.
    expect(bound).toContainEqual({
      type: 'function',
      function: {
        name: 'note',
        description: registry.describe('note').definition.description,
        parameters: registry.describe('note').definition.parameters,
      },
    });
  });

  it("returns toolwright's structured error (not LangChain's parsing exception) for invalid arguments", async () => {
    const session = { context: new AgentContext({ sessionId: 's' }), memory: new AgentMemory({ agentName: 'lc', userId: 'u' }) };
    const { messages } = await runLoop({ name: 'add', args: { a: 1, b: 'x', extra: 1 } }, { configurable: { session } });

    const result = toolMessage(messages);
    expect(result.status).toBe('error');
    expect(result.tool_call_id).toBe('call-1');
    const body = JSON.parse(result.content as string);
    expect(body).toMatchObject({ status: 'error', code: 'INVALID_ARGUMENTS' });
    expect(body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['b']));
  });

  it('redacts an unexpected failure by default and propagates it with errors: "throw"', async () => {
    const session = { context: new AgentContext({ sessionId: 's' }), memory: new AgentMemory({ agentName: 'lc', userId: 'u' }) };
    const [explode] = toLangChainTools(registry, { session, tools: ['explode'] });
    expect(JSON.parse((await explode.invoke({})) as string)).toEqual({
      status: 'error',
      code: 'TOOL_FAILED',
      message: 'Tool "explode" failed unexpectedly.',
    });

    const [strict] = toLangChainTools(registry, { session, tools: ['explode'], errors: 'throw' });
    await expect(strict.invoke({})).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });
});
