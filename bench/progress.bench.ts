/**
 * What progress costs per call: registry.call of a tool that reports nothing, with and without an
 * `onProgress` observer (the per-call view it needs), and of a tool reporting 3 times; then MCP
 * tools/call over the SDK's in-memory transport pair, with and without a progress token.
 * Run: node -r ts-node/register/transpile-only bench/progress.bench.ts [calls=100000] [mcpCalls=5000] [rounds=5]
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AgentContext, AgentMemory, Tool, ToolRegistry } from '../src';
import { createMcpServer } from '../src/mcp';
import { AddInput, AddTool } from './support/add-tool';

@Tool({ name: 'add3', description: 'Add, reporting 3 steps.', input: AddInput })
class ReportingAddTool {
  execute({ a, b }: AddInput, context: AgentContext) {
    for (let i = 1; i <= 3; i++) context.reportProgress(i, 3, 'adding');
    return { sum: a + b };
  }
}

const container = { get: <T>(cls: new () => T) => new cls() };
const registry = ToolRegistry.build({ tools: [AddTool, ReportingAddTool], container });

type Case = [string, () => Promise<unknown>];

async function measure(cases: Case[], calls: number, rounds: number, baseName: string): Promise<void> {
  const results = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of round % 2 ? [...cases].reverse() : cases) {
      for (let i = 0; i < Math.min(calls, 20_000); i++) await run();
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await run();
      results.get(name)!.push(Number(process.hrtime.bigint() - start) / calls);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(results.get(baseName)!);
  console.log(`| case | ns/call (median of ${rounds}) | vs ${baseName} |\n|---|---:|---:|`);
  for (const [name, xs] of results) console.log(`| ${name} | ${median(xs).toFixed(0)} | ${(median(xs) / base).toFixed(2)}x |`);
  console.log();
}

async function main() {
  const calls = Number(process.argv[2] ?? 100_000);
  const mcpCalls = Number(process.argv[3] ?? 5_000);
  const rounds = Number(process.argv[4] ?? 5);
  const context = new AgentContext({ sessionId: 's', userId: 'u' });
  const memory = new AgentMemory({ agentName: 'a', userId: 'u' });
  const args = '{"a":1,"b":2}';
  let seen = 0;
  const onProgress = () => void seen++;
  await measure(
    [
      ['no observer', () => registry.call('add', args, context, memory)],
      ['onProgress, no reports', () => registry.call('add', args, context, memory, { onProgress })],
      ['no observer, 3 reports', () => registry.call('add3', args, context, memory)],
      ['onProgress, 3 reports', () => registry.call('add3', args, context, memory, { onProgress })],
    ],
    calls,
    rounds,
    'no observer',
  );

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry).connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  const params = (name: string) => ({ name, arguments: { a: 1, b: 2 } });
  await measure(
    [
      ['MCP call, no token', () => client.callTool(params('add'))],
      ['MCP call, token, no reports', () => client.callTool(params('add'), undefined, { onprogress: onProgress })],
      ['MCP call, token, 3 reports', () => client.callTool(params('add3'), undefined, { onprogress: onProgress })],
    ],
    mcpCalls,
    rounds,
    'MCP call, no token',
  );
  await client.close();
  if (seen === 0) throw new Error('no progress was observed');
}

void main();
