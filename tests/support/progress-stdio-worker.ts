/**
 * A stdio MCP server process serving the progress tools (tests/support/progress-tools.ts), for
 * the SDK client's StdioClientTransport in tests/mcp/progress.test.ts. Stops when stdin closes.
 */
import { serveStdio } from '../../src/mcp';
import { progressRegistry } from './progress-tools';

serveStdio(progressRegistry, { name: 'progress-stdio' }).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
