import { encodeToolError, ToolwrightError } from './errors';

/**
 * A call over its tool's (or the registry's) rate limit or quota: refused before it ran, with
 * when to try again. Every surface answers it the same way; the model reads `retryAfter` seconds.
 */
export class RateLimitedError extends ToolwrightError {
  /** Whole seconds until the window that refused the call ends (at least 1), as HTTP's Retry-After. */
  readonly retryAfter: number;

  constructor(
    readonly toolName: string,
    /** Milliseconds until the window that refused the call ends. */
    readonly retryAfterMs: number,
    readonly limit: number,
    readonly windowMs: number,
  ) {
    const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super('RATE_LIMITED', `Tool "${toolName}" is over its limit of ${limit} calls per ${windowMs} ms; try again in ${retryAfter} s.`, {
      captureStack: false,
    });
    this.retryAfter = retryAfter;
  }

  override toToolResult(): string {
    return encodeToolError(this.code, this.message, undefined, undefined, { retryAfter: this.retryAfter });
  }
}
