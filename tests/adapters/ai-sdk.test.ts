import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { AgentContext, AgentMemory, ToolNotFoundError } from '../../src';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { registry } from '../fixtures/toolwright.config';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function toolCallThenText(toolName: string, input: string): LanguageModelV3GenerateResult[] {
  return [
    {
      content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
  ];
}

/** The tool result message the model received on its second step. */
function toolResultSeen(model: MockLanguageModelV3): unknown {
  const message = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool');
  const part = message?.content[0] as { output: { type: string; value: unknown } } | undefined;
  return part?.output;
}

describe('Vercel AI SDK adapter (generateText + MockLanguageModelV3)', () => {
  it('runs one tool call through the registry with the given context and memory', async () => {
    const context = new AgentContext({ sessionId: 's-ai', userId: 'u-ai', tenantId: 't-ai' });
    const memory = new AgentMemory({ agentName: 'ai', userId: 'u-ai' });
    const model = new MockLanguageModelV3({ doGenerate: toolCallThenText('note', '{"text":"from ai sdk"}') });

    const result = await generateText({
      model,
      tools: toAiSdkTools(registry, { session: { context, memory } }),
      prompt: 'take a note',
      stopWhen: stepCountIs(2),
    });

    expect(result.text).toBe('done');
    expect(result.steps).toHaveLength(2);
    const expected = { notes: ['from ai sdk'], sessionId: 's-ai', userId: 'u-ai', tenantId: 't-ai', facts: 1 };
    expect(result.steps[0].toolResults[0]).toMatchObject({ toolCallId: 'call-1', toolName: 'note', output: expected });
    expect(toolResultSeen(model)).toEqual({ type: 'json', value: expected });
    expect(context.getState('notes')).toEqual(['from ai sdk']);
    expect(memory.getFacts().map((f) => f.content)).toEqual(['from ai sdk']);

    // The model was given the registry's JSON Schema unchanged.
    const offered = model.doGenerateCalls[0].tools!;
    expect(offered.map((t) => t.name)).toEqual(['add', 'note', 'explode']);
    expect(offered.find((t) => t.name === 'note')).toMatchObject({
      type: 'function',
      inputSchema: registry.describe('note').definition.parameters,
    });
  });

  it("returns toolwright's structured error to the model for invalid arguments", async () => {
    const context = new AgentContext({ sessionId: 's-bad' });
    const memory = new AgentMemory({ agentName: 'ai', userId: 'anonymous' });
    const model = new MockLanguageModelV3({ doGenerate: toolCallThenText('add', '{"a":"one","b":2}') });

    await generateText({ model, tools: toAiSdkTools(registry, { session: { context, memory } }), prompt: 'add', stopWhen: stepCountIs(2) });

    const seen = toolResultSeen(model) as { type: string; value: { code: string; errors: { path: string }[] } };
    expect(seen.type).toBe('json');
    expect(seen.value).toMatchObject({ status: 'error', code: 'INVALID_ARGUMENTS', errors: [expect.objectContaining({ path: 'a' })] });
  });

  it('resolves the session per call from experimental_context, and can offer a subset of tools', async () => {
    const sessions = new Map([
      [
        'u-9',
        { context: new AgentContext({ sessionId: 's-9', userId: 'u-9' }), memory: new AgentMemory({ agentName: 'ai', userId: 'u-9' }) },
      ],
    ]);
    const model = new MockLanguageModelV3({ doGenerate: toolCallThenText('note', '{"text":"per user"}') });
    const tools = toAiSdkTools(registry, {
      tools: ['note'],
      session: ({ experimental_context }) => sessions.get((experimental_context as { userId: string }).userId)!,
    });
    expect(Object.keys(tools)).toEqual(['note']);

    await generateText({ model, tools, prompt: 'note', stopWhen: stepCountIs(2), experimental_context: { userId: 'u-9' } });
    expect(sessions.get('u-9')!.context.getState('notes')).toEqual(['per user']);
    expect(() =>
      toAiSdkTools(registry, {
        tools: ['nope'],
        session: { context: new AgentContext({ sessionId: 'x' }), memory: new AgentMemory({ agentName: 'a', userId: 'u' }) },
      }),
    ).toThrow(ToolNotFoundError);
  });
});
