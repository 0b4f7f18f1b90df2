/** A stdio MCP server process serving tests/support/hostile-tools.ts, for raw JSON-RPC lines. Stops when stdin closes. */
import { serveStdio } from '../../src/mcp';
import { hostileRegistry } from './hostile-tools';

serveStdio(hostileRegistry, { name: 'hostile-stdio' }).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
