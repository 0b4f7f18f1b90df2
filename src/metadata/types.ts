import type { JsonSchema, JsonSchemaType } from './json-schema';
import type { AgentContext } from '../session/agent-context';

/** A class that can be constructed (the input, output and tool classes). */

export type ClassType<T = unknown> = new (...args: any[]) => T;

/** MCP-style behaviour hints; nothing is assumed when a tool declares nothing. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type ApprovalPolicy<A = Record<string, unknown>> = boolean | ((args: A, context: AgentContext) => boolean | Promise<boolean>);

/**
 * At most `limit` calls in each window of `windowMs` (a fixed window, aligned to the epoch): a rate
 * limit with a short window, a quota with a long one. Counted per caller (`per`), in the registry's
 * `rateCounters` (a store's, to hold across replicas).
 */
export interface RateLimit {
  /** Calls allowed a window; a function gives each caller its own (a plan's quota). */
  limit: number | ((context: AgentContext) => number | Promise<number>);
  windowMs: number;
  /** Whose calls share one count: `user` (default; tenant and user), `tenant`, `session`, `global`, or a key from the context. */
  per?: 'user' | 'tenant' | 'session' | 'global' | ((context: AgentContext) => string);
}

export interface ToolOptions<A = unknown> {
  /** Provider-safe name: letters, digits, `_` and `-`, at most 64. */
  name: string;
  description: string;
  /** The input class whose `@Param` properties are the tool's parameters. */
  input?: ClassType<A>;
  /** The output contract: a class, or classes forming a union keyed by a literal field (`@Equals('found') status`). */
  output?: ClassType | readonly ClassType[];
  /** Extra properties in the arguments are rejected (default) or, with `false`, dropped. */
  closed?: boolean;
  /** For catalogs: filter tools per turn by tag or group. */
  tags?: readonly string[];
  /** Runs alone, never beside other calls of the same model response. */
  sequential?: boolean;
  /** Aborts the call (its AbortSignal fires) and fails it with TOOL_TIMEOUT after this long. */
  timeoutMs?: number;
  /** Calls allowed per caller and window, checked in the registry's gate on every surface (`RATE_LIMITED` with `retryAfter`). */
  rateLimit?: RateLimit | readonly RateLimit[];
  /** Pause the agent run for a human decision before this tool runs. */
  approval?: ApprovalPolicy<A>;
  annotations?: ToolAnnotations;
  /** Let the model see the message of an unexpected error this tool throws (default: redacted). */
  exposeErrors?: boolean;
  /**
   * The tool reads the user's long-term memory (getFacts, search, getSummary…): the agent runner
   * and the MCP server load it before the call. Runs that call no such tool never load memory.
   * Adding to memory (addFact, remember…) needs no declaration.
   */
  memory?: boolean;
  /**
   * A long tool MCP 2026-07-28 clients may run as a task (the tasks extension): `'optional'` runs it
   * as a task for a client that declared the extension and as a plain call otherwise; `'required'`
   * refuses a client without it (-32021). Other surfaces call it as any tool. See TaskOptions.
   */
  task?: TaskSupport | TaskOptions;
}

/** How MCP's tasks extension may run a tool. */
export type TaskSupport = 'optional' | 'required';

export interface TaskOptions {
  support: TaskSupport;
  /**
   * The call first asks its questions on the request itself (`context.elicit` answered by MCP's
   * multi-round-trip), and the round that brings the answers becomes the task. Default false: the
   * task starts with the call, and every question waits on the task (`input_required`).
   */
  inputFirst?: boolean;
  /** How long the task's record and result stay readable after it started; default one hour. */
  ttlMs?: number;
}

/** A thunk naming a class or a one-element array of it, for arrays and nested classes. */
export type ParamTypeThunk = () =>
  | ClassType
  | StringConstructor
  | NumberConstructor
  | BooleanConstructor
  | DateConstructor
  | [ClassType | StringConstructor | NumberConstructor | BooleanConstructor | DateConstructor];

export interface ParamOptions {
  description?: string;
  /** A JSON Schema type name (`'integer'`) or a thunk for arrays and nested classes: `() => [String]`, `() => Address`. */
  type?: JsonSchemaType | ParamTypeThunk;
  /**
   * The allowed values; or, as `{ value: 'Title' }`, string values each with a title to show
   * (JSON Schema `oneOf: [{ const, title }]`, in an array's items `anyOf`).
   */
  enum?: readonly (string | number | boolean)[] | Readonly<Record<string, string>>;
  /** Titled values (`enum: { value: 'Title' }`) told as `enum` + the legacy `enumNames` instead, for older MCP clients. */
  enumNames?: boolean;
  /** The item schema of an array, when it is not a class. */
  items?: JsonSchema;
  format?: string;
  examples?: unknown[];
  default?: unknown;
  /** `false` makes the parameter optional (as `@IsOptional()` does); `true` forces it required. */
  required?: boolean;
  title?: string;
  /**
   * MCP 2026-07-28 (SEP-2243): clients mirror this argument in the `Mcp-Param-<mcpHeader>` HTTP
   * header (listed as `x-mcp-header`), so that gateways can route on it without reading the body;
   * the server refuses a request whose header and body disagree. For string, number and boolean parameters.
   */
  mcpHeader?: string;
}

export interface ParamMetadata extends ParamOptions {
  propertyName: string;
}
