/** A stdio MCP server process on the gated tools and a Redis or PostgreSQL store (args: OutageStoreArgs as JSON). */
import { serveStdio } from '../../src/mcp';
import { gatedRegistry, openOutageStore, type OutageStoreArgs } from './outage-mcp';

const store = openOutageStore(JSON.parse(process.argv[2]) as OutageStoreArgs);
serveStdio(gatedRegistry, { name: 'outage-stdio', store, onError: () => undefined }).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
