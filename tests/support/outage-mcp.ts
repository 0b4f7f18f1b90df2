/**
 * For the MCP store-outage tests (tests/mcp/store-outage.test.ts): the hostile tools behind a gate
 * (so tools/list reads the session too), and the store a server process opens from its args.
 */
import { ToolRegistry } from '../../src';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import type { SessionStore } from '../../src/stores/store';
import { GrantTool, NoteTool, SlowTool } from './hostile-tools';

export interface OutageStoreArgs {
  kind: 'redis' | 'postgres';
  /** A Redis URL or a PostgreSQL connection string. */
  target: string;
}

/** Every tool visible to everyone, but through `authorize`: listing loads the caller's session. */
export const gatedRegistry = ToolRegistry.build({ tools: [GrantTool, NoteTool, SlowTool], authorize: () => true });

export function openOutageStore({ kind, target }: OutageStoreArgs): SessionStore {
  return kind === 'redis'
    ? new RedisStore({ url: target, commandTimeoutMs: 1000 })
    : new PostgresStore({ connectionString: target, statementTimeoutMs: 2000 });
}
