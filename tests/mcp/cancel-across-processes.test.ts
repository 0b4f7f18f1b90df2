/**
 * Stateless MCP over HTTP with two real server processes on one Redis, PostgreSQL or SQLite store
 * (one file): a call runs on process A, the SDK client's `notifications/cancelled` for it lands on
 * process B, and the tool on A sees its `context.signal` fire (through the store's
 * PUBLISH/SUBSCRIBE, NOTIFY/LISTEN or SQLite's table of recent messages). Only the session (and principal) that made the call can cancel it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpIdentity } from '../../src/mcp';
import { startWorker, stopWorker, type McpWorker } from '../support/mcp-processes';
import type { Observation } from '../support/progress-tools';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';

const TOKENS: Record<string, McpIdentity> = { 'alice-token': { userId: 'alice' }, 'bob-token': { userId: 'bob' } };

const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sent {
  to: 'A' | 'B';
  method: string | undefined;
  id: unknown;
}

/** An SDK client whose cancellations go to process B and every other request to process A (as a balancer might send them). */
interface RoutedClient {
  client: Client;
  sessionId: string;
  token: string;
  sent: Sent[];
  /** Per tools/call request id: resolves with the HTTP status once process A has ended that response (body and all). */
  answered: Map<unknown, Promise<number>>;
}

describe.each([
  ['Redis', 'redis' as const],
  ['PostgreSQL', 'postgres' as const],
  ['SQLite', 'sqlite' as const],
])('stateless MCP: a cancellation that lands on another process (%s store, two server processes)', (_name, kind) => {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let dir: string | undefined;
  let workers: McpWorker[] = [];
  let urls: { A: string; B: string };
  const clients: Client[] = [];
  let labels = 0;

  beforeAll(async () => {
    let target: string;
    if (kind === 'redis') {
      redis = await startRedis();
      target = redis.url;
    } else if (kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'tw-cancel-'));
      target = join(dir, 'shared.db');
    } else {
      postgres = await startPostgres();
      target = postgres.connectionString;
    }
    const started = await Promise.all([0, 1].map(() => startWorker({ kind, target, tools: 'progress', tokens: TOKENS })));
    workers = started;
    urls = { A: started[0].url, B: started[1].url };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(workers.map((w) => stopWorker(w.child)));
    await redis?.destroy();
    await postgres?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function connect(token: string): Promise<RoutedClient> {
    const sent: Sent[] = [];
    const answered = new Map<unknown, Promise<number>>();
    const routed: typeof fetch = async (input, init) => {
      const message = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
      const to = message?.method === 'notifications/cancelled' ? 'B' : 'A';
      sent.push({ to, method: message?.method, id: message?.id });
      const response = await fetch(urls[to], init);
      if (message?.method === 'tools/call') {
        answered.set(
          message.id,
          response
            .clone()
            .text()
            .then(() => response.status),
        );
      }
      return response;
    };
    const transport = new StreamableHTTPClientTransport(new URL(urls.A), {
      fetch: routed,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: token, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, sessionId: transport.sessionId!, token, sent, answered };
  }

  /** What the waiting tools of process A saw for this label (asked through A itself). */
  const observations = async (client: Client, label: string): Promise<Observation[]> => {
    const result = (await client.callTool({ name: 'observed', arguments: {} })) as CallToolResult;
    return (textOf(result).observed as Observation[]).filter((o) => o.label === label);
  };
  /** Asks until the tool recorded `phase` (a cancellation travels asynchronously); the test's timeout bounds it. */
  const waitFor = async (client: Client, label: string, phase: Observation['phase']): Promise<Observation> => {
    for (;;) {
      const found = (await observations(client, label)).find((o) => o.phase === phase);
      if (found) return found;
      await sleep(20);
    }
  };
  const callIdOf = (routed: RoutedClient, before: number) =>
    routed.sent.slice(before).find((s) => s.method === 'tools/call' && s.to === 'A')!.id as number;

  afterEach(() => {
    // Nothing went to onError (stderr): no store outage, no lost cancellation, no failure.
    expect(workers.map((w) => w.stderr())).toEqual(['', '']);
  });

  /** A notification or request sent as is (no SDK client), to process B. */
  const postToB = (token: string, sessionId: string, body: object) =>
    fetch(urls.B, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': sessionId,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });

  it.each([
    ['asked for progress (answered as an SSE stream)', true],
    ['asked for no progress (answered as one JSON body)', false],
  ])('a call that %s: its tool on A sees the signal fire, and the call ends cleanly', async (_mode, streamed) => {
    const alice = await connect('alice-token');
    for (const tool of ['wait', 'wait_guarded']) {
      const label = `${kind}-${tool}-${++labels}`;
      const controller = new AbortController();
      const before = alice.sent.length;
      const pending = alice.client.callTool({ name: tool, arguments: { label } }, undefined, {
        signal: controller.signal,
        ...(streamed ? { onprogress: () => controller.abort('stopped from B') } : {}),
      });
      pending.catch(() => undefined);
      if (!streamed) {
        await waitFor(alice.client, label, 'started');
        controller.abort('stopped from B');
      }
      await expect(pending).rejects.toThrow();

      const ended = await waitFor(alice.client, label, 'ended');
      expect(ended).toMatchObject({ tool, hadSignal: true, aborted: true, reason: 'stopped from B' });
      // The call ran on A, its cancellation went to B.
      const id = callIdOf(alice, before);
      const cancels = alice.sent.slice(before).filter((s) => s.method === 'notifications/cancelled');
      expect(cancels).toEqual([{ to: 'B', method: 'notifications/cancelled', id: undefined }]);
      // A ended the call's HTTP response: no response body for a cancelled request, no stream left open.
      expect(await alice.answered.get(id)).toBe(streamed ? 200 : 202);
    }
    // The session goes on serving, on both processes.
    const after = (await alice.client.callTool({ name: 'count', arguments: { steps: 2 } })) as CallToolResult;
    expect(textOf(after)).toEqual({ done: 2 });
  });

  it("another session or principal cannot cancel the call by guessing its request id; the call's own session can", async () => {
    const alice = await connect('alice-token');
    const aliceAgain = await connect('alice-token');
    const bob = await connect('bob-token');
    expect(new Set([alice.sessionId, aliceAgain.sessionId, bob.sessionId]).size).toBe(3);

    const label = `${kind}-guarded-${++labels}`;
    const controller = new AbortController();
    const before = alice.sent.length;
    const pending = alice.client.callTool({ name: 'wait', arguments: { label } }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    await waitFor(alice.client, label, 'started');
    const requestId = callIdOf(alice, before);

    // The same request id in other sessions (the same user's other session; another user's): accepted, and nothing happens.
    for (const [who, token] of [
      [aliceAgain, 'alice-token'],
      [bob, 'bob-token'],
    ] as const) {
      const forged = await postToB(token, who.sessionId, {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: `forged by ${who.token}` },
      });
      expect(forged.status).toBe(202);
    }
    // Another principal presenting alice's session id is refused outright.
    const stolen = await postToB('bob-token', alice.sessionId, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: 'forged with a stolen session id' },
    });
    expect(stolen.status).toBe(404);

    // The forged cancellations were published before this one, on the same channel: had one been
    // delivered, the tool would have seen its reason (the first abort wins).
    controller.abort('alice stops');
    await expect(pending).rejects.toThrow();
    expect(await waitFor(alice.client, label, 'ended')).toMatchObject({ aborted: true, reason: 'alice stops' });
    expect(await alice.answered.get(requestId)).toBe(202);
  });

  it('a cancellation that reaches the other process before its call arrives: the call is answered at once and its tool does not keep running', async () => {
    const post = (url: string, body: object, sessionId?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: 'Bearer alice-token',
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post(urls.A, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const label = `${kind}-early-${++labels}`;
    const cancel = await postToB('alice-token', sessionId, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 41, reason: 'before it arrived' },
    });
    expect(cancel.status).toBe(202);
    const call = await post(
      urls.A,
      { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'wait', arguments: { label } } },
      sessionId,
    );
    // No response for a cancelled request; the HTTP request is not left waiting.
    expect(call.status).toBe(202);
    expect(await call.text()).toBe('');
    // Either the call never ran, or (had it arrived first) the cancellation aborted it.
    const observer = await connect('alice-token');
    const seen = await observations(observer.client, label);
    if (seen.length > 0)
      expect(await waitFor(observer.client, label, 'ended')).toMatchObject({ aborted: true, reason: 'before it arrived' });
  });
});
