/**
 * MCP while the store is really down (issue 21, item 7): its server killed under a running MCP
 * server, on every transport, with the SDK client as the peer. A tools/call answers a tool result
 * coded STORE_UNAVAILABLE; what has no tool result gets 503 + Retry-After (stateless HTTP) or a
 * JSON-RPC error whose data.code is STORE_UNAVAILABLE; never 500 -32603. Work resumes after a restart.
 */
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import type { SessionStore } from '../../src/stores/store';
import { startRedisAndPostgres, type PostgresServer, type RedisServer, type TestServer } from '../support/servers';
import { gatedRegistry, openOutageStore, type OutageStoreArgs } from '../support/outage-mcp';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/outage-stdio-worker.ts');

let redis: RedisServer;
let postgres: PostgresServer;
beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
});
afterAll(async () => {
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

const note = (client: Client, text: string) => client.callTool({ name: 'note', arguments: { text } }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;

/** The answer a tool call gets during the outage: a tool result the model can read, coded STORE_UNAVAILABLE. */
async function expectCallUnavailable(client: Client): Promise<void> {
  const result = await note(client, 'during');
  expect(result.isError).toBe(true);
  expect(textOf(result)).toEqual({
    status: 'error',
    code: 'STORE_UNAVAILABLE',
    message: 'Session storage is unavailable; try again later.',
  });
}

/** Kills the store's server, runs `during`, starts the server again (also when `during` failed). */
async function outage(server: TestServer, during: () => Promise<void>): Promise<void> {
  await server.kill();
  try {
    await during();
  } finally {
    await server.start();
  }
}

interface Seen {
  status: number;
  headers: Headers;
  /** Read for failures only: an unread clone of a success would hold its connection. */
  body?: string;
}

/** The HTTP responses the client saw, for their status and headers. */
function recordingFetch(): { fetch: typeof fetch; responses: Seen[] } {
  const responses: Seen[] = [];
  return {
    responses,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const seen: Seen = { status: response.status, headers: response.headers };
      if (!response.ok) seen.body = await response.clone().text();
      responses.push(seen);
      return response;
    },
  };
}

describe.each([['redis'], ['postgres']] as const)('MCP on a %s store whose server is killed', (kind) => {
  const args = (): OutageStoreArgs => ({ kind, target: kind === 'redis' ? redis.url : postgres.connectionString });
  const server = (): TestServer => (kind === 'redis' ? redis : postgres);
  let store: SessionStore;
  let handle: HttpHandle | undefined;
  const clients: Client[] = [];
  const reported: unknown[] = [];

  beforeEach(() => {
    store = openOutageStore(args());
    reported.length = 0;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await handle?.close();
    handle = undefined;
    await store.close();
  });

  async function connect(url: string, fetchFn?: typeof fetch): Promise<Client> {
    const client = new Client({ name: 'outage-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchFn ? { fetch: fetchFn } : undefined));
    clients.push(client);
    return client;
  }

  it('stateless HTTP: a call answers STORE_UNAVAILABLE, other requests 503 with Retry-After, and the session works again after', async () => {
    handle = await serveHttp(gatedRegistry, { stateless: true, store, onError: (e) => reported.push(e) });
    const seen = recordingFetch();
    const client = await connect(handle.url, seen.fetch);
    expect(textOf(await note(client, 'before'))).toEqual({ notes: ['before'] });
    await outage(server(), async () => {
      await expectCallUnavailable(client);
      for (const request of [() => client.listTools(), () => connect(handle!.url, seen.fetch)]) {
        const from = seen.responses.length;
        await expect(request()).rejects.toThrow(/STORE_UNAVAILABLE/);
        const response = seen.responses[from];
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(JSON.parse(response.body!)).toMatchObject({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Session storage is unavailable; try again later.', data: { code: 'STORE_UNAVAILABLE' } },
        });
      }
    });
    expect(reported.some((e) => (e as { code?: string }).code === 'STORE_UNAVAILABLE')).toBe(true);
    expect(textOf(await note(client, 'after'))).toEqual({ notes: ['before', 'after'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['grant', 'note', 'slow']);
  }, 60_000);

  it('stateful HTTP: a call answers STORE_UNAVAILABLE, tools/list a JSON-RPC error coded STORE_UNAVAILABLE, and both work again after', async () => {
    handle = await serveHttp(gatedRegistry, { store, onError: (e) => reported.push(e) });
    const client = await connect(handle.url);
    expect(textOf(await note(client, 'before'))).toEqual({ notes: ['before'] });
    await outage(server(), async () => {
      await expectCallUnavailable(client);
      const error = (await client.listTools().catch((e: unknown) => e)) as McpError;
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32000, data: { code: 'STORE_UNAVAILABLE' } });
    });
    expect(textOf(await note(client, 'after'))).toEqual({ notes: ['before', 'after'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['grant', 'note', 'slow']);
  }, 60_000);

  it('stdio: a call answers STORE_UNAVAILABLE, tools/list a JSON-RPC error coded STORE_UNAVAILABLE, and both work again after', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-r', 'ts-node/register/transpile-only', WORKER, JSON.stringify(args())],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'outage-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    expect(textOf(await note(client, 'before'))).toEqual({ notes: ['before'] });
    await outage(server(), async () => {
      await expectCallUnavailable(client);
      const error = (await client.listTools().catch((e: unknown) => e)) as McpError;
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32000, data: { code: 'STORE_UNAVAILABLE' } });
    });
    expect(textOf(await note(client, 'after'))).toEqual({ notes: ['before', 'after'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['grant', 'note', 'slow']);
  }, 60_000);
});
