/**
 * One MCP server process for the stateless multi-process test: serves the fixture tools over
 * Streamable HTTP with `stateless: true` on a shared Redis, PostgreSQL or SQLite (one file) store, prints
 * `url <url>` once listening, and stops when its stdin closes.
 */
import { serveHttp, tokenAuth, type McpIdentity } from '../../src/mcp';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import { registry } from '../fixtures/toolwright.config';
import { featureRegistry } from './feature-fixtures';
import { limitedRegistry } from './limited-tools';
import { progressRegistry } from './progress-tools';
import { taskRegistry } from './task-tools';

export interface McpWorkerArgs {
  kind: 'redis' | 'postgres' | 'sqlite';
  /** A URL (Redis), a connection string (PostgreSQL) or a file (SQLite). */
  target: string;
  /** `progress`: the waiting tools of tests/support/progress-tools.ts; `features`: feature-fixtures.ts; `tasks`: task-tools.ts (default: the fixture tools). */
  tools?: 'fixture' | 'progress' | 'features' | 'limited' | 'tasks';
  /** Bearer token → identity: serve with `auth: tokenAuth(tokens)`. */
  tokens?: Record<string, McpIdentity>;
  /** Where tests/support/task-tools.ts writes its traces. */
  traces?: string;
  /** The tasks' lease renewal interval (TOOLWRIGHT_TASK_HEARTBEAT_MS), short so a test sees a lease run out. */
  heartbeatMs?: number;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as McpWorkerArgs;
  if (args.traces) process.env.TOOLWRIGHT_TASK_TRACES = args.traces;
  if (args.heartbeatMs) process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS = String(args.heartbeatMs);
  const store: RedisStore | SqliteStore | PostgresStore =
    args.kind === 'redis'
      ? new RedisStore({ url: args.target })
      : args.kind === 'sqlite'
        ? new SqliteStore({ path: args.target })
        : new PostgresStore({ connectionString: args.target });
  const tools =
    args.tools === 'progress'
      ? progressRegistry
      : args.tools === 'features'
        ? featureRegistry()
        : args.tools === 'limited'
          ? limitedRegistry(store.rateCounters('mcp'))
          : args.tools === 'tasks'
            ? taskRegistry
            : registry;
  const auth = args.tokens ? tokenAuth(args.tokens) : undefined;
  const handle = await serveHttp(tools, { stateless: true, store, auth, name: `worker-${process.pid}` });
  process.stdout.write(`url ${handle.url}\n`);
  process.stdin.resume();
  await new Promise((done) => process.stdin.once('end', done));
  await handle.close();
  await store.close();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
