/**
 * One base error with a string `code`. Definition errors are raised by `ToolRegistry.build`;
 * call errors by `registry.call`; each call error knows the compact JSON a model may see.
 */
export class ToolwrightError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown; captureStack?: boolean }) {
    // Expected, model-correctable errors skip the stack trace: it always points into the
    // registry, and capturing it costs more than validating the call.
    const limit = Error.stackTraceLimit;
    if (options?.captureStack === false) Error.stackTraceLimit = 0;
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = limit;
    this.code = code;
    this.name = new.target.name;
  }

  /** The compact JSON a model may see: code and message, never a stack. */
  toToolResult(): string {
    return JSON.stringify({ status: 'error', code: this.code, message: this.message });
  }
}

/** A tool class or its decorators are wrong; raised at build time, names the class and the fix. */
export class ToolDefinitionError extends ToolwrightError {
  constructor(message: string) {
    super('INVALID_DEFINITION', message);
  }
}

export class ToolNotFoundError extends ToolwrightError {
  constructor(readonly toolName: string, readonly available: readonly string[] = []) {
    super(
      'TOOL_NOT_FOUND',
      `Tool "${toolName}" does not exist.` +
        (available.length ? ` Available tools: ${available.slice(0, 20).join(', ')}.` : ''),
      { captureStack: false },
    );
  }
}

export interface FieldError {
  /** `order_id`, `address.zip`, `tags[2]`; '' for the arguments as a whole. */
  path: string;
  message: string;
  /** The class-validator constraint name (`min`, `isString`, `isIn`, `whitelistValidation`…). */
  constraint: string;
}

/** Field errors listed in one answer (the rest are counted in `omitted`), and the longest path or message kept. */
const MAX_ERRORS = 20;
const MAX_TEXT = 300;

export class ToolInputError extends ToolwrightError {
  readonly errors: readonly FieldError[];
  /** Errors found but not listed: the answer a model sees stays small whatever the input. */
  readonly omitted: number;

  constructor(
    code: 'INVALID_JSON' | 'INVALID_ARGUMENTS',
    readonly toolName: string,
    errors: readonly FieldError[],
    message?: string,
    omitted = 0,
  ) {
    const kept = (errors.length > MAX_ERRORS ? breadthFirst(errors) : errors).slice(0, MAX_ERRORS).map(boundField);
    const left = omitted + errors.length - kept.length;
    super(code, message ?? `Invalid arguments for tool "${toolName}": ${summarize(kept, left)}`, { captureStack: false });
    this.errors = kept;
    this.omitted = left;
  }

  override toToolResult(): string {
    return JSON.stringify({ status: 'error', code: this.code, message: this.message, errors: this.errors, ...(this.omitted ? { omitted: this.omitted } : {}) });
  }
}

/** Every failing top-level property first, so that a cut list still names each one the model must fix. */
function breadthFirst(errors: readonly FieldError[]): FieldError[] {
  const first: FieldError[] = [];
  const rest: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const top = e.path.split(/[.[]/)[0];
    (seen.has(top) ? rest : first).push(e);
    seen.add(top);
  }
  return [...first, ...rest];
}

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

function boundField(e: FieldError): FieldError {
  return e.path.length > MAX_TEXT || e.message.length > MAX_TEXT ? { path: clip(e.path), constraint: clip(e.constraint), message: clip(e.message) } : e;
}

function summarize(errors: readonly FieldError[], omitted: number): string {
  if (errors.length === 0) return 'invalid';
  const more = errors.length - 1 + omitted;
  return more === 0 ? errors[0].message : `${errors[0].message} (and ${more} more)`;
}

export class ToolExecutionError extends ToolwrightError {
  constructor(
    readonly toolName: string,
    cause: unknown,
    /** When the tool opted in (`@Tool({ exposeErrors: true })`), the model may see the cause's message. */
    readonly expose = false,
  ) {
    super('TOOL_FAILED', `Tool "${toolName}" failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }

  override toToolResult(): string {
    const message =
      this.expose && this.cause instanceof Error ? this.cause.message : `Tool "${this.toolName}" failed unexpectedly.`;
    return JSON.stringify({ status: 'error', code: this.code, message });
  }
}

export class ToolOutputError extends ToolwrightError {
  constructor(readonly toolName: string, readonly errors: readonly FieldError[], detail?: string) {
    super(
      'INVALID_OUTPUT',
      `Tool "${toolName}" returned a result that breaks its output contract: ` +
        (detail ?? errors.map((e) => `${e.path || '(result)'} ${e.message}`).join('; ')),
    );
  }

  override toToolResult(): string {
    return JSON.stringify({ status: 'error', code: this.code, message: `Tool "${this.toolName}" returned an invalid result.` });
  }
}

export class ToolTimeoutError extends ToolwrightError {
  constructor(readonly toolName: string, readonly timeoutMs: number) {
    super('TOOL_TIMEOUT', `Tool "${toolName}" did not finish within ${timeoutMs} ms.`);
  }
}

/**
 * The tool needs a human decision before it runs and the caller brought none. Every surface
 * refuses the same way: the runner pauses, MCP asks through elicitation, the adapters use their
 * host's approval flow, the CLI wants `--approve`.
 */
export class ApprovalRequiredError extends ToolwrightError {
  constructor(readonly toolName: string) {
    super('APPROVAL_REQUIRED', `Tool "${toolName}" needs a human's approval before it runs.`, { captureStack: false });
  }
}

/** A store (SQLite, Redis, PostgreSQL) is down, timed out or refused a write; nothing was half-written. */
export class StoreUnavailableError extends ToolwrightError {
  constructor(readonly store: string, cause: unknown) {
    super('STORE_UNAVAILABLE', `${store} store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A model provider failed: HTTP error (429, 500…), malformed body, network. `retryable` for 429/5xx. */
export class ModelError extends ToolwrightError {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
    readonly retryable = false,
    cause?: unknown,
  ) {
    super('MODEL_FAILED', `${provider} model failed${status ? ` (HTTP ${status})` : ''}: ${message}`, { cause });
  }
}

/** The caller's AbortSignal fired (the run was cancelled) while a tool was running. */
export class ToolAbortedError extends ToolwrightError {
  constructor(readonly toolName: string, reason?: unknown) {
    super('ABORTED', `Tool "${toolName}" was cancelled${reason instanceof Error ? `: ${reason.message}` : ''}.`, { cause: reason });
  }
}

/**
 * A session, user, tenant or agent id that no store can keep exactly (empty, a lone surrogate, NUL,
 * longer than 512 UTF-8 bytes). Raised before any I/O, the same on every store: retrying cannot help.
 */
export class InvalidIdError extends ToolwrightError {
  constructor(readonly field: string, readonly reason: string) {
    super('INVALID_ID', `Invalid ${field}: ${reason}. Use a non-empty, well-formed string without NUL, at most 512 UTF-8 bytes.`);
  }
}

/**
 * Thrown from a tool's `execute` to ask the model to correct itself (pydantic-ai's `ModelRetry`):
 * the message goes back to the model as a model-correctable error (`MODEL_RETRY`), on every
 * surface, and the agent runner counts it in the tool's retry budget like invalid arguments.
 */
export class ModelRetryError extends ToolwrightError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MODEL_RETRY', message, { cause: options?.cause, captureStack: false });
  }
}

/**
 * A save was larger than the store can take (a value over the backend's size limit, or more
 * than JavaScript can serialize); says what was too large. Nothing was written.
 */
export class StoreLimitError extends ToolwrightError {
  constructor(readonly store: string, readonly what: string, cause?: unknown) {
    super('STORE_LIMIT', `${store} store cannot save ${what}${cause instanceof Error ? ` (${cause.message})` : ''}.`, { cause });
  }
}
