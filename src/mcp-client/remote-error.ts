/** Why a remote call failed, for the app (the model reads the message). */
export type RemoteFailure = 'unavailable' | 'closed' | 'timeout' | 'protocol' | 'too_large' | 'tool_error';

/**
 * A remote tool's failure. The registry answers it as TOOL_FAILED with this message shown to the
 * model (remote tools expose their errors); the app finds it as the ToolExecutionError's `cause`.
 */
export class RemoteToolError extends Error {
  override readonly name = 'RemoteToolError';
  constructor(
    readonly reason: RemoteFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
