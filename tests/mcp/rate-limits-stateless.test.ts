/**
 * A rate limit held across replicas: two stateless MCP server processes on one real store, the
 * counts in the store (`store.rateCounters()`). Calls alternate between the processes, and a new
 * MCP session (a reconnect) of the same user meets the same count.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startWorker, stopWorker } from '../support/mcp-processes';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';

const TOKENS = { 'token-alice': { userId: 'alice' }, 'token-bob': { userId: 'bob' } };

describe.each([
  ['Redis', 'redis' as const],
  ['PostgreSQL', 'postgres' as const],
])('a rate limit across two stateless MCP processes on one %s store', (_name, kind) => {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  const workers: ChildProcess[] = [];
  let urls: string[];

  beforeAll(async () => {
    let target: string;
    if (kind === 'redis') target = (redis = await startRedis()).url;
    else target = (postgres = await startPostgres()).connectionString;
    const started = await Promise.all([0, 1].map(() => startWorker({ kind, target, tools: 'limited', tokens: TOKENS })));
    workers.push(...started.map((s) => s.child));
    urls = started.map((s) => s.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
    await redis?.destroy();
    await postgres?.destroy();
  });

  async function connect(token: string): Promise<{ client: Client; served: string[] }> {
    const served: string[] = [];
    let turn = 0;
    const alternate: typeof fetch = (_input, init) => {
      const url = urls[turn++ % urls.length];
      served.push(url);
      return fetch(url, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(urls[0]), {
      fetch: alternate,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'limited', version: '1.0.0' });
    await client.connect(transport);
    return { client, served };
  }

  /** 'ok', or the refusal's code with retryAfter. */
  async function call(client: Client): Promise<string> {
    const result = (await client.callTool({ name: 'limited_echo', arguments: { text: 'x' } })) as CallToolResult;
    if (!result.isError) return 'ok';
    const body = JSON.parse((result.content[0] as { text: string }).text) as { code: string; retryAfter?: number };
    return body.retryAfter !== undefined && body.retryAfter > 0 ? body.code : `${body.code} without retryAfter`;
  }

  it('allows three calls an hour per user whichever process serves them, and a reconnect does not reset the count', async () => {
    const alice = await connect('token-alice');
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await call(alice.client));
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(new Set(alice.served)).toEqual(new Set(urls));
    await alice.client.close();
    const again = await connect('token-alice');
    expect(await call(again.client)).toBe('RATE_LIMITED');
    await again.client.close();
    // Another user has a count of their own.
    const bob = await connect('token-bob');
    expect(await call(bob.client)).toBe('ok');
    await bob.client.close();
  });
});
