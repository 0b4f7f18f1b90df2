/**
 * Without `recordContent`, no span carries what the model or a tool said — not as an attribute,
 * not in the status message, not in an exception event's message or stack. The text is a canary
 * put where a hostile or careless peer puts it: argument text that is not JSON (V8 quotes it in
 * its SyntaxError), an unknown argument key (named by the validation message), a value, and a
 * tool's error message quoting its arguments; also a model error quoting its answer. Every surface
 * that traces is driven: the agent runner (run, stream, resume), direct registry calls, MCP, the
 * AI SDK and LangChain adapters. With `recordContent`, the detail is kept.
 */
import 'reflect-metadata';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { IsString, MaxLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  ModelError,
  Param,
  ScriptedModel,
  Tool,
  ToolRegistry,
  type TracingOptions,
} from 'toolwright';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { toLangChainTools } from '../../src/adapters/langchain';
import { createMcpServer } from '../../src/mcp';
import { startTracing } from '../support/tracing';

// Ten characters: V8 quotes up to ten of the text JSON.parse refused.
const CANARY = 'CANARY4x7q';

class ChargeInput {
  @Param({ description: 'The card' }) @IsString() @MaxLength(40) card!: string;
}

@Tool({ name: 'charge', description: 'Charge a card', input: ChargeInput })
class ChargeTool {
  execute({ card }: ChargeInput) {
    if (card.includes(CANARY)) throw new Error(`Card ${card} was declined`);
    return { charged: true };
  }
}

@Tool({ name: 'charge_later', description: 'Charge a card after approval', input: ChargeInput, approval: () => true })
class ApprovedChargeTool extends ChargeTool {}

/** Arguments a model sends that fail with its text quoted somewhere, and one that makes the tool quote it. */
const HOSTILE_ARGUMENTS: ReadonlyArray<string | Record<string, unknown>> = [
  `${CANARY} is not JSON`, // INVALID_JSON: V8's SyntaxError quotes the text
  `{"card":"x","${CANARY}":1}`, // INVALID_ARGUMENTS: "property CANARY… should not exist"
  { card: 'x', [CANARY]: true },
  { card: `${CANARY}${'9'.repeat(40)}` }, // too long
  { card: `${CANARY}-0000` }, // TOOL_FAILED: "Card CANARY… was declined"
];

const tracing = startTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.exporter.reset());

/** Everything a span exports that could hold text: name, attributes, status, events (with their attributes), links. */
const exported = (span: ReadableSpan) =>
  JSON.stringify({ name: span.name, attributes: span.attributes, status: span.status, events: span.events, links: span.links });

function expectNoCanary(): ReadableSpan[] {
  const spans = tracing.spans();
  expect(spans.length).toBeGreaterThan(0);
  for (const span of spans) expect(exported(span)).not.toContain(CANARY);
  return spans;
}

const session = () => ({
  context: new AgentContext({ sessionId: 'canary-session', userId: 'u-1' }),
  memory: new AgentMemory({ agentName: 'canary', userId: 'u-1' }),
});

const registry = (tracingOptions?: TracingOptions) => ToolRegistry.build({ tools: [ChargeTool], tracing: tracingOptions });

function agent(model: ScriptedModel, tracingOptions?: TracingOptions) {
  return new Agent({
    name: 'billing',
    model,
    tools: [ChargeTool, ApprovedChargeTool],
    store: new InMemoryStore(),
    retryBudget: 10, // every model-correctable call is answered; the run fails on the tool's own error
    tracing: tracingOptions,
  });
}

/** The model-correctable hostile calls in one turn, then the call the tool fails on (the run fails: TOOL_FAILED). */
const hostileTurns = (name = 'charge') => [
  { toolCalls: HOSTILE_ARGUMENTS.slice(0, -1).map((args) => ({ name, arguments: args })) },
  { toolCalls: [{ name, arguments: HOSTILE_ARGUMENTS.at(-1)! }] },
];

describe('without recordContent, no span carries the canary', () => {
  it('direct registry calls: each failure coded, its status message the code, no exception event', async () => {
    const tools = registry();
    const codes: string[] = [];
    for (const args of HOSTILE_ARGUMENTS) {
      const { context, memory } = session();
      await tools.call('charge', args, context, memory, { toolCallId: 'c1' }).catch((e: { code: string }) => codes.push(e.code));
    }
    expect(codes).toEqual(['INVALID_JSON', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', 'TOOL_FAILED']);
    const spans = expectNoCanary();
    expect(spans.map((s) => [s.attributes['error.type'], s.status])).toEqual(
      codes.map((code) => [code, { code: SpanStatusCode.ERROR, message: code }]),
    );
    for (const span of spans) expect(span.events).toEqual([]);
  });

  it('agent.run: the tool spans, and the run that fails on the tool’s error', async () => {
    const model = new ScriptedModel(hostileTurns());
    await expect(agent(model).run('pay', { sessionId: 's-run' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    const spans = expectNoCanary();
    expect(spans.map((s) => s.name).sort()).toEqual([
      'chat scripted',
      'chat scripted',
      ...Array(5).fill('execute_tool charge'),
      'invoke_agent billing',
    ]);
    const run = spans.find((s) => s.name === 'invoke_agent billing')!;
    expect([run.attributes['error.type'], run.status.message]).toEqual(['TOOL_FAILED', 'TOOL_FAILED']);
  });

  it('agent.stream: the same', async () => {
    const model = new ScriptedModel(hostileTurns());
    const events: string[] = [];
    await expect(
      (async () => {
        for await (const event of agent(model).stream('pay', { sessionId: 's-stream' })) events.push(event.type);
      })(),
    ).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect(tracing.spans().filter((s) => s.name === 'execute_tool charge')).toHaveLength(5);
    expectNoCanary();
  });

  it('a resumed run: the approved call that fails, and the resume’s span', async () => {
    const support = agent(new ScriptedModel([{ toolCalls: [{ id: 'call_p', name: 'charge_later', arguments: { card: `${CANARY}-1` } }] }]));
    expect((await support.run('pay later', { sessionId: 's-resume' })).status).toBe('paused');
    await expect(support.approve({ sessionId: 's-resume' }, 'call_p')).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    expect(tracing.spans().filter((s) => s.name === 'execute_tool charge_later')).toHaveLength(1);
    expectNoCanary();
  });

  it('a model whose error quotes its answer: the chat span and the run', async () => {
    const model = new ScriptedModel([{ error: new ModelError('acme', `response body is not JSON: ${CANARY}`, 200) }]);
    await expect(agent(model).run('hi', { sessionId: 's-model' })).rejects.toMatchObject({ code: 'MODEL_FAILED' });
    const spans = expectNoCanary();
    expect(spans.map((s) => [s.name, s.attributes['error.type']]).sort()).toEqual([
      ['chat scripted', 'MODEL_FAILED'],
      ['invoke_agent billing', 'MODEL_FAILED'],
    ]);
  });

  it('MCP tools/call (official SDK client)', async () => {
    const server = createMcpServer(registry(), { store: new InMemoryStore(), sessionId: 'mcp-canary', onError: () => undefined });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'canary', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      for (const args of HOSTILE_ARGUMENTS.filter((x): x is Record<string, unknown> => typeof x === 'object')) {
        expect((await client.callTool({ name: 'charge', arguments: args })).isError).toBe(true);
      }
    } finally {
      await client.close();
      await server.close();
    }
    expect(tracing.spans().filter((s) => s.name === 'execute_tool charge')).toHaveLength(3);
    expectNoCanary();
  });

  it('the AI SDK adapter (generateText)', async () => {
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const calls = HOSTILE_ARGUMENTS.map((args, i) => ({
      type: 'tool-call' as const,
      toolCallId: `ai-${i}`,
      toolName: 'charge',
      input: typeof args === 'string' ? args : JSON.stringify(args),
    }));
    const model = new MockLanguageModelV3({
      doGenerate: [
        { content: calls, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
      ],
    });
    await generateText({ model, tools: toAiSdkTools(registry(), { session: session() }), prompt: 'go', stopWhen: stepCountIs(2) }).catch(
      () => undefined, // the AI SDK may refuse input it cannot parse itself; what was traced is what counts
    );
    expect(tracing.spans().filter((s) => s.name === 'execute_tool charge').length).toBeGreaterThan(0);
    expectNoCanary();
  });

  it('the LangChain adapter', async () => {
    const [charge] = toLangChainTools(registry(), { session: session() });
    for (const [i, args] of HOSTILE_ARGUMENTS.filter((x): x is Record<string, unknown> => typeof x === 'object').entries()) {
      await charge.invoke({ type: 'tool_call', id: `lc-${i}`, name: 'charge', args }).catch(() => undefined);
    }
    expect(tracing.spans().filter((s) => s.name === 'execute_tool charge')).toHaveLength(3);
    expectNoCanary();
  });
});

describe('with recordContent, the detail is kept', () => {
  it('registry: status message and exception event with the error’s text', async () => {
    const tools = registry({ recordContent: true });
    await tools.call('charge', `${CANARY} is not JSON`).catch(() => undefined);
    await tools.call('charge', { card: `${CANARY}-0000` }).catch(() => undefined);
    const [invalid, failed] = tracing.spans();
    for (const span of [invalid, failed]) {
      expect(span.status.message).toContain(CANARY);
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
      expect(String(span.events[0].attributes?.['exception.stacktrace'])).toContain(CANARY);
    }
    expect(failed.status.message).toContain(`Card ${CANARY}-0000 was declined`);
  });

  it('agent: the run’s span carries the tool’s message', async () => {
    await expect(agent(new ScriptedModel(hostileTurns()), { recordContent: true }).run('pay', { sessionId: 's-on' })).rejects.toMatchObject(
      {
        code: 'TOOL_FAILED',
      },
    );
    const run = tracing.spans().find((s) => s.name === 'invoke_agent billing')!;
    expect(run.status.message).toContain(CANARY);
    expect(run.events.map((e) => e.name)).toEqual(['exception']);
  });
});
