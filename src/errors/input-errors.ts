import { encodeToolError, ToolwrightError, type FieldError } from './errors';

/**
 * A tool asked for input mid-call (`context.elicit`, `elicitUrl`, `sample`) and no one can answer
 * it: the surface has no person or model to ask, or its client did not declare the capability.
 * Unless the tool catches it, the model sees it as the tool's error.
 */
export class InputUnavailableError extends ToolwrightError {
  constructor(
    /** What was asked: a form, a URL to open, a completion from the client's model, or the client's roots. */
    readonly kind: 'form' | 'url' | 'sampling' | 'roots',
    reason: string,
    /** The MCP client capability the client did not declare, when that is why (MCP 2026-07-28 answers -32021). */
    readonly missingCapability?: 'elicitation' | 'sampling' | 'roots',
  ) {
    super('INPUT_UNAVAILABLE', `${INPUT_NAMES[kind]} cannot be answered here: ${reason}.`, { captureStack: false });
  }
}

const INPUT_NAMES = {
  form: 'This tool asked the user for input, which',
  url: 'This tool asked the user to open a URL, which',
  sampling: "This tool asked the client's model for a completion, which",
  roots: 'This tool asked the client for its roots, which',
} as const;

/**
 * An MCP 2026-07-28 request came back with a `requestState` the server cannot trust: altered,
 * expired, signed by another server secret, or issued to another caller or another request.
 */
export class InvalidRequestStateError extends ToolwrightError {
  constructor(readonly reason: string) {
    super('INVALID_REQUEST_STATE', `Invalid requestState: ${reason}. Send the request again without inputResponses and requestState.`, {
      captureStack: false,
    });
  }
}

/** The person's answer to `context.elicit` breaks the input class: the tool never sees it. */
export class InvalidInputError extends ToolwrightError {
  constructor(
    /** The input class's name. */
    readonly form: string,
    readonly errors: readonly FieldError[],
    readonly omitted = 0,
  ) {
    const first = errors[0]?.message ?? 'invalid';
    super('INVALID_INPUT', `The user's answer to ${form} is invalid: ${first}${errors.length + omitted > 1 ? ' (and more)' : ''}.`, {
      captureStack: false,
    });
  }

  override toToolResult(): string {
    return encodeToolError(this.code, this.message, this.errors, this.omitted);
  }
}
