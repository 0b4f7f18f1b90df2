/**
 * What the policy gate costs per registry.call: the same tool, ungated, behind an `isEnabled`,
 * behind a registry `authorize`, and with an approval policy approved by the caller.
 * Run: node -r ts-node/register/transpile-only bench/policy-gate.bench.ts [calls=200000] [rounds=5]
 */
import 'reflect-metadata';
import { AgentContext, AgentMemory, Tool, ToolRegistry } from '../src';
import { AddInput, AddTool } from './support/add-tool';

@Tool({ name: 'add', description: 'Add.', input: AddInput })
class EnabledAddTool {
  isEnabled(context: AgentContext) {
    return context.tenantId === 't1';
  }
  execute({ a, b }: AddInput) {
    return { sum: a + b };
  }
}

@Tool({ name: 'add', description: 'Add.', input: AddInput, approval: (args: AddInput) => args.a > 1e9 })
class ApprovalAddTool {
  execute({ a, b }: AddInput) {
    return { sum: a + b };
  }
}

const container = { get: <T>(cls: new () => T) => new cls() };
const cases: Array<[string, ToolRegistry]> = [
  ['no policy', ToolRegistry.build({ tools: [AddTool], container })],
  ['isEnabled', ToolRegistry.build({ tools: [EnabledAddTool], container })],
  ['registry authorize', ToolRegistry.build({ tools: [AddTool], container, authorize: (_t, c) => c.userId === 'u' })],
  ['approval policy (not triggered)', ToolRegistry.build({ tools: [ApprovalAddTool], container })],
];

async function main() {
  const calls = Number(process.argv[2] ?? 200_000);
  const rounds = Number(process.argv[3] ?? 5);
  const context = new AgentContext({ sessionId: 's', userId: 'u', tenantId: 't1' });
  const memory = new AgentMemory({ agentName: 'a', userId: 'u' });
  const args = '{"a":1,"b":2}';
  const results = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, registry] of round % 2 ? [...cases].reverse() : cases) {
      for (let i = 0; i < 20_000; i++) await registry.call('add', args, context, memory);
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await registry.call('add', args, context, memory);
      results.get(name)!.push(Number(process.hrtime.bigint() - start) / calls);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(results.get('no policy')!);
  console.log('| case | ns/call (median) | vs no policy |\n|---|---:|---:|');
  for (const [name, xs] of results) console.log(`| ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / base).toFixed(2)}x |`);
}

void main();
