import { Option } from 'commander';
import { CliError, EXIT } from './errors';

/** What every command prints through (the program escapes control characters before it gets here). */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** Resolves when a long-running command (mcp) should stop; default: SIGINT/SIGTERM. */
  stopSignal?: Promise<void>;
}

export const moduleOption = () =>
  new Option('-m, --module <path>', 'module exporting the registry (default: ./toolwright.config.ts or .js)');

export const VERSION = readVersion();

export interface Listen {
  host: string;
  port: number;
}

export interface McpOptions {
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

export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

export function parseListen(value: string): Listen {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new CliError('INVALID_OPTION', `--http takes [host:]port, e.g. :3000 or 127.0.0.1:3000 (got "${value}").`, EXIT.USAGE);
  }
  return { host: match[1] ? match[1].replace(/^\[|\]$/g, '') : '127.0.0.1', port };
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new CliError('INVALID_OPTION', `--timeout takes a positive number of milliseconds (got "${value}").`, EXIT.USAGE);
  return n;
}

function readVersion(): string {
  try {
    return (require('../../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** `context.log` on stderr as `[logger] level: message`; a message's further lines are indented, so none can pass for another `[logger]` line. */
export function stderrLog(io: CliIO, logger: string): (log: { level: string; message: string }) => void {
  return ({ level, message }) => io.stderr(`[${logger}] ${level}: ${message.replace(/\n/g, '\n  ')}\n`);
}
