/**
 * What a remote MCP tool costs over the bare SDK client: `registry.call` on a tool of
 * `McpToolset` (argument validation, the gate, the pool, result checks) against the official SDK
 * client's own `callTool`, both to server-everything's `echo` (installed from npm), over stdio
 * (one server process each) and Streamable HTTP (one server, a session each). Cases run
 * interleaved; the order flips every round; medians of the rounds.
 * Run: node -r ts-node/register/transpile-only bench/remote-mcp.bench.ts [calls=2000] [rounds=9]
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolRegistry } from '../src';
import { McpToolset } from '../src/mcp-client';
import { SERVER, startEverythingHttp } from '../tests/support/remote-servers';

const calls = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 9);
const args = { message: 'hello' };

type Case = { name: string; call: () => Promise<unknown> };

async function time(c: Case): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await c.call();
  return Number(process.hrtime.bigint() - start) / calls / 1000; // µs per call
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function main(): Promise<void> {
  const http = await startEverythingHttp();
  const stdioClient = new Client({ name: 'bench', version: '1.0.0' });
  await stdioClient.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER.everything, 'stdio'], stderr: 'ignore' }));
  const httpClient = new Client({ name: 'bench', version: '1.0.0' });
  await httpClient.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  const registry = await ToolRegistry.buildAsync({
    tools: [],
    mcp: [
      McpToolset.stdio({ name: 's', command: process.execPath, args: [SERVER.everything, 'stdio'], prefix: 's_', include: ['echo'] }),
      McpToolset.http({ name: 'h', url: http.url, prefix: 'h_', include: ['echo'] }),
    ],
  });
  const pairs: Array<[Case, Case]> = [
    [
      { name: 'stdio: SDK client.callTool', call: () => stdioClient.callTool({ name: 'echo', arguments: args }) },
      { name: 'stdio: registry.call (McpToolset)', call: () => registry.call('s_echo', args) },
    ],
    [
      { name: 'HTTP: SDK client.callTool', call: () => httpClient.callTool({ name: 'echo', arguments: args }) },
      { name: 'HTTP: registry.call (McpToolset)', call: () => registry.call('h_echo', args) },
    ],
  ];
  const results = new Map<string, number[]>();
  for (const [a, b] of pairs) for (const c of [a, b]) await time({ ...c, call: c.call }).then(() => undefined); // warm-up round
  for (let round = 0; round < rounds; round++) {
    for (const pair of pairs) {
      for (const c of round % 2 ? [...pair].reverse() : pair) {
        const list = results.get(c.name) ?? [];
        list.push(await time(c));
        results.set(c.name, list);
      }
    }
  }
  console.log(`${calls} sequential calls a round, ${rounds} rounds, Node ${process.version}\n`);
  console.log('| case | µs/call (median) | overhead over the SDK client |');
  console.log('|---|---:|---:|');
  for (const [sdk, ours] of pairs) {
    const base = median(results.get(sdk.name)!);
    const mine = median(results.get(ours.name)!);
    console.log(`| ${sdk.name} | ${base.toFixed(1)} | |`);
    console.log(`| ${ours.name} | ${mine.toFixed(1)} | +${(mine - base).toFixed(1)} µs (${((mine / base - 1) * 100).toFixed(1)}%) |`);
  }
  await registry.close();
  await stdioClient.close();
  await httpClient.close();
  await http.stop();
}

void main();
