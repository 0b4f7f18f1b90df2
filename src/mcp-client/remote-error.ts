import { ToolwrightError } from '../errors/errors';

/** Why a remote call failed, for the app (the model reads the message). */
export type RemoteFailure = 'unavailable' | 'closed' | 'timeout' | 'protocol' | 'too_large' | 'tool_error';

/**
 * A remote MCP server's failure (code REMOTE_FAILED). `ToolRegistry.buildAsync` throws it for a
 * server it cannot reach; a call answers it as TOOL_FAILED with this message shown to the model
 * (remote tools expose their errors), and the app finds it as the ToolExecutionError's `cause`.
 */
export class RemoteToolError extends ToolwrightError {
  /** Trying again cannot help (the server refused the credentials): no more connection attempts. */
  readonly final: boolean;

  constructor(
    readonly reason: RemoteFailure,
    message: string,
    options?: { cause?: unknown; final?: boolean },
  ) {
    super('REMOTE_FAILED', message, options);
    this.final = options?.final === true;
  }
}
