import { ToolwrightError } from '../errors/errors';

/** Exit codes of `toolwright`: stable, so scripts can branch on them. */
export const EXIT = {
  OK: 0,
  /** The tool ran and failed: TOOL_FAILED, INVALID_OUTPUT, TOOL_TIMEOUT, ABORTED. */
  TOOL_FAILED: 1,
  /** The request was wrong: unknown tool, bad JSON, invalid arguments, a bad option or name. */
  USAGE: 2,
  /** The tools module is missing, failed to load, or exports no registry. */
  MODULE: 3,
  /** A file the command would write exists already. */
  CONFLICT: 4,
} as const;

export type CliErrorCode =
  | 'MODULE_NOT_FOUND'
  | 'MODULE_LOAD_FAILED'
  | 'NO_REGISTRY'
  | 'TYPESCRIPT_MISSING'
  | 'PEER_MISSING'
  | 'INVALID_OPTION'
  | 'INVALID_NAME'
  | 'FILE_EXISTS';

/** A CLI problem with a message that says how to fix it, and the exit code it maps to. */
export class CliError extends ToolwrightError {
  constructor(
    code: CliErrorCode,
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
