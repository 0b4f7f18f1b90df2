import type { Command } from 'commander';
import { CliError, EXIT } from '../errors';
import { loadRegistry } from '../load-registry';
import { moduleOption, parseList, parseListen, VERSION, type CliIO, type McpOptions } from '../options';

/** `toolwright mcp`: the registry as an MCP server, on stdio or Streamable HTTP. */
export function addMcpCommand(program: Command, io: CliIO): void {
  program
    .command('mcp')
    .description('Serve the tools as an MCP server (stdio by default)')
    .addOption(moduleOption())
    .option('--http <[host:]port>', 'serve Streamable HTTP instead, e.g. :3000 or 127.0.0.1:3000', parseListen)
    .option('--path <path>', 'HTTP endpoint path', '/mcp')
    .option('--token <token>', 'HTTP: require "Authorization: Bearer <token>" (or set TOOLWRIGHT_MCP_TOKEN)')
    .option('--user <id>', 'userId the calls run as', undefined)
    .option('--tenant <id>', 'tenantId the calls run as')
    .option('--name <name>', 'server name announced to clients', 'toolwright')
    .option('--allowed-hosts <hosts>', 'HTTP: comma-separated Host headers accepted, e.g. mcp.example.com:443', parseList)
    .option('--allowed-origins <origins>', 'HTTP: comma-separated Origin headers accepted, e.g. https://app.example.com', parseList)
    .option('--allow-unauthenticated', 'HTTP: serve a non-loopback address without a token (needs --allowed-hosts and --allowed-origins)')
    .action(async (opts: McpOptions) => {
      const registry = await loadRegistry(opts.module, io.cwd);
      const mcp = await loadMcp();
      const identity = { userId: opts.user ?? 'anonymous', tenantId: opts.tenant };
      const base = { name: opts.name, version: VERSION, identity };
      const stop = io.stopSignal ?? untilSignal();
      if (!opts.http) {
        const handle = await mcp.serveStdio(registry, base);
        await Promise.race([stop, new Promise<void>((resolve) => process.stdin.once('end', resolve))]);
        await handle.close();
        return;
      }
      const token = opts.token ?? process.env.TOOLWRIGHT_MCP_TOKEN;
      const handle = await mcp.serveHttp(registry, {
        ...base,
        host: opts.http.host,
        port: opts.http.port,
        path: opts.path,
        auth: token ? mcp.tokenAuth({ [token]: identity }) : undefined,
        allowedHosts: opts.allowedHosts,
        allowedOrigins: opts.allowedOrigins,
        allowUnauthenticated: opts.allowUnauthenticated,
      });
      io.stderr(`toolwright: MCP server (Streamable HTTP) listening on ${handle.url}${token ? ' (bearer token required)' : ''}\n`);
      await stop;
      await handle.close();
    });
}

async function loadMcp(): Promise<typeof import('../../mcp')> {
  try {
    return await import('../../mcp');
  } catch (error) {
    if (
      (error as { code?: string }).code === 'MODULE_NOT_FOUND' &&
      String((error as Error).message).includes('@modelcontextprotocol/sdk')
    ) {
      throw new CliError('PEER_MISSING', '`toolwright mcp` needs the MCP SDK: npm install @modelcontextprotocol/sdk', EXIT.MODULE, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Resolves on Ctrl-C or a termination signal: when a long-running command should stop. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
