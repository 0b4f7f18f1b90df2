import { Command, CommanderError, Option } from 'commander';
import { ToolInputError, ToolwrightError, type ErrorCode } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../metadata/json-schema';
import { toAnthropicTool, toGeminiFunctionDeclaration, toMcpTool, toOpenAITool } from '../schema/providers';
import { AgentContext, type ToolProgress } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import { CliError, EXIT } from './errors';
import { loadRegistry } from './load-registry';
import { scaffoldTool } from './scaffold';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** Resolves when a long-running command (mcp) should stop; default: SIGINT/SIGTERM. */
  stopSignal?: Promise<void>;
}

const FORMATS = ['text', 'json', 'openai', 'anthropic', 'gemini', 'mcp'] as const;
type Format = (typeof FORMATS)[number];

/** Codes of errors the caller made (fix the request), as opposed to the tool failing. */
const USAGE_CODES = new Set<ErrorCode>(['TOOL_NOT_FOUND', 'INVALID_JSON', 'INVALID_ARGUMENTS', 'APPROVAL_REQUIRED', 'INVALID_CONFIG']);

const VERSION = readVersion();

/** Runs `toolwright <argv>` and resolves with the exit code; never calls process.exit. */
export async function runCli(argv: readonly string[], terminal: CliIO): Promise<number> {
  // Everything printed passes through here: tool names, arguments, results and error texts come
  // from modules and tools, and must not be able to move the cursor, retitle or clear the terminal.
  const io: CliIO = {
    ...terminal,
    stdout: (text) => terminal.stdout(escapeControl(text)),
    stderr: (text) => terminal.stderr(escapeControl(text)),
  };
  let exitCode: number = EXIT.OK;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; everything else commander rejects is a usage error.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    return report(error, io);
  }
}

/** `[tool] 3/10 message`: one line per report (the total and message when the tool gave them). */
function formatProgress(tool: string, { progress, total, message }: ToolProgress): string {
  return `[${tool}] ${progress}${total === undefined ? '' : `/${total}`}${message ? ` ${message}` : ''}\n`;
}

function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('toolwright')
    .description('List, call and serve the tools of a toolwright registry.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run `toolwright --help` for usage)');
  const moduleOption = () => new Option('-m, --module <path>', 'module exporting the registry (default: ./toolwright.config.ts or .js)');

  program
    .command('list')
    .description('List the tools and their schemas')
    .addOption(moduleOption())
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--strict', 'with --format openai or anthropic: strict-mode schemas')
    .option('--user <id>', 'list what this userId may use')
    .option('--tenant <id>', 'list what this tenantId may use')
    .action(async (opts: { module?: string; format: Format; strict?: boolean; user?: string; tenant?: string }) => {
      const registry = await loadRegistry(opts.module, io.cwd);
      // The registry's gate decides what this caller sees, as on every other surface.
      const context = new AgentContext({ sessionId: 'cli', userId: opts.user, tenantId: opts.tenant });
      const names = new Set((await registry.visible(context)).map((t) => t.name));
      io.stdout(formatList(registry, opts.format, opts.strict === true, names));
    });

  program
    .command('call')
    .description('Run one tool call and print its JSON result')
    .argument('<tool>', 'tool name')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .addOption(moduleOption())
    .option('--user <id>', 'userId of the AgentContext and AgentMemory')
    .option('--tenant <id>', 'tenantId of the AgentContext')
    .option('--session <id>', 'sessionId of the AgentContext', 'cli')
    .option('--timeout <ms>', 'abort the call after this many milliseconds', parsePositiveInt)
    .option('--approve', 'you approve this call of a tool that needs a human decision')
    .action(
      async (
        tool: string,
        json: string,
        opts: { module?: string; user?: string; tenant?: string; session: string; timeout?: number; approve?: boolean },
      ) => {
        const registry = await loadRegistry(opts.module, io.cwd);
        const context = new AgentContext({ sessionId: opts.session, userId: opts.user, tenantId: opts.tenant });
        const memory = new AgentMemory({ agentName: 'cli', userId: opts.user ?? 'cli', tenantId: opts.tenant });
        const result = await registry.call(tool, json, context, memory, {
          timeoutMs: opts.timeout,
          toolCallId: 'cli',
          approved: opts.approve === true,
          // stdout stays the result alone; progress goes to stderr as it comes.
          onProgress: (p) => io.stderr(formatProgress(tool, p)),
        });
        io.stdout(`${result}\n`);
      },
    );

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

  const create = program.command('new').description('Scaffold new code');
  create
    .command('tool')
    .description('Scaffold a tool class, its input class and a passing test')
    .argument('<Name>', 'PascalCase name, e.g. LookupOrder')
    .option('--dir <dir>', 'directory for the tool', 'src/tools')
    .option('--test-dir <dir>', 'directory for the test', 'tests/tools')
    .option('--import <module>', 'module the files import toolwright from', 'toolwright')
    .option('--force', 'overwrite existing files')
    .action((name: string, opts: { dir: string; testDir: string; import: string; force?: boolean }) => {
      const result = scaffoldTool({ name, cwd: io.cwd, dir: opts.dir, testDir: opts.testDir, importFrom: opts.import, force: opts.force });
      io.stdout(`Created tool "${result.toolName}":\n${result.files.map((f) => `  ${f}\n`).join('')}`);
      setExit(EXIT.OK);
    });

  return program;
}

/** Prints an error the way a developer at a terminal needs it, and picks the exit code. */
function report(error: unknown, io: CliIO): number {
  if (error instanceof CliError) {
    io.stderr(`toolwright: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof ToolwrightError) {
    io.stderr(`toolwright: ${error.code}: ${error.message}\n`);
    if (error instanceof ToolInputError) {
      for (const e of error.errors) io.stderr(`  - ${e.path || '(arguments)'}: ${e.message} [${e.constraint}]\n`);
    }
    if (error.code === 'INVALID_JSON') io.stderr(`  Pass the arguments as one JSON object in single quotes, e.g. '{"a": 1}'.\n`);
    if (error.code === 'APPROVAL_REQUIRED')
      io.stderr('  Check the arguments, then run the same command with --approve to approve this call.\n');
    const cause = error.cause instanceof Error ? error.cause : undefined;
    if (error.code === 'TOOL_FAILED' && cause?.stack) io.stderr(`${indent(cause.stack)}\n`);
    return USAGE_CODES.has(error.code) ? EXIT.USAGE : EXIT.TOOL_FAILED;
  }
  io.stderr(`toolwright: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.TOOL_FAILED;
}

function formatList(registry: ToolRegistry, format: Format, strict: boolean, names: ReadonlySet<string>): string {
  const defs = registry.definitions().filter((d) => names.has(d.name));
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  switch (format) {
    case 'json':
      return json(defs);
    case 'openai':
      return json(defs.map((d) => toOpenAITool(d, { strict })));
    case 'anthropic':
      return json(defs.map((d) => toAnthropicTool(d, { strict })));
    case 'gemini':
      return json(defs.map(toGeminiFunctionDeclaration));
    case 'mcp':
      return json(defs.map(toMcpTool));
    case 'text':
      return defs.map((d) => describeTool(registry, d)).join('\n');
  }
}

function describeTool(registry: ToolRegistry, def: ToolDefinition): string {
  const hints = Object.entries(registry.describe(def.name).annotations ?? {})
    .filter(([key, value]) => value === true && key.endsWith('Hint'))
    .map(([key]) => key.replace(/Hint$/, ''));
  const lines = [`${def.name}${hints.length ? ` [${hints.join(', ')}]` : ''}`, `  ${def.description}`];
  const required = new Set(def.parameters.required ?? []);
  const properties = Object.entries(def.parameters.properties ?? {});
  if (properties.length === 0) lines.push('  (no parameters)');
  for (const [name, schema] of properties) {
    const type = Array.isArray(schema.type) ? schema.type.join('|') : (schema.type ?? (schema.enum ? 'enum' : 'any'));
    const description = schema.description ? `  ${schema.description}` : '';
    lines.push(`  - ${name}: ${type}${required.has(name) ? '' : ' (optional)'}${description}`);
  }
  if (def.outputSchema) lines.push('  returns: a declared output contract');
  return `${lines.join('\n')}\n`;
}

interface Listen {
  host: string;
  port: number;
}

interface McpOptions {
  module?: string;
  http?: Listen;
  path: string;
  token?: string;
  user?: string;
  tenant?: string;
  name: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  allowUnauthenticated?: boolean;
}

function parseList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

function parseListen(value: string): Listen {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new CliError('INVALID_OPTION', `--http takes [host:]port, e.g. :3000 or 127.0.0.1:3000 (got "${value}").`, EXIT.USAGE);
  }
  return { host: match[1] ? match[1].replace(/^\[|\]$/g, '') : '127.0.0.1', port };
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new CliError('INVALID_OPTION', `--timeout takes a positive number of milliseconds (got "${value}").`, EXIT.USAGE);
  return n;
}

async function loadMcp(): Promise<typeof import('../mcp')> {
  try {
    return await import('../mcp');
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

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/**
 * Makes control characters visible (`\u001b` → `\x1b`): C0 (except newline and tab), DEL, C1
 * and the bidirectional overrides that reorder what a terminal shows.
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function readVersion(): string {
  try {
    return (require('../../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
