/**
 * What tracing costs per registry.call and per agent run: the path before tracing existed (the
 * registry's untraced body; an Agent whose span wrappers are bypassed), the same with
 * @opentelemetry/api loaded but no tracer provider registered (what every app that does not trace
 * runs), and with a provider registered (spans sampled out; recorded; recorded with content).
 * Cases run interleaved; the order flips every round.
 * Run: node -r ts-node/register/transpile-only bench/tracing.bench.ts [calls=200000] [rounds=7] [runs=20000]
 */
import 'reflect-metadata';
import { trace } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { activeTracer } from '../src/tracing/tracing';
import { Agent, AgentContext, AgentMemory, InMemoryStore, ToolRegistry, type Model } from '../src';
import { type ModelResponse } from '../src/agent/models';
import { AddTool } from './support/add-tool';

type Call = (name: string, args: string, context: AgentContext, memory: AgentMemory) => Promise<string>;
const container = { get: <T>(cls: new () => T) => new cls() };
const plain = ToolRegistry.build({ tools: [AddTool], container });
const withContent = ToolRegistry.build({ tools: [AddTool], container, tracing: { recordContent: true } });
// No span processor: spans are made, attributed and ended, then dropped (no exporter cost measured).
const recording = new BasicTracerProvider();
const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });

const cases: Array<{ name: string; provider?: BasicTracerProvider; call: Call }> = [
  { name: 'untraced body (before tracing)', call: (plain as unknown as { invoke: Call }).invoke.bind(plain) },
  { name: 'call, no tracer provider', call: plain.call.bind(plain) },
  { name: 'call, provider, sampled out', provider: sampledOut, call: plain.call.bind(plain) },
  { name: 'call, provider, recording', provider: recording, call: plain.call.bind(plain) },
  { name: 'call, provider, recording + content', provider: recording, call: withContent.call.bind(withContent) },
];

// --- agent runs: user message → one tool call → final text, a new session per run (as bench/agent.bench.ts) ---

const model: Model = {
  name: 'bench:model',
  async generate(request): Promise<ModelResponse> {
    const usage = { inputTokens: 10, outputTokens: 5 };
    return request.messages[request.messages.length - 1].role === 'tool'
      ? { content: 'The sum is 3.', toolCalls: [], usage, finishReason: 'stop' }
      : { content: null, toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' }], usage };
  },
};
type Run = (i: number) => Promise<unknown>;
function agentRun(options: { untraced?: boolean; recordContent?: boolean } = {}): Run {
  const registry = ToolRegistry.build({ tools: [AddTool], container, tracing: { recordContent: options.recordContent } });
  const make = () => {
    const agent = new Agent({ name: 'bench', instructions: 'Add.', model, tools: registry, store: new InMemoryStore() });
    if (options.untraced) {
      // The code paths as they were before tracing: no span wrappers, the registry's untraced body.
      const inner = agent as unknown as Record<string, unknown>;
      const drive = (inner.drive as (state: unknown, pending: unknown) => Promise<unknown>).bind(agent);
      inner.traced = (state: unknown, pending: unknown) => drive(state, pending);
      inner.traceTurn = (_state: unknown, _request: unknown, call: () => Promise<unknown>) => call();
      (registry as unknown as { call: Call }).call = (registry as unknown as { invoke: Call }).invoke.bind(registry);
    }
    return agent;
  };
  let agent = make();
  return (i) => {
    if (i % 5000 === 0) agent = make(); // keeps the heap flat
    return agent.run('Add 1 and 2.', { sessionId: `s-${i}`, userId: 'u-1' });
  };
}

const agentCases: Array<{ name: string; provider?: BasicTracerProvider; run: Run }> = [
  { name: 'agent.run, span wrappers bypassed (before tracing)', run: agentRun({ untraced: true }) },
  { name: 'agent.run, no tracer provider', run: agentRun() },
  { name: 'agent.run, provider, recording', provider: recording, run: agentRun() },
  { name: 'agent.run, provider, recording + content', provider: recording, run: agentRun({ recordContent: true }) },
];

/** ns per call of `fn`, minus an empty loop's: what the gate costs where every traced path asks it. */
function nsPerCall(fn: () => unknown, n = 5_000_000): number {
  const time = (f: () => unknown) => {
    for (let i = 0; i < 1_000_000; i++) f();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    return Number(process.hrtime.bigint() - start) / n;
  };
  return time(fn) - time(() => undefined);
}

async function main() {
  trace.disable();
  console.log(`activeTracer() with no tracer provider registered: ${nsPerCall(activeTracer).toFixed(1)} ns over an empty call\n`);
  const calls = Number(process.argv[2] ?? 200_000);
  const rounds = Number(process.argv[3] ?? 7);
  const runs = Number(process.argv[4] ?? 20_000);
  const context = new AgentContext({ sessionId: 's', userId: 'u', tenantId: 't1' });
  const memory = new AgentMemory({ agentName: 'a', userId: 'u' });
  const args = '{"a":1,"b":2}';
  const results = new Map<string, number[]>(cases.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const { name, provider, call } of round % 2 ? [...cases].reverse() : cases) {
      trace.disable();
      if (provider) trace.setGlobalTracerProvider(provider);
      for (let i = 0; i < 20_000; i++) await call('add', args, context, memory);
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await call('add', args, context, memory);
      results.get(name)!.push(Number(process.hrtime.bigint() - start) / calls);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(results.get(cases[0].name)!);
  console.log('| case | ns/call (median) | vs untraced body |\n|---|---:|---:|');
  for (const [name, xs] of results) console.log(`| ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / base).toFixed(2)}x |`);

  const perRun = new Map<string, number[]>(agentCases.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const { name, provider, run } of round % 2 ? [...agentCases].reverse() : agentCases) {
      trace.disable();
      if (provider) trace.setGlobalTracerProvider(provider);
      for (let i = 0; i < 2_000; i++) await run(i);
      const start = process.hrtime.bigint();
      for (let i = 0; i < runs; i++) await run(i);
      perRun.get(name)!.push(Number(process.hrtime.bigint() - start) / runs / 1000);
    }
  }
  const runBase = median(perRun.get(agentCases[0].name)!);
  console.log('\n| case | µs/run (median) | vs before tracing |\n|---|---:|---:|');
  for (const [name, xs] of perRun) console.log(`| ${name} | ${median(xs).toFixed(1)} | ${(median(xs) / runBase).toFixed(2)}x |`);
}

void main();
