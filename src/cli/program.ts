import { Command, CommanderError } from 'commander';
import { ToolInputError, ToolwrightError, type ErrorCode } from '../errors/errors';
import { addCallCommand } from './commands/call';
import { addFeatureCommands } from './commands/features';
import { addListCommand } from './commands/list';
import { addMcpCommand } from './commands/mcp';
import { addNewCommand } from './commands/new';
import { addStudioCommand } from './commands/studio';
import { CliError, EXIT } from './errors';
import { closeLoadedRegistries } from './load-registry';
import { VERSION, type CliIO } from './options';

export type { CliIO } from './options';

/** Codes of errors the caller made (fix the request), as opposed to the tool failing. */
const USAGE_CODES = new Set<ErrorCode>([
  'TOOL_NOT_FOUND',
  'RESOURCE_NOT_FOUND',
  'PROMPT_NOT_FOUND',
  'INVALID_JSON',
  'INVALID_ARGUMENTS',
  'APPROVAL_REQUIRED',
  'INVALID_CONFIG',
]);

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
  } finally {
    // A registry with remote tools holds connections (a server subprocess): the command is done with them.
    await closeLoadedRegistries();
  }
}

function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('toolwright')
    .description('List, call and serve the tools of a toolwright registry.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run `toolwright --help` for usage)');
  addListCommand(program, io);
  addCallCommand(program, io);
  addFeatureCommands(program, io);
  addMcpCommand(program, io);
  addStudioCommand(program, io);
  addNewCommand(program, io, setExit);
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
