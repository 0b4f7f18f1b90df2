import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'pg';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';
import { startWorker, stopWorker } from '../support/mcp-processes';

describe.each([
  ['Redis', 'redis' as const],
  ['PostgreSQL', 'postgres' as const],
])('stateless MCP over HTTP: two server processes on one %s store, one SDK client alternating', (_name, kind) => {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let target: string;
  const workers: ChildProcess[] = [];
  let urls: string[];

  beforeAll(async () => {
    if (kind === 'redis') {
      redis = await startRedis();
      target = redis.url;
    } else {
      postgres = await startPostgres();
      target = postgres.connectionString;
    }
    const started = await Promise.all([startWorker({ kind, target }), startWorker({ kind, target })]);
    workers.push(...started.map((s) => s.child));
    urls = started.map((s) => s.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
    await redis?.destroy();
    await postgres?.destroy();
  });

  /** Everything the store holds (keys or rows). */
  async function residue(): Promise<number> {
    if (kind === 'redis') {
      const Redis = (await import('ioredis')).default;
      const raw = new Redis(target);
      try {
        return await raw.dbsize();
      } finally {
        raw.disconnect();
      }
    }
    const pool = new Pool({ connectionString: target });
    try {
      const tables = ['sessions', 'session_state', 'session_history', 'memories', 'memory_entries'];
      const { rows } = await pool.query(`SELECT ${tables.map((t) => `(SELECT count(*) FROM toolwright.${t})`).join(' + ')} AS n`);
      return Number(rows[0].n);
    } finally {
      await pool.end();
    }
  }

  it('serves every request of one session from either process, with one shared context, and leaves nothing after DELETE', async () => {
    const served: string[] = [];
    let turn = 0;
    // Each HTTP request goes to the next process in turn, as a round-robin load balancer would send it.
    const alternate: typeof fetch = (input, init) => {
      const url = urls[turn++ % urls.length];
      served.push(url);
      return fetch(url, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(urls[0]), { fetch: alternate });
    const client = new Client({ name: 'alternating', version: '1.0.0' });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeDefined();

    const results = [];
    for (const text of ['one', 'two', 'three', 'four']) {
      const result = (await client.callTool({ name: 'note', arguments: { text } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      results.push(JSON.parse((result.content[0] as { text: string }).text));
    }
    // Both processes answered, and each call saw what the calls before it (on the other process) wrote.
    expect(new Set(served)).toEqual(new Set(urls));
    expect(results.map((r) => r.notes)).toEqual([['one'], ['one', 'two'], ['one', 'two', 'three'], ['one', 'two', 'three', 'four']]);
    expect(results.map((r) => r.sessionId)).toEqual(Array(4).fill(sessionId));
    expect(results.map((r) => r.facts)).toEqual([1, 2, 3, 4]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add', 'note', 'explode']);
    expect(await residue()).toBeGreaterThan(0);

    // An unknown session id is refused by either process.
    for (const url of urls) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'not-a-session',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    }

    await transport.terminateSession();
    expect(await residue()).toBe(0);
    // The client forgot the session; the servers did too: the old id is refused everywhere.
    await expect(client.callTool({ name: 'note', arguments: { text: 'after' } })).rejects.toThrow(/no MCP session/);
    for (const url of urls) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    }
    await client.close();
  });
});
