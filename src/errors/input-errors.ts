import { encodeToolError, ToolwrightError, type FieldError } from './errors';

/**
 * A tool asked for input mid-call (`context.elicit`, `elicitUrl`, `sample`) and no one can answer
 * it: the surface has no person or model to ask, or its client did not declare the capability.
 * Unless the tool catches it, the model sees it as the tool's error.
 */
export class InputUnavailableError extends ToolwrightError {
  constructor(
    /** What was asked: a form, a URL to open, or a completion from the client's model. */
    readonly kind: 'form' | 'url' | 'sampling',
    reason: string,
  ) {
    super('INPUT_UNAVAILABLE', `${INPUT_NAMES[kind]} cannot be answered here: ${reason}.`, { captureStack: false });
  }
}

const INPUT_NAMES = {
  form: 'This tool asked the user for input, which',
  url: 'This tool asked the user to open a URL, which',
  sampling: "This tool asked the client's model for a completion, which",
} as const;

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
