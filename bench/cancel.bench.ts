/**
 * `node -r ts-node/register/transpile-only bench/cancel.bench.ts [rounds=5] [cancels=40] [calls=200]`
 *
 * Stateless MCP cancellation across servers (bench/CANCEL.md). Two stateless servers A and B in
 * this process, each with its own store instance on one real Redis / PostgreSQL server, so a
 * cancellation posted to B reaches A only through the store (PUBLISH/SUBSCRIBE, NOTIFY/LISTEN).
 *  - latency: a `notifications/cancelled` POST sent → the tool's `context.signal` fires on A,
 *    the POST landing on A itself (local) or on B (through the store), interleaved;
 *  - call cost: stateless `tools/call` round trips on A with the store's channels as they are
 *    vs hidden (no subscription), interleaved: what listening costs a call.
 */
import { loadavg } from 'node:os';
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../src';
import { serveHttp, type HttpHandle } from '../src/mcp';
import { PostgresStore } from '../src/stores/postgres.store';
import { RedisStore } from '../src/stores/redis.store';
import type { SessionStore } from '../src/stores/store';
import { startPostgres, startRedis, type TestServer } from '../tests/support/servers';

const [rounds, cancels, calls] = [2, 3, 4].map((i, k) => Number(process.argv[i] ?? [5, 40, 200][k]));

/** Per label: resolves when the tool starts, with a promise of when its signal fired (hrtime ns). */
const started = new Map<string, (tool: { fired: Promise<bigint> }) => void>();

class WaitInput {
  @Param({ description: 'label' }) @IsString() label!: string;
}

@Tool({ name: 'wait', description: 'Waits for its signal.', input: WaitInput })
class WaitTool implements ToolInterface<WaitInput> {
  async execute({ label }: WaitInput, context: AgentContext): Promise<object> {
    const signal = context.signal;
    const fired = new Promise<bigint>((resolve) =>
      signal.addEventListener('abort', () => resolve(process.hrtime.bigint()), { once: true }),
    );
    started.get(label)?.({ fired });
    await fired;
    return {};
  }
}

@Tool({ name: 'echo', description: 'Echoes.', input: WaitInput })
class EchoTool implements ToolInterface<WaitInput> {
  execute({ label }: WaitInput): object {
    return { label };
  }
}

const registry = ToolRegistry.build({ tools: [WaitTool, EchoTool] });

const headers = (session?: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(session ? { 'mcp-session-id': session } : {}),
});
const post = (url: string, body: object, session?: string) =>
  fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify(body) });

async function open(url: string): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  await init.text();
  return init.headers.get('mcp-session-id')!;
}

let nextId = 1;

/** One cancellation: ms from sending the cancel POST (to `target`) to the tool's signal firing on `a`. */
async function cancelOnce(a: HttpHandle, target: HttpHandle, session: string): Promise<number> {
  const id = nextId++;
  const label = `l${id}`;
  const running = new Promise<{ fired: Promise<bigint> }>((resolve) => started.set(label, resolve));
  const call = post(a.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { label } } }, session);
  const { fired } = await running;
  const sent = process.hrtime.bigint();
  const cancel = await post(target.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, session);
  await cancel.text();
  const at = await fired;
  await (await call).text();
  started.delete(label);
  return Number(at - sent) / 1e6;
}

/** Stateless echo calls on `a`: µs per call. */
async function callLoop(a: HttpHandle, session: string, n: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = nextId++;
    const r = await post(a.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { label: 'x' } } }, session);
    await r.text();
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}

/** The store as is, but without channels (what a server without the capability does). */
function hideChannels(store: SessionStore): SessionStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'channels') return undefined;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

async function backend(name: string, server: TestServer, make: () => SessionStore): Promise<void> {
  const stores = [make(), make(), make()];
  const a = await serveHttp(registry, { stateless: true, store: stores[0] });
  const b = await serveHttp(registry, { stateless: true, store: stores[1] });
  const plain = await serveHttp(registry, { stateless: true, store: hideChannels(stores[2]) });
  const session = await open(a.url);
  const plainSession = await open(plain.url);
  const lat = { local: [] as number[], remote: [] as number[] };
  const cost = { channels: [] as number[], none: [] as number[] };
  for (let w = 0; w < 5; w++) {
    await cancelOnce(a, a, session);
    await cancelOnce(a, b, session);
  }
  await callLoop(a, session, 50);
  await callLoop(plain, plainSession, 50);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < cancels; i++) {
      // Alternate which goes first.
      const order: Array<'local' | 'remote'> = (r + i) % 2 ? ['local', 'remote'] : ['remote', 'local'];
      for (const kind of order) lat[kind].push(await cancelOnce(a, kind === 'local' ? a : b, session));
    }
    const order = r % 2 ? (['channels', 'none'] as const) : (['none', 'channels'] as const);
    for (const kind of order)
      cost[kind].push(kind === 'channels' ? await callLoop(a, session, calls) : await callLoop(plain, plainSession, calls));
  }
  console.log(`\n### ${name}\n`);
  console.log('| cancellation lands on | median ms | p95 ms | n |\n|---|---:|---:|---:|');
  console.log(`| the process running the call | ${median(lat.local).toFixed(2)} | ${p95(lat.local).toFixed(2)} | ${lat.local.length} |`);
  console.log(
    `| another process (through ${name}) | ${median(lat.remote).toFixed(2)} | ${p95(lat.remote).toFixed(2)} | ${lat.remote.length} |`,
  );
  console.log('\n| stateless tools/call | µs/call (median of rounds) | ratio |\n|---|---:|---:|');
  const none = median(cost.none);
  console.log(`| store channels hidden (no subscription) | ${none.toFixed(0)} | 1.00x |`);
  console.log(`| subscribed to cancellations | ${median(cost.channels).toFixed(0)} | ${(median(cost.channels) / none).toFixed(2)}x |`);
  await Promise.all([a.close(), b.close(), plain.close()]);
  await Promise.all(stores.map((s) => s.close()));
  await server.destroy();
}

async function main(): Promise<void> {
  console.log(
    `rounds=${rounds} cancels=${cancels}/round calls=${calls}/round; load average ${loadavg()
      .map((l: number) => l.toFixed(1))
      .join(' ')}`,
  );
  const redis = await startRedis();
  await backend('Redis', redis, () => new RedisStore({ url: redis.url }));
  const pg = await startPostgres();
  await backend('PostgreSQL', pg, () => new PostgresStore({ connectionString: pg.connectionString }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
