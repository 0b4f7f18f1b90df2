/**
 * `context.log` over MCP (`notifications/message`), with the official SDK client as the peer, on
 * every transport: stdio (the built CLI's `toolwright mcp` as a real process), stateful Streamable
 * HTTP, and stateless Streamable HTTP with two serveHttp instances on one real Redis (the level set
 * through one instance governs a call the other one serves). The tools are one CommonJS module
 * written to a temp dir, loaded by the CLI (--module) and in process alike, so every surface runs
 * the same tools.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type CallToolResult,
  type LoggingLevel,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../../src';
import { createMcpServer, serveHttp, type HttpHandle } from '../../src/mcp';
import { RedisStore } from '../../src/stores/redis.store';
import { buildCli, ROOT } from '../cli/build-cli';
import { failingSaves } from '../support/failing-saves';
import { writeLoggingTools } from '../support/logging-tools';
import { startRedis, type RedisServer } from '../support/servers';

type LogParams = LoggingMessageNotification['params'];
interface Entry {
  level: string;
  message: string;
  data?: unknown;
}

const DIR = mkdtempSync(join(tmpdir(), 'toolwright-logging-'));
const DROPPED = 'toolwright: this call logged more than 1000 messages; the rest are dropped.';

// In process: on the TypeScript sources (the module is what the CLI loads, on the CLI's own build).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module written at run time
const registry = (require(writeLoggingTools(DIR, join(ROOT, 'src/index.ts'))) as { registry: ToolRegistry }).registry;

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;

/** One HTTP POST the client made: its JSON-RPC method, where it went, how it was answered. */
interface Post {
  method: string | undefined;
  url: string;
  status: number;
  contentType: string | null;
  /** The `notifications/message` params in an SSE answer (read from a clone, once the stream ended). */
  streamed?: Promise<LogParams[]>;
}

/** The messages of an SSE body. */
function sseMessages(text: string): Array<{ method?: string; params?: unknown }> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter(Boolean)
    .map((data) => JSON.parse(data) as { method?: string; params?: unknown });
}

/** A fetch that sends each POST where `route` says and records it (an SSE answer's log notifications too). */
function recordingFetch(posts: Post[], route: (method: string | undefined, url: string) => string): typeof fetch {
  return async (input, init) => {
    if (init?.method !== 'POST') return fetch(input, init);
    // The SDK client POSTs one JSON-RPC message as a string body, to a URL or a string.
    const method = typeof init.body === 'string' ? (JSON.parse(init.body) as { method?: string }).method : undefined;
    const url = route(method, input instanceof URL ? input.href : typeof input === 'string' ? input : input.url);
    const response = await fetch(url, init);
    const post: Post = { method, url, status: response.status, contentType: response.headers.get('content-type') };
    if (post.contentType?.startsWith('text/event-stream')) {
      post.streamed = response
        .clone()
        .text()
        .then((text) =>
          sseMessages(text)
            .filter((m) => m.method === 'notifications/message')
            .map((m) => m.params as LogParams),
        );
    }
    posts.push(post);
    return response;
  };
}

interface Session {
  client: Client;
  /** Every `notifications/message` the client got, in order. */
  logs: LogParams[];
  /** HTTP only: the POSTs the client made. */
  posts: Post[];
}

interface Surface {
  http: boolean;
  connect(): Promise<Session>;
}

function watched(client: Client, posts: Post[] = []): Session {
  const logs: LogParams[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  return { client, logs, posts };
}

/** Calls a tool, then pings: the client has handled every notification sent before the ping was answered. */
async function call(session: Session, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = (await session.client.callTool({ name, arguments: args })) as CallToolResult;
  await session.client.ping();
  return result;
}
const log = (session: Session, entries: Entry[], more: { times?: number; numbered?: boolean } = {}) =>
  call(session, 'log', { entries, ...more });

/** The last tools/call POST (HTTP surfaces). */
const lastCall = (session: Session): Post => session.posts.filter((p) => p.method === 'tools/call').at(-1)!;

const EVERY_LEVEL: Entry[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].map((level) => ({
  level,
  message: `at ${level}`,
}));

let redis: RedisServer;
const handles: HttpHandle[] = [];
const stores: RedisStore[] = [];
const clients: Client[] = [];
/** What the stateless instances reported (store outages). */
const reported: unknown[] = [];
/** Instance A's next save fails as a store gone away would (its loads still work). */
let failNextSaveOnA: () => void;
/** The URLs of the last stateless pair started: [A, B]. */
let statelessUrls: string[];
let cliMain: string;
/** The tools module for the CLI, on the CLI's own compiled toolwright (as a user's module imports the installed package). */
let cliModule: string;

beforeAll(async () => {
  cliMain = buildCli().main;
  cliModule = writeLoggingTools(DIR, join(dirname(cliMain), '..', 'index.js'), 'logging-tools.cli.js');
  redis = await startRedis();
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(handles.map((h) => h.close()));
  await Promise.all(stores.map((s) => s.close()));
  await redis?.destroy();
});

const surfaces: Array<[string, () => Promise<Surface>]> = [
  [
    'stdio (the built CLI: toolwright mcp --module)',
    async () => ({
      http: false,
      connect: async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliMain, 'mcp', '--module', cliModule, '--name', 'logging-stdio'],
          cwd: ROOT,
          stderr: 'pipe',
        });
        const client = new Client({ name: 'logging-stdio', version: '1.0.0' });
        const session = watched(client);
        await client.connect(transport);
        clients.push(client);
        return session;
      },
    }),
  ],
  [
    'stateful Streamable HTTP (serveHttp)',
    async () => {
      const handle = await serveHttp(registry, { name: 'logging-stateful', onError: () => undefined });
      handles.push(handle);
      return {
        http: true,
        connect: async () => {
          const posts: Post[] = [];
          const client = new Client({ name: 'logging-stateful', version: '1.0.0' });
          const session = watched(client, posts);
          await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), { fetch: recordingFetch(posts, (_m, url) => url) }));
          clients.push(client);
          return session;
        },
      };
    },
  ],
  [
    'stateless Streamable HTTP (two serveHttp instances on one Redis: setLevel through A, tools/call through B)',
    async () => {
      const saves = failingSaves(new RedisStore({ url: redis.url, commandTimeoutMs: 1000 }));
      failNextSaveOnA = saves.failNext;
      const storeB = new RedisStore({ url: redis.url, commandTimeoutMs: 1000 });
      stores.push(saves.store, storeB);
      const onError = (error: unknown) => void reported.push(error);
      const [a, b] = await Promise.all([
        serveHttp(registry, { stateless: true, store: saves.store, onError, name: 'logging-a' }),
        serveHttp(registry, { stateless: true, store: storeB, onError, name: 'logging-b' }),
      ]);
      handles.push(a, b);
      statelessUrls = [a.url, b.url];
      let turn = 0;
      // setLevel always reaches A and tools/call always B; everything else alternates (a round-robin balancer).
      const route = (method: string | undefined) =>
        method === 'logging/setLevel' ? a.url : method === 'tools/call' ? b.url : [a.url, b.url][turn++ % 2];
      return {
        http: true,
        connect: async () => {
          const posts: Post[] = [];
          const client = new Client({ name: 'logging-stateless', version: '1.0.0' });
          const session = watched(client, posts);
          await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: recordingFetch(posts, route) }));
          clients.push(client);
          return session;
        },
      };
    },
  ],
];

describe.each(surfaces)('MCP logging over %s', (_name, start) => {
  let surface: Surface;

  beforeAll(async () => {
    surface = await start();
  }, 60_000);

  it('declares the logging capability, and sends nothing while the client set no level', async () => {
    const session = await surface.connect();
    expect(session.client.getServerCapabilities()?.logging).toEqual({});
    const result = await log(session, EVERY_LEVEL);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toEqual({ logged: 8 });
    expect(session.logs).toEqual([]);
    if (surface.http) {
      const post = lastCall(session);
      if (post.streamed) expect(await post.streamed).toEqual([]);
    }
  });

  it('sends the logs at or above the level set, in order, with the tool as logger and the data as sent', async () => {
    const session = await surface.connect();
    await session.client.setLoggingLevel('warning');
    const result = await log(session, [
      { level: 'debug', message: 'd' },
      { level: 'info', message: 'i', data: { dropped: true } },
      { level: 'warning', message: 'w', data: { n: 1, list: ['x'] } },
      { level: 'error', message: 'e' },
    ]);
    expect(textOf(result)).toEqual({ logged: 4 });
    const expected: LogParams[] = [
      { level: 'warning', logger: 'log', data: { message: 'w', data: { n: 1, list: ['x'] } } },
      { level: 'error', logger: 'log', data: 'e' },
    ];
    expect(session.logs).toEqual(expected);
    if (surface.http) {
      // On the call's own stream (stateless: answered as SSE because the record has a level).
      const post = lastCall(session);
      expect(post.contentType).toMatch(/^text\/event-stream/);
      expect(await post.streamed).toEqual(expected);
    }
  });

  it('a later setLevel replaces the level, both ways', async () => {
    const session = await surface.connect();
    await session.client.setLoggingLevel('emergency');
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([{ level: 'emergency', logger: 'log', data: 'at emergency' }]);
    session.logs.length = 0;
    await session.client.setLoggingLevel('debug');
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual(EVERY_LEVEL.map(({ level, message }) => ({ level, logger: 'log', data: message })));
    session.logs.length = 0;
    await session.client.setLoggingLevel('critical');
    await log(session, EVERY_LEVEL);
    expect(session.logs.map((l) => l.level)).toEqual(['critical', 'alert', 'emergency']);
  });

  it('passes on 1000 logs of a call, then one warning that the rest are dropped', async () => {
    const session = await surface.connect();
    await session.client.setLoggingLevel('debug');
    const result = await log(session, [{ level: 'info', message: 'line' }], { times: 1200, numbered: true });
    expect(textOf(result)).toEqual({ logged: 1200 });
    expect(session.logs).toHaveLength(1001);
    expect(session.logs.slice(0, 1000)).toEqual(
      Array.from({ length: 1000 }, (_, i) => ({ level: 'info', logger: 'log', data: `line ${i}` })),
    );
    expect(session.logs[1000]).toEqual({ level: 'warning', logger: 'log', data: DROPPED });
    // The budget is per call: the next call logs again.
    session.logs.length = 0;
    await log(session, [{ level: 'notice', message: 'next call' }]);
    expect(session.logs).toEqual([{ level: 'notice', logger: 'log', data: 'next call' }]);
  });

  it('answers an invalid level with -32602 (Invalid params) and keeps the level it had', async () => {
    const session = await surface.connect();
    const refused = (await session.client.setLoggingLevel('verbose' as LoggingLevel).catch((e: unknown) => e)) as McpError;
    expect(refused).toBeInstanceOf(McpError);
    expect(refused.code).toBe(ErrorCode.InvalidParams);
    // Still none set: nothing is sent.
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([]);

    await session.client.setLoggingLevel('error');
    for (const level of ['loud', '', 'WARNING'])
      await expect(session.client.setLoggingLevel(level as LoggingLevel)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await log(session, EVERY_LEVEL);
    expect(session.logs.map((l) => l.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
  });

  it('fails a call whose tool logs an invalid level with TOOL_FAILED, after the logs before it', async () => {
    const session = await surface.connect();
    await session.client.setLoggingLevel('debug');
    const result = await log(session, [
      { level: 'info', message: 'before' },
      { level: 'loud', message: 'bad level' },
      { level: 'info', message: 'never' },
    ]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ status: 'error', code: 'TOOL_FAILED' });
    expect(session.logs).toEqual([{ level: 'info', logger: 'log', data: 'before' }]);
  });

  it('sends nothing a tool logs after its call ended', async () => {
    const session = await surface.connect();
    await session.client.setLoggingLevel('debug');
    expect(textOf(await call(session, 'stash'))).toEqual({ stashed: true });
    expect(textOf(await call(session, 'late'))).toEqual({ late: true });
    expect(session.logs).toEqual([
      { level: 'info', logger: 'stash', data: 'stashing' },
      { level: 'info', logger: 'late', data: 'late ran' },
    ]);
  });
});

describe('stateless Streamable HTTP: the level lives in the session record, in the shared store', () => {
  let session: Session;
  let surface: Surface;

  beforeAll(async () => {
    surface = await surfaces[2][1]();
  }, 60_000);

  beforeEach(async () => {
    session = await surface.connect();
    reported.length = 0;
  });

  it('setLevel is served by A and the call by B; the call is answered as JSON before a level is set, as SSE after', async () => {
    await log(session, EVERY_LEVEL);
    expect(lastCall(session).contentType).toMatch(/^application\/json/);
    await session.client.setLoggingLevel('alert');
    await log(session, EVERY_LEVEL);
    const setLevel = session.posts.find((p) => p.method === 'logging/setLevel')!;
    const served = lastCall(session);
    expect(setLevel.url).not.toBe(served.url);
    expect(served.contentType).toMatch(/^text\/event-stream/);
    expect(await served.streamed).toEqual([
      { level: 'alert', logger: 'log', data: 'at alert' },
      { level: 'emergency', logger: 'log', data: 'at emergency' },
    ]);
    expect(session.logs).toEqual(await served.streamed);
  });

  it('a store that fails the save of setLevel: the store-unavailable JSON-RPC error, and no level is kept', async () => {
    failNextSaveOnA();
    const error = (await session.client.setLoggingLevel('debug').catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32000, data: { code: 'STORE_UNAVAILABLE' } });
    expect(error.message).toContain('Session storage is unavailable; try again later.');
    expect(reported.some((e) => (e as { code?: string }).code === 'STORE_UNAVAILABLE')).toBe(true);
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([]);
    expect(lastCall(session).contentType).toMatch(/^application\/json/);
    // The store answers again: so does setLevel.
    await session.client.setLoggingLevel('emergency');
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([{ level: 'emergency', logger: 'log', data: 'at emergency' }]);
  });

  it('a Redis killed when setLevel arrives: 503 with the store-unavailable JSON-RPC error; no level is kept', async () => {
    await redis.kill();
    try {
      await expect(session.client.setLoggingLevel('debug')).rejects.toThrow(/STORE_UNAVAILABLE/);
    } finally {
      await redis.start();
    }
    const refused = session.posts.filter((p) => p.method === 'logging/setLevel').at(-1)!;
    expect(refused.status).toBe(503);
    expect(reported.some((e) => (e as { code?: string }).code === 'STORE_UNAVAILABLE')).toBe(true);
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([]);
    await session.client.setLoggingLevel('emergency');
    await log(session, EVERY_LEVEL);
    expect(session.logs).toEqual([{ level: 'emergency', logger: 'log', data: 'at emergency' }]);
  }, 60_000);

  it('the 503 body is the store-unavailable JSON-RPC error with Retry-After', async () => {
    // Read as a raw request: the SDK client reports it as a transport error with the body as text.
    const sessionId = (await rawInitialize(statelessUrls[0])).sessionId;
    await redis.kill();
    let response: Response;
    try {
      response = await rawPost(
        statelessUrls[0],
        { jsonrpc: '2.0', id: 9, method: 'logging/setLevel', params: { level: 'info' } },
        sessionId,
      );
    } finally {
      await redis.start();
    }
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32000, message: 'Session storage is unavailable; try again later.', data: { code: 'STORE_UNAVAILABLE' } },
    });
  }, 60_000);
});

const rawHeaders = (sessionId?: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});
const rawPost = (url: string, body: object, sessionId?: string) =>
  fetch(url, { method: 'POST', headers: rawHeaders(sessionId), body: JSON.stringify(body) });
async function rawInitialize(url: string): Promise<{ sessionId: string }> {
  const response = await rawPost(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await response.text();
  return { sessionId: response.headers.get('mcp-session-id')! };
}

describe('McpServerOptions.logLevel: the level before the client sets one', () => {
  it('in process (createMcpServer): sends at the option, until setLevel replaces it', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(registry, { logLevel: 'error', onError: () => undefined }).connect(serverSide);
    const session = watched(new Client({ name: 'option', version: '1.0.0' }));
    await session.client.connect(clientSide);
    try {
      await log(session, EVERY_LEVEL);
      expect(session.logs.map((l) => l.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
      session.logs.length = 0;
      await session.client.setLoggingLevel('notice');
      await log(session, EVERY_LEVEL);
      expect(session.logs.map((l) => l.level)).toEqual(['notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
    } finally {
      await session.client.close();
    }
  });

  it.each([
    ['stateful', false],
    ['stateless', true],
  ])('serveHttp (%s): a session whose client set no level gets the logs at the option', async (_mode, stateless) => {
    const store = new RedisStore({ url: redis.url });
    const handle = await serveHttp(registry, { stateless, store, logLevel: 'critical', onError: () => undefined });
    const client = new Client({ name: 'option-http', version: '1.0.0' });
    const session = watched(client);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      await log(session, EVERY_LEVEL);
      expect(session.logs.map((l) => l.level)).toEqual(['critical', 'alert', 'emergency']);
    } finally {
      await client.close();
      await handle.close();
      await store.close();
    }
  });
});
