/**
 * npm run mcp:everything -- --port <n>: the MCP conformance suite's "everything" server, as far
 * as toolwright's public API can write it, on Streamable HTTP at http://127.0.0.1:<n>/mcp.
 */
import '../support-desk/toolwright-alias';
import 'reflect-metadata';
import { ToolRegistry } from 'toolwright';
import { serveHttp } from 'toolwright/mcp';
import { INPUT_PROMPTS, INPUT_TOOLS } from './input-tools';
import { EVERYTHING_PROMPTS } from './prompts';
import { EVERYTHING_RESOURCES } from './resources';
import { TASK_TOOLS } from './task-tools';
import { EVERYTHING_TOOLS } from './tools';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--port');
  const port = at >= 0 ? Number(process.argv[at + 1]) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('usage: --port <n>');
  const registry = ToolRegistry.build({
    tools: [...EVERYTHING_TOOLS, ...TASK_TOOLS, ...INPUT_TOOLS],
    resources: EVERYTHING_RESOURCES,
    prompts: [...EVERYTHING_PROMPTS, ...INPUT_PROMPTS],
  });
  const handle = await serveHttp(registry, { port, name: 'toolwright-everything', version: '0.1.0' });
  console.log(handle.url);
  const stop = () => void handle.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
