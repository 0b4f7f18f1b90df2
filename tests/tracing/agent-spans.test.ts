/**
 * The agent loop's spans: one `invoke_agent {agent}` per run or resume, one `chat {model}` per
 * model call and one `execute_tool {tool}` per tool call, both children of the run's span, with
 * the OpenTelemetry GenAI conventions' attributes; content only when the app opts in.
 */
import 'reflect-metadata';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { IsString, MinLength } from 'class-validator';
import { Agent, InMemoryStore, ModelError, Param, ScriptedModel, Tool, ToolwrightError, type Model } from 'toolwright';
import { type ModelRequest, type ModelStreamPart } from '../../src/agent/models';
import { parentOf, startTracing } from '../support/tracing';

class LookupInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: LookupInput })
class LookupTool {
  execute(args: LookupInput) {
    if (args.order_id === 'BROKEN') throw new Error('orders db down');
    return { status: 'found', order_id: args.order_id };
  }
}

@Tool({ name: 'refund', description: 'Refund an order', input: LookupInput, approval: () => true })
class RefundTool {
  execute(args: LookupInput) {
    return { refunded: args.order_id };
  }
}

const tracing = startTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.exporter.reset());

const named = (prefix: string) => tracing.spans().filter((s) => s.name.startsWith(prefix));
const only = (prefix: string): ReadableSpan => {
  const spans = named(prefix);
  expect(spans).toHaveLength(1);
  return spans[0];
};

function agent(model: Model, options: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  return new Agent({
    name: 'support',
    instructions: 'You help.',
    model,
    tools: [LookupTool, RefundTool],
    store: new InMemoryStore(),
    ...options,
  });
}

const lookupThenAnswer = () =>
  new ScriptedModel(
    [
      { toolCalls: [{ id: 'call_a', name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { text: 'Order A-1 is found.', finishReason: 'stop' },
    ],
    { name: 'acme:tiny-1' },
  );

describe('agent spans', () => {
  it('a run: invoke_agent with chat and execute_tool children, named and attributed per the conventions', async () => {
    const result = await agent(lookupThenAnswer()).run('Where is A-1?', { sessionId: 'sess-1', userId: 'u-1' });
    const run = only('invoke_agent');
    const chats = named('chat');
    const tool = only('execute_tool');

    expect(run.name).toBe('invoke_agent support');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(run)).toBeUndefined();
    expect(run.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'acme',
      'gen_ai.agent.name': 'support',
      'gen_ai.request.model': 'tiny-1',
      'gen_ai.conversation.id': 'sess-1',
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);

    expect(chats.map((c) => [c.name, c.kind, parentOf(c)])).toEqual([
      ['chat tiny-1', SpanKind.CLIENT, run.spanContext().spanId],
      ['chat tiny-1', SpanKind.CLIENT, run.spanContext().spanId],
    ]);
    expect(chats[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'acme',
      'gen_ai.request.model': 'tiny-1',
      'gen_ai.conversation.id': 'sess-1',
    });
    expect(chats[1].attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    // The run's tokens are its model calls' tokens.
    const sum = (key: string) => chats.reduce((n, c) => n + (c.attributes[key] as number), 0);
    expect([sum('gen_ai.usage.input_tokens'), sum('gen_ai.usage.output_tokens')]).toEqual([
      result.usage.inputTokens,
      result.usage.outputTokens,
    ]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);

    expect(tool.name).toBe('execute_tool lookup');
    expect(parentOf(tool)).toBe(run.spanContext().spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call_a', 'gen_ai.conversation.id': 'sess-1' });
    // Ordered in time: the tool ran between the two model calls.
    const start = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
    expect(start(chats[0]) <= start(tool) && start(tool) <= start(chats[1])).toBe(true);
    for (const span of tracing.spans()) expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
  });

  it('a model that fails: chat and invoke_agent end with error.type MODEL_FAILED and status ERROR', async () => {
    const model = new ScriptedModel([{ error: new ModelError('acme', 'overloaded', 529, true) }], { name: 'acme:tiny-1' });
    const error = await agent(model)
      .run('hi', { sessionId: 'sess-2' })
      .catch((e: unknown) => e);
    expect((error as ToolwrightError).code).toBe('MODEL_FAILED');
    for (const span of [only('chat'), only('invoke_agent')]) {
      expect([span.attributes['error.type'], span.status.code]).toEqual(['MODEL_FAILED', SpanStatusCode.ERROR]);
    }
  });

  it('a tool that fails under the throw policy: the tool span and the run carry TOOL_FAILED', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { order_id: 'BROKEN' } }] }]);
    await expect(agent(model).run('hi', { sessionId: 'sess-3' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect([only('execute_tool').attributes['error.type'], only('execute_tool').status.code]).toEqual([
      'TOOL_FAILED',
      SpanStatusCode.ERROR,
    ]);
    expect([only('invoke_agent').attributes['error.type'], only('invoke_agent').status.code]).toEqual([
      'TOOL_FAILED',
      SpanStatusCode.ERROR,
    ]);
  });

  it('a model-correctable error is no failed run: the tool span is coded, the run is not', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { order_id: '' } }] }, { text: 'Sorry.' }]);
    await agent(model).run('hi', { sessionId: 'sess-4' });
    expect(only('execute_tool').attributes['error.type']).toBe('INVALID_ARGUMENTS');
    expect(only('invoke_agent').status.code).toBe(SpanStatusCode.UNSET);
    expect(only('invoke_agent').attributes).not.toHaveProperty('error.type');
  });

  it('a paused run is no error; its resume is its own invoke_agent span with the approved tool call under it', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'call_r', name: 'refund', arguments: { order_id: 'A-1' } }] },
      { text: 'Refunded.' },
    ]);
    const support = agent(model);
    const paused = await support.run('Refund A-1', { sessionId: 'sess-5' });
    expect(paused.status).toBe('paused');
    expect(only('invoke_agent').status.code).toBe(SpanStatusCode.UNSET);
    expect(named('execute_tool')).toEqual([]);
    tracing.exporter.reset();

    const done = await support.approve({ sessionId: 'sess-5' }, 'call_r');
    expect(done.status).toBe('completed');
    const resume = only('invoke_agent');
    expect(parentOf(only('execute_tool'))).toBe(resume.spanContext().spanId);
    expect(only('chat').attributes['gen_ai.usage.input_tokens']).toBe(resume.attributes['gen_ai.usage.input_tokens']);
  });

  it('concurrent runs: each tool span is a child of its own run', async () => {
    const runs = Array.from({ length: 6 }, (_, i) =>
      agent(new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { order_id: `O-${i}` } }] }, { text: 'ok' }])).run('go', {
        sessionId: `par-${i}`,
      }),
    );
    await Promise.all(runs);
    const byId = new Map(tracing.spans().map((s) => [s.spanContext().spanId, s]));
    const tools = named('execute_tool');
    expect(tools).toHaveLength(6);
    for (const tool of tools) {
      const parent = byId.get(parentOf(tool)!)!;
      expect(parent.name).toBe('invoke_agent support');
      expect(parent.attributes['gen_ai.conversation.id']).toBe(tool.attributes['gen_ai.conversation.id']);
    }
  });
});

/** ScriptedModel's answers, streamed: the text in two deltas, then finish. */
function streaming(inner: ScriptedModel): Model {
  return {
    name: inner.name,
    generate: (request) => inner.generate(request),
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      const response = await inner.generate(request);
      const text = response.content ?? '';
      if (text) yield { type: 'text-delta', delta: text.slice(0, 3) };
      if (text.length > 3) yield { type: 'text-delta', delta: text.slice(3) };
      for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
      yield { type: 'finish', response };
    },
  };
}

describe('agent spans of a streamed run', () => {
  it('agent.stream: the same spans as run, the chat spans marked as streamed', async () => {
    let result;
    for await (const event of agent(streaming(lookupThenAnswer())).stream('Where is A-1?', { sessionId: 'str-1' })) {
      if (event.type === 'run-end') result = event.result;
    }
    const run = only('invoke_agent');
    expect(result).toMatchObject({ status: 'completed' });
    expect(named('chat').map((c) => [c.name, c.attributes['gen_ai.request.stream'], parentOf(c)])).toEqual([
      ['chat tiny-1', true, run.spanContext().spanId],
      ['chat tiny-1', true, run.spanContext().spanId],
    ]);
    expect(parentOf(only('execute_tool'))).toBe(run.spanContext().spanId);
    expect(run.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  });

  it('leaving the stream early cancels the run: its span ends, RUN_ABORTED, status ERROR', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-2' } }] },
      { text: 'done' },
    ]);
    for await (const event of agent(streaming(model)).stream('go', { sessionId: 'str-2' })) {
      if (event.type === 'tool-result') break;
    }
    const run = only('invoke_agent');
    expect([run.attributes['error.type'], run.status.code]).toEqual(['RUN_ABORTED', SpanStatusCode.ERROR]);
    expect(named('chat').length).toBeLessThan(3);
  });
});

describe('content is recorded only when the app opts in', () => {
  it('off by default: no instructions, messages, arguments or results on any span', async () => {
    await agent(lookupThenAnswer()).run('Where is A-1?', { sessionId: 'sess-6' });
    for (const span of tracing.spans()) {
      const keys = Object.keys(span.attributes);
      expect(keys.filter((k) => /messages|instructions|call\.arguments|call\.result/.test(k))).toEqual([]);
      expect(JSON.stringify(span.attributes)).not.toContain('A-1');
    }
  });

  it('Agent({ tracing: { recordContent: true } }): messages in the conventions’ JSON shape, tool arguments and results', async () => {
    await agent(lookupThenAnswer(), { tracing: { recordContent: true } }).run('Where is A-1?', { sessionId: 'sess-7' });
    const [first, second] = named('chat');
    expect(JSON.parse(first.attributes['gen_ai.system_instructions'] as string)).toEqual([{ type: 'text', content: 'You help.' }]);
    expect(JSON.parse(first.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Where is A-1?' }] },
    ]);
    expect(JSON.parse(first.attributes['gen_ai.output.messages'] as string)).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_a', name: 'lookup', arguments: { order_id: 'A-1' } }],
        finish_reason: 'tool_call',
      },
    ]);
    expect(JSON.parse(second.attributes['gen_ai.input.messages'] as string).slice(1)).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_a', name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_a', response: { status: 'found', order_id: 'A-1' } }] },
    ]);
    expect(JSON.parse(second.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Order A-1 is found.' }], finish_reason: 'stop' },
    ]);
    expect(only('execute_tool').attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"order_id":"A-1"}',
      'gen_ai.tool.call.result': '{"status":"found","order_id":"A-1"}',
    });
  });
});
