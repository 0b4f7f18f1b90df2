/**
 * `execute_tool` spans from the registry's call path, as the OpenTelemetry GenAI semantic
 * conventions name and attribute them, on every call path (no guard, a caller's signal, a
 * timeout) and for every error a call can end with.
 */
import 'reflect-metadata';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Equals, IsString, MinLength } from 'class-validator';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry, ToolwrightError, type CallOptions } from 'toolwright';
import { parentOf, startTracing } from '../support/tracing';

class TextInput {
  @Param({ description: 'Some text' }) @IsString() @MinLength(1) text!: string;
}

@Tool({ name: 'echo', description: 'Echo the text', input: TextInput })
class EchoTool {
  execute(args: TextInput) {
    return { text: args.text };
  }
}

@Tool({ name: 'echo_async', description: 'Echo the text, later', input: TextInput })
class AsyncEchoTool {
  async execute(args: TextInput) {
    await new Promise((resolve) => setImmediate(resolve));
    return { text: args.text };
  }
}

@Tool({ name: 'fails', description: 'Always fails', input: TextInput })
class FailingTool {
  async execute(): Promise<string> {
    throw new Error('database down');
  }
}

class Found {
  @Equals('found') status!: 'found';
}

@Tool({ name: 'bad_output', description: 'Breaks its output contract', input: TextInput, output: Found })
class BadOutputTool {
  execute() {
    return { status: 'lost' };
  }
}

@Tool({ name: 'hangs', description: 'Never answers', input: TextInput, timeoutMs: 20 })
class HangingTool {
  execute(): Promise<string> {
    return new Promise(() => undefined);
  }
}

@Tool({ name: 'nested', description: 'Traces its own work', input: TextInput })
class NestedTool {
  async execute(args: TextInput) {
    // The app's own instrumentation inside a tool: its spans nest under execute_tool.
    await trace.getTracer('app').startActiveSpan('lookup', async (span) => {
      await new Promise((resolve) => setImmediate(resolve));
      span.end();
    });
    return { text: args.text };
  }
}

const TOOLS = [EchoTool, AsyncEchoTool, FailingTool, BadOutputTool, HangingTool, NestedTool];
const session = () => ({
  context: new AgentContext({ sessionId: 'sess-1', userId: 'u-1' }),
  memory: new AgentMemory({ agentName: 'spans', userId: 'u-1' }),
});

/** The three ways `call` runs a tool: nothing to guard, a caller's signal (MCP), a timeout (the runner). */
const PATHS: Record<string, () => CallOptions> = {
  unguarded: () => ({ toolCallId: 'call_1' }),
  signal: () => ({ toolCallId: 'call_1', signal: new AbortController().signal }),
  timeout: () => ({ toolCallId: 'call_1', timeoutMs: 5_000 }),
};

const tracing = startTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.exporter.reset());

async function callOutcome(registry: ToolRegistry, name: string, args: string | object, options?: CallOptions) {
  const { context, memory } = session();
  return registry.call(name, args, context, memory, options).then(
    (result) => ({ result }),
    (error: unknown) => ({ code: (error as ToolwrightError).code }),
  );
}

function onlySpan(): ReadableSpan {
  const spans = tracing.spans();
  expect(spans.map((s) => s.name)).toHaveLength(1);
  return spans[0];
}

describe('execute_tool spans', () => {
  const registry = ToolRegistry.build({ tools: TOOLS });

  describe.each(Object.entries(PATHS))('on the %s call path', (_path, options) => {
    it.each(['echo', 'echo_async'])('a successful call of %s: named, attributed, status unset, no content', async (tool) => {
      expect(await callOutcome(registry, tool, '{"text":"secret"}', options())).toEqual({ result: '{"text":"secret"}' });
      const span = onlySpan();
      expect(span.name).toBe(`execute_tool ${tool}`);
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.description': tool === 'echo' ? 'Echo the text' : 'Echo the text, later',
        'gen_ai.conversation.id': 'sess-1',
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.events).toEqual([]);
    });

    it('a tool that throws: error.type TOOL_FAILED, status ERROR with the code, no exception text (content is off)', async () => {
      expect(await callOutcome(registry, 'fails', { text: 'x' }, options())).toEqual({ code: 'TOOL_FAILED' });
      const span = onlySpan();
      expect(span.attributes['error.type']).toBe('TOOL_FAILED');
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TOOL_FAILED' });
      expect(span.events).toEqual([]);
    });

    it('with recordContent, a tool that throws: the status message and the exception recorded', async () => {
      const recording = ToolRegistry.build({ tools: TOOLS, tracing: { recordContent: true } });
      expect(await callOutcome(recording, 'fails', { text: 'x' }, options())).toEqual({ code: 'TOOL_FAILED' });
      const span = onlySpan();
      expect(span.status.message).toMatch(/database down/);
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
      // The SDK reports an exception's `code` as its type.
      expect(span.events[0].attributes?.['exception.type']).toBe('TOOL_FAILED');
      expect(span.events[0].attributes?.['exception.message']).toBe(span.status.message);
    });
  });

  /** Every code a call can fail with, each recorded as the span's error.type. */
  const FAILURES: [string, string, string | object, CallOptions | undefined][] = [
    ['TOOL_NOT_FOUND', 'nope', {}, undefined],
    ['INVALID_JSON', 'echo', '{"text":', undefined],
    ['INVALID_ARGUMENTS', 'echo', { text: '' }, undefined],
    ['TOOL_FAILED', 'fails', { text: 'x' }, undefined],
    ['INVALID_OUTPUT', 'bad_output', { text: 'x' }, undefined],
    ['TOOL_TIMEOUT', 'hangs', { text: 'x' }, undefined],
    ['ABORTED', 'echo_async', { text: 'x' }, { signal: AbortSignal.abort() }],
  ];

  it.each(FAILURES)('%s: the span carries the code as error.type and status ERROR', async (code, tool, args, options) => {
    expect(await callOutcome(registry, tool, args, options)).toEqual({ code });
    const span = onlySpan();
    expect(span.name).toBe(`execute_tool ${tool}`);
    expect(span.attributes['gen_ai.tool.name']).toBe(tool);
    expect(span.attributes['error.type']).toBe(code);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a call inside the app’s span is its child; the tool’s own spans are children of execute_tool', async () => {
    await trace.getTracer('app').startActiveSpan('request', async (request) => {
      await callOutcome(registry, 'nested', { text: 'x' });
      request.end();
    });
    const byName = new Map(tracing.spans().map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual(['execute_tool nested', 'lookup', 'request']);
    const tool = byName.get('execute_tool nested')!;
    expect(parentOf(tool)).toBe(byName.get('request')!.spanContext().spanId);
    expect(parentOf(byName.get('lookup')!)).toBe(tool.spanContext().spanId);
    expect(tool.spanContext().traceId).toBe(byName.get('request')!.spanContext().traceId);
  });

  it('a direct call without a context or call id leaves out what it does not know', async () => {
    await registry.call('echo', { text: 'x' });
    expect(onlySpan().attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Echo the text',
    });
  });

  it('a model-invented tool name is cut to 64 characters in the span', async () => {
    const name = 'x'.repeat(5_000);
    expect(await callOutcome(registry, name, {})).toEqual({ code: 'TOOL_NOT_FOUND' });
    expect(onlySpan().name).toBe(`execute_tool ${'x'.repeat(64)}`);
  });
});

describe('tool arguments and results are recorded only when the app opts in', () => {
  it('off by default, on every outcome', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    for (const [tool, args] of [
      ['echo', '{"text":"card 4111"}'],
      ['fails', { text: 'card 4111' }],
    ] as const) {
      await callOutcome(registry, tool, args);
    }
    for (const span of tracing.spans()) {
      expect(Object.keys(span.attributes).filter((key) => key.startsWith('gen_ai.tool.call.') && key !== 'gen_ai.tool.call.id')).toEqual(
        [],
      );
      expect(JSON.stringify(span.attributes)).not.toContain('4111');
    }
  });

  it('with tracing: { recordContent: true }: the arguments as given (a string or an object) and the result', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS, tracing: { recordContent: true } });
    await callOutcome(registry, 'echo', '{"text":"a"}');
    await callOutcome(registry, 'echo_async', { text: 'b' }, PATHS.timeout());
    await callOutcome(registry, 'fails', { text: 'c' });
    const [first, second, failed] = tracing.spans();
    expect(first.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"a"}');
    expect(first.attributes['gen_ai.tool.call.result']).toBe('{"text":"a"}');
    expect(second.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"b"}');
    expect(second.attributes['gen_ai.tool.call.result']).toBe('{"text":"b"}');
    // A failed call has no result to record.
    expect(failed.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"c"}');
    expect(failed.attributes).not.toHaveProperty('gen_ai.tool.call.result');
  });
});
