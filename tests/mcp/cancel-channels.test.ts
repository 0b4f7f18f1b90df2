/**
 * Stateless MCP servers in this process (no auth), each answering what a balancer sends it: a
 * cancellation that lands on the server not running the call still reaches it through the
 * store's channels (in process for the in-memory store; a table polled with PRAGMA data_version for SQLite), and a channel backend that
 * is down costs only the cancellation: calls go on, each server reports it (onError), nothing throws.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore, StoreChannels } from '../../src/stores/store';
import { observed, progressRegistry, type Observation } from '../support/progress-tools';
import { startRedis, type RedisServer } from '../support/servers';

const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until a tool of this process recorded `phase` for `label`; the test's timeout bounds it. */
async function waitFor(label: string, phase: Observation['phase']): Promise<Observation> {
  for (;;) {
    const found = observed.find((o) => o.label === label && o.phase === phase);
    if (found) return found;
    await sleep(10);
  }
}

/** An SDK client whose cancellations go to server B and everything else to server A. */
async function routedClient(a: HttpHandle, b: HttpHandle): Promise<{ client: Client; cancelsToB: () => number }> {
  let cancels = 0;
  const routed: typeof fetch = (input, init) => {
    const message = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    const toB = message?.method === 'notifications/cancelled';
    if (toB) cancels++;
    return fetch(toB ? b.url : a.url, init);
  };
  const client = new Client({ name: 'routed', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: routed }));
  return { client, cancelsToB: () => cancels };
}

/** Starts a call of `wait`, cancels it with `reason` once it runs, and resolves once the client gave up on it. */
async function startAndCancel(client: Client, label: string, reason: string): Promise<void> {
  const controller = new AbortController();
  const pending = client.callTool({ name: 'wait', arguments: { label } }, undefined, { signal: controller.signal });
  pending.catch(() => undefined);
  await waitFor(label, 'started');
  controller.abort(reason);
  await expect(pending).rejects.toThrow();
}

describe.each([
  ['in-memory', () => new InMemoryStore()],
  ['SQLite', () => new SqliteStore({ path: ':memory:' })],
])('stateless MCP: two servers on one %s store in one process', (kind, makeStore) => {
  it('a cancellation landing on the other server aborts the call', async () => {
    const store = makeStore();
    const [a, b] = await Promise.all([
      serveHttp(progressRegistry, { stateless: true, store }),
      serveHttp(progressRegistry, { stateless: true, store }),
    ]);
    const { client, cancelsToB } = await routedClient(a, b);
    try {
      const label = `${kind}-local-${Date.now()}`;
      await startAndCancel(client, label, 'cancelled on B');
      expect(cancelsToB()).toBe(1);
      expect(await waitFor(label, 'ended')).toMatchObject({ aborted: true, reason: 'cancelled on B' });
      expect(textOf((await client.callTool({ name: 'count', arguments: { steps: 1 } })) as CallToolResult)).toEqual({ done: 1 });
    } finally {
      await client.close();
      await Promise.all([a.close(), b.close()]);
      await store.close();
    }
  });
});

/** Sessions in `store`, messages through `channels` (another store's): a channel backend that can fail on its own. */
function withChannels(store: SessionStore, channels: StoreChannels): SessionStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'channels') return channels;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('stateless MCP when the store that carries cancellations is down (Redis)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await redis?.destroy();
  });

  it('calls go on, the cancellation is lost with a diagnostic on both servers, and it is delivered again once Redis is back', async () => {
    const sessions = new InMemoryStore();
    const buses = [new RedisStore({ url: redis.url }), new RedisStore({ url: redis.url })];
    const reported: { A: unknown[]; B: unknown[] } = { A: [], B: [] };
    const a = await serveHttp(progressRegistry, {
      stateless: true,
      store: withChannels(sessions, buses[0].channels),
      onError: (e) => reported.A.push(e),
    });
    const b = await serveHttp(progressRegistry, {
      stateless: true,
      store: withChannels(sessions, buses[1].channels),
      onError: (e) => reported.B.push(e),
    });
    const { client } = await routedClient(a, b);
    try {
      await redis.stop();
      const label = `outage-${Date.now()}`;
      await startAndCancel(client, label, 'lost');
      // B could not pass it on; A lost its subscription: both say so, with the store's error code.
      await waitForReport(reported.B, /did not reach other processes/);
      await waitForReport(reported.A, /do not reach calls running here until the store is back/);
      for (const error of [...reported.A, ...reported.B]) expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      // The call still runs (nothing reached it), and the servers keep serving.
      expect(observed.filter((o) => o.label === label && o.phase === 'ended')).toEqual([]);
      expect(textOf((await client.callTool({ name: 'count', arguments: { steps: 2 } })) as CallToolResult)).toEqual({ done: 2 });

      // Redis back: both servers subscribe again by themselves, and the next cancellation gets through.
      await redis.start();
      const raw = new (await import('ioredis')).default(redis.url);
      try {
        const subscribed = async () => Number(((await raw.pubsub('NUMSUB', 'toolwright:channel:mcp-cancel')) as [string, number])[1]);
        while ((await subscribed()) < 2) await sleep(20);
      } finally {
        raw.disconnect();
      }
      const next = `${label}-after`;
      await startAndCancel(client, next, 'after the outage');
      expect(await waitFor(next, 'ended')).toMatchObject({ aborted: true, reason: 'after the outage' });
    } finally {
      await client.close();
      await Promise.all([a.close(), b.close()]);
      await Promise.all(buses.map((s) => s.close()));
    }
  }, 60_000);
});

async function waitForReport(reports: unknown[], pattern: RegExp): Promise<void> {
  while (!reports.some((e) => pattern.test(String((e as Error).message)))) await sleep(10);
}
