/**
 * What tracing costs per registry.call: the call path before tracing existed (the registry's
 * untraced body), `call` with @opentelemetry/api loaded but no tracer provider registered (what
 * every app that does not trace runs), and `call` with a provider registered (spans sampled out;
 * spans recorded; spans recorded with content). Cases run interleaved; the order flips every round.
 * Run: node -r ts-node/register/transpile-only bench/tracing.bench.ts [calls=200000] [rounds=7]
 */
import 'reflect-metadata';
import { trace } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { IsNumber } from 'class-validator';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry } from '../src';

class AddInput {
  @Param({ description: 'a' }) @IsNumber() a!: number;
  @Param({ description: 'b' }) @IsNumber() b!: number;
}

@Tool({ name: 'add', description: 'Add.', input: AddInput })
class AddTool {
  execute({ a, b }: AddInput) {
    return { sum: a + b };
  }
}

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

async function main() {
  const calls = Number(process.argv[2] ?? 200_000);
  const rounds = Number(process.argv[3] ?? 7);
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
}

void main();
