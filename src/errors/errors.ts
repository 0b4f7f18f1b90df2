/**
 * One base error with a string `code`. Definition errors are raised by `ToolRegistry.build`;
 * call errors by `registry.call`; each call error knows the compact JSON a model may see.
 */

/** Every `code` a ToolwrightError carries: one list, so a switch over codes is checked. */
export type ErrorCode =
  // Definitions and configuration (build time, constructors)
  | 'INVALID_DEFINITION'
  | 'INVALID_CONFIG'
  | 'PEER_MISSING'
  // Calls (model-correctable first)
  | 'TOOL_NOT_FOUND'
  | 'RESOURCE_NOT_FOUND'
  | 'PROMPT_NOT_FOUND'
  | 'INVALID_JSON'
  | 'INVALID_ARGUMENTS'
  | 'TOOL_FAILED'
  | 'INVALID_OUTPUT'
  | 'TOOL_TIMEOUT'
  | 'ABORTED'
  | 'MODEL_RETRY'
  | 'APPROVAL_REQUIRED'
  | 'RATE_LIMITED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'INVALID_PAYLOAD'
  | 'MEMORY_NOT_LOADED'
  // A remote MCP server could not be reached, or broke the call (RemoteToolError; a call answers it as TOOL_FAILED)
  | 'REMOTE_FAILED'
  // A tool asked the person or the client's model mid-call: no one could answer, or the answer broke the form
  | 'INPUT_UNAVAILABLE'
  | 'INVALID_INPUT'
  // An MCP 2026-07-28 client sent back a requestState the server cannot trust
  | 'INVALID_REQUEST_STATE'
  // Stores and models
  | 'STORE_UNAVAILABLE'
  | 'STORE_CORRUPT'
  | 'STORE_LIMIT'
  | 'INVALID_ID'
  | 'MODEL_FAILED'
  // Agent runs
  | 'RETRY_BUDGET_EXCEEDED'
  | 'MAX_TURNS_EXCEEDED'
  | 'RUN_ABORTED'
  | 'RUN_NOT_FOUND'
  | 'RUN_PAUSED'
  | 'INVALID_APPROVAL'
  | 'APPROVAL_ALREADY_DECIDED'
  | 'SESSION_FORBIDDEN'
  | 'RUN_CLAIMED'
  // An agent called as a tool (`agent.asTool`) paused for an approval: not yet carried up to the top run
  | 'CHILD_RUN_PAUSED'
  // A tool call refused before it ran: by a human (approval) or a beforeToolCall hook
  | 'REJECTED'
  | 'DENIED'
  // CLI
  | 'MODULE_NOT_FOUND'
  | 'MODULE_LOAD_FAILED'
  | 'NO_REGISTRY'
  | 'TYPESCRIPT_MISSING'
  | 'INVALID_OPTION'
  | 'INVALID_NAME'
  | 'FILE_EXISTS'
  // HTTP surfaces: a request the endpoint cannot serve (malformed, too large, unsupported), or refuses (401, 403)
  | 'INVALID_REQUEST'
  // HTTP surfaces: a client that stopped reading its response (the run it started is cancelled)
  | 'CLIENT_TOO_SLOW'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  // A failure that is not a ToolwrightError, as a surface reports it to a model or client
  | 'INTERNAL';

/**
 * The compact JSON a model (or an MCP client) sees for an error: `{ status: 'error', code,
 * message }`, plus per-field `errors` for invalid arguments, or what else the error carries
 * (`retryAfter`). The one place that shape is built.
 */
export function encodeToolError(
  code: ErrorCode,
  message: string,
  errors?: readonly FieldError[],
  omitted?: number,
  extra?: Readonly<Record<string, string | number>>,
): string {
  if (errors === undefined) return JSON.stringify({ status: 'error', code, message, ...extra });
  // `omitted`: how many field errors a bounded answer left out (see ToolInputError).
  return JSON.stringify(omitted ? { status: 'error', code, message, errors, omitted } : { status: 'error', code, message, errors });
}

/** The mark of toolwright's errors, shared by every copy of the package in a process (`Symbol.for`). */
const TOOLWRIGHT_ERROR = Symbol.for('toolwright.error');

export class ToolwrightError extends Error {
  readonly code: ErrorCode;

  /**
   * `x instanceof ToolwrightError` holds for a ToolwrightError of any copy of toolwright the
   * process loaded: a tools module the CLI loads may bring its own. Subclasses check as usual.
   */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    if ((this as unknown) !== ToolwrightError) return Function.prototype[Symbol.hasInstance].call(this, value);
    const marked = value as { [TOOLWRIGHT_ERROR]?: unknown; code?: unknown; toToolResult?: unknown } | null;
    return (
      value instanceof Error &&
      marked![TOOLWRIGHT_ERROR] === true &&
      typeof marked!.code === 'string' &&
      typeof marked!.toToolResult === 'function'
    );
  }

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; captureStack?: boolean }) {
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
    return encodeToolError(this.code, this.message);
  }
}
Object.defineProperty(ToolwrightError.prototype, TOOLWRIGHT_ERROR, { value: true });

/**
 * A configuration mistake: an option out of range, a missing optional dependency, a resolver
 * that returns the wrong thing. Raised where the configuration is read, with the fix.
 */
export class ToolwrightConfigError extends ToolwrightError {
  constructor(message: string, code: 'INVALID_CONFIG' | 'PEER_MISSING' = 'INVALID_CONFIG', options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A tool class or its decorators are wrong; raised at build time, names the class and the fix. */
export class ToolDefinitionError extends ToolwrightError {
  constructor(message: string) {
    super('INVALID_DEFINITION', message);
  }
}

export class ToolNotFoundError extends ToolwrightError {
  constructor(
    readonly toolName: string,
    readonly available: readonly string[] = [],
  ) {
    super(
      'TOOL_NOT_FOUND',
      `Tool "${toolName}" does not exist.` + (available.length ? ` Available tools: ${available.slice(0, 20).join(', ')}.` : ''),
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
    return encodeToolError(this.code, this.message, this.errors, this.omitted);
  }
}

/**
 * The order a cut list keeps: the first error of each failing top-level property, then the first of
 * each failing property at any depth (`a[].b`, `c[].extra`: item indexes aside), then the repeats, each
 * tier in the order found. A list cut at MAX_ERRORS so names every property the model must fix, as far as it can.
 */
function breadthFirst(errors: readonly FieldError[]): FieldError[] {
  const tops: FieldError[] = [];
  const shapes: FieldError[] = [];
  const rest: FieldError[] = [];
  const seenTops = new Set<string>();
  const seenShapes = new Set<string>();
  for (const e of errors) {
    const top = e.path.split(/[.[]/)[0];
    const shape = fieldShape(e.path);
    if (!seenTops.has(top)) tops.push(e);
    else if (!seenShapes.has(shape)) shapes.push(e);
    else rest.push(e);
    seenTops.add(top);
    seenShapes.add(shape);
  }
  return [...tops, ...shapes, ...rest];
}

/** A field path without its item indexes: `a[3].b` and `a[7].b` are one property, `a[].b`. */
export function fieldShape(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

function boundField(e: FieldError): FieldError {
  return e.path.length > MAX_TEXT || e.message.length > MAX_TEXT
    ? { path: clip(e.path), constraint: clip(e.constraint), message: clip(e.message) }
    : e;
}

function summarize(errors: readonly FieldError[], omitted: number): string {
  if (errors.length === 0) return 'invalid';
  const more = errors.length - 1 + omitted;
  return more === 0 ? errors[0].message : `${errors[0].message} (and ${more} more)`;
}

/**
 * A thrown value as text, whatever was thrown: `String()` itself throws on an object without a
 * prototype or with a throwing `toString` (a hostile tool's rejection), which must not turn one
 * failed call into a failed run.
 */
export function errorText(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export class ToolExecutionError extends ToolwrightError {
  constructor(
    readonly toolName: string,
    cause: unknown,
    /** When the tool opted in (`@Tool({ exposeErrors: true })`), the model may see the cause's message. */
    readonly expose = false,
    /** What failed: a tool, or a resource or prompt (`read` / `get`). */
    readonly what: 'Tool' | 'Resource' | 'Prompt' = 'Tool',
  ) {
    super('TOOL_FAILED', `${what} "${toolName}" failed: ${errorText(cause)}`, { cause });
  }

  override toToolResult(): string {
    const message =
      this.expose && this.cause instanceof Error ? this.cause.message : `${this.what} "${this.toolName}" failed unexpectedly.`;
    return encodeToolError(this.code, message);
  }
}

export class ToolOutputError extends ToolwrightError {
  constructor(
    readonly toolName: string,
    readonly errors: readonly FieldError[],
    detail?: string,
    readonly what: 'Tool' | 'Resource' | 'Prompt' = 'Tool',
  ) {
    super(
      'INVALID_OUTPUT',
      `${what} "${toolName}" returned a result that breaks its output contract: ` +
        (detail ?? errors.map((e) => `${e.path || '(result)'} ${e.message}`).join('; ')),
    );
  }

  override toToolResult(): string {
    return encodeToolError(this.code, `${this.what} "${this.toolName}" returned an invalid result.`);
  }
}

export class ToolTimeoutError extends ToolwrightError {
  constructor(
    readonly toolName: string,
    readonly timeoutMs: number,
  ) {
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
  constructor(
    readonly store: string,
    cause: unknown,
  ) {
    super('STORE_UNAVAILABLE', `${store} store is unavailable: ${errorText(cause)}`, { cause });
  }
}

/**
 * A store's data is damaged (SQLite: SQLITE_CORRUPT, SQLITE_NOTADB): retrying will not help.
 * The message names the file and what to do; nothing was written.
 */
export class StoreCorruptError extends ToolwrightError {
  constructor(
    readonly store: string,
    message: string,
    cause: unknown,
  ) {
    super('STORE_CORRUPT', message, { cause });
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
  constructor(
    readonly toolName: string,
    reason?: unknown,
  ) {
    super('ABORTED', `Tool "${toolName}" was cancelled${reason instanceof Error ? `: ${reason.message}` : ''}.`, { cause: reason });
  }
}

/**
 * A session, user, tenant or agent id, or a state key, that no store can keep exactly (a lone
 * surrogate, NUL, longer than 512 UTF-8 bytes; an empty id). Raised before any I/O, the same on
 * every store: retrying cannot help. `rule` says what would be kept.
 */
export class InvalidIdError extends ToolwrightError {
  constructor(
    readonly field: string,
    readonly reason: string,
    rule = 'Use a non-empty, well-formed string without NUL, at most 512 UTF-8 bytes.',
  ) {
    super('INVALID_ID', `Invalid ${field}: ${reason}. ${rule}`);
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
  constructor(
    readonly store: string,
    readonly what: string,
    cause?: unknown,
  ) {
    super('STORE_LIMIT', `${store} store cannot save ${what}${cause instanceof Error ? ` (${cause.message})` : ''}.`, { cause });
  }
}
