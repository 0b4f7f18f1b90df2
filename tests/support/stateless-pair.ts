/**
 * Two stateless MCP server processes on one real store (Redis or PostgreSQL, started for the
 * suite), and SDK clients whose requests alternate between them as a round-robin balancer would.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker, stopWorker } from './mcp-processes';
import type { McpWorkerArgs } from './mcp-worker';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from './servers';

export interface StatelessPair {
  /** The two processes' MCP URLs, once started. */
  urls: string[];
  /** A connected client with this bearer token; `served` lists the URL each request went to. */
  connect(token: string): Promise<{ client: Client; served: string[] }>;
}

/** Registers the jest hooks that start the store and both processes, and stop them. */
export function useStatelessPair(kind: 'redis' | 'postgres', args: Omit<McpWorkerArgs, 'kind' | 'target'>): StatelessPair {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  const workers: ChildProcess[] = [];
  const pair: StatelessPair = {
    urls: [],
    async connect(token) {
      const served: string[] = [];
      let turn = 0;
      const alternate: typeof fetch = (_input, init) => {
        const url = pair.urls[turn++ % pair.urls.length];
        served.push(url);
        return fetch(url, init);
      };
      const transport = new StreamableHTTPClientTransport(new URL(pair.urls[0]), {
        fetch: alternate,
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: 'alternating', version: '1.0.0' });
      await client.connect(transport);
      return { client, served };
    },
  };
  beforeAll(async () => {
    const target = kind === 'redis' ? (redis = await startRedis()).url : (postgres = await startPostgres()).connectionString;
    const started = await Promise.all([0, 1].map(() => startWorker({ kind, target, ...args })));
    workers.push(...started.map((s) => s.child));
    pair.urls = started.map((s) => s.url);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
    await redis?.destroy();
    await postgres?.destroy();
  });
  return pair;
}
