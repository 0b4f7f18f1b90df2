import { createHash } from 'node:crypto';
import { Container } from 'typedi';
import { typediContainer, type ContainerLike } from '../container/container';
import {
  ModelRetryError,
  ApprovalRequiredError,
  ToolAbortedError,
  ToolDefinitionError,
  ToolExecutionError,
  ToolInputError,
  ToolNotFoundError,
  ToolOutputError,
  ToolTimeoutError,
  ToolwrightError,
} from '../errors/errors';
import { getConstructorParamTypes, getToolOptions } from '../metadata/metadata';
import type { ApprovalPolicy, ClassType, ToolAnnotations, ToolOptions } from '../metadata/types';
import { buildClassPlan, type ClassPlan } from '../schema/class-schema';
import { ConstraintTable } from '../schema/constraint-table';
import type { JsonSchema, ToolDefinition } from '../metadata/json-schema';
import { AgentContext, type ToolCallInfo, type ToolProgress } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import { checkKeys, parseArguments, DEFAULT_LIMITS, LARGE_TEXT, type ArgumentLimits } from '../validation/arguments';
import { createClassAjv, createJsonSchemaAjv, type ClassValidation } from '../validation/ajv';
import type { FieldErrorList } from '../validation/field-errors';
import { compileResidual, type ResidualValidation } from '../validation/class-validator';
import { compileHydrator } from '../validation/hydrator';
import type { TracingOptions } from '../tracing/options';
import { activeTracer, traceToolCall } from '../tracing/tracing';
import { Cancellation, onAbort as onAbortOf, RUN_CANCELLATION, type CancelSource } from './cancellation';
import { approvalRequired, permits, type AuthorizePolicy } from './policy';
import type { ResolvedTool, ToolInterface } from './tool.interface';

export interface ToolRegistryOptions {
  tools: readonly ClassType[];
  /** Anything with `get(cls)`; typedi's global Container by default. */
  container?: ContainerLike;
  limits?: Partial<ArgumentLimits>;
  /**
   * Who may see and call which tool, asked with the caller's context on every surface (runner,
   * MCP, CLI, adapters, `call`). `false` hides the tool: it is not listed and a call to it fails
   * with TOOL_NOT_FOUND, as for a tool that does not exist.
   */
  authorize?: AuthorizePolicy;
  /** What `execute_tool` spans record when the app traces with OpenTelemetry (tool arguments and results only on opt-in). */
  tracing?: TracingOptions;
}

export interface CallOptions {
  /** The model's tool call id: the tool sees it, with an idempotency key derived from it, on `context.toolCall`. */
  toolCallId?: string;
  /** Cancels the call: the tool's `context.signal` fires and the call fails with ABORTED. */
  signal?: AbortSignal;
  /** Overrides `@Tool({ timeoutMs })`. */
  timeoutMs?: number;
  /**
   * What the idempotency key is derived from instead of `toolCallId`: the logical call (the agent
   * runner passes its run, model turn and position), for providers that reuse call ids.
   */
  logicalCallId?: string;
  /**
   * A human approved this call with these arguments. Without it a tool whose approval policy
   * asks for one fails with APPROVAL_REQUIRED; surfaces set it only from a real decision.
   */
  approved?: boolean;
  /** Where the tool's `context.reportProgress` goes (a stream consumer, an MCP progress token). */
  onProgress?: (progress: ToolProgress) => void;
  /** @internal The agent run's cancellation, used instead of `signal`: it creates an AbortSignal only when the tool reads one. */
  [RUN_CANCELLATION]?: Cancellation;
}

/** What `check` found: the call may go ahead, possibly after a human decision. */
export interface CallCheck {
  /** The validated arguments, as `execute` would receive them. */
  input: object;
  approvalRequired: boolean;
}

/** What the registry knows of one tool, frozen at build. */
export interface RegisteredTool {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly instance: ResolvedTool<never>;
  readonly toolClass: ClassType;
  readonly tags: readonly string[];
  readonly sequential: boolean;
  readonly timeoutMs?: number;
  readonly approval?: ApprovalPolicy<never>;
  readonly annotations?: ToolAnnotations;
  readonly exposeErrors: boolean;
  /** `@Tool({ memory: true })`: the tool reads AgentMemory, so callers load it first. */
  readonly memory: boolean;
}

interface Entry extends RegisteredTool {
  /**
   * Raw arguments → the value `execute` receives, or the ToolInputError refusing them, returned rather
   * than thrown (a throw costs more than validating the call; malformed JSON still throws). A promise
   * only when class-validator must run too.
   */
  parse(raw: unknown): object | Promise<object>;
  /** `execute`'s result → the JSON string the model sees; throws ToolOutputError. A promise only when class-validator must run too. */
  serialize(result: unknown): string | Promise<string>;
  /** Visibility depends on the caller (`isEnabled` or the registry's `authorize`). */
  gated?: boolean;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Turns tool classes into checked, frozen definitions once, then validates and runs calls.
 * Every definition problem is found by `build`, naming the class and the fix.
 */
export class ToolRegistry {
  private readonly entries: ReadonlyMap<string, Entry>;
  private readonly nameList: readonly string[];
  private readonly definitionList: readonly ToolDefinition[];
  private readonly authorize?: AuthorizePolicy;
  private readonly tracing?: TracingOptions;
  /** Some tool's visibility depends on the caller. */
  readonly gated: boolean;

  private constructor(entries: Map<string, Entry>, authorize?: AuthorizePolicy, tracing?: TracingOptions) {
    this.entries = entries;
    this.tracing = tracing;
    this.nameList = Object.freeze([...entries.keys()]);
    this.definitionList = Object.freeze([...entries.values()].map((e) => e.definition));
    this.authorize = authorize;
    for (const entry of entries.values()) entry.gated = authorize !== undefined || typeof entry.instance.isEnabled === 'function';
    this.gated = [...entries.values()].some((e) => e.gated);
  }

  static build(options: ToolRegistryOptions): ToolRegistry {
    const container = options.container ?? typediContainer;
    const limits: ArgumentLimits = { ...DEFAULT_LIMITS, ...options.limits };
    const table = new ConstraintTable();
    const ajv = { classes: createClassAjv(table), jsonSchema: undefined as ReturnType<typeof createJsonSchemaAjv> | undefined };
    const entries = new Map<string, Entry>();
    const owners = new Map<string, ClassType>();
    for (const toolClass of options.tools) {
      const entry = buildEntry(toolClass, container, limits, table, ajv);
      const previous = owners.get(entry.name);
      if (previous) {
        throw new ToolDefinitionError(
          `Duplicate tool name "${entry.name}": ${previous.name} and ${toolClass.name} both use it. Give each tool a unique name.`,
        );
      }
      owners.set(entry.name, toolClass);
      entries.set(entry.name, entry);
    }
    return new ToolRegistry(entries, options.authorize, options.tracing);
  }

  /** Every tool's definition, in registration order (frozen, built once). */
  definitions(): readonly ToolDefinition[] {
    return this.definitionList;
  }

  names(): readonly string[] {
    return this.nameList;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The resolved tool instance; throws ToolNotFoundError. */
  get<A = Record<string, unknown>>(name: string): ResolvedTool<A> {
    return this.entry(name).instance;
  }

  /** The registry's record of a tool (options, tags, annotations); throws ToolNotFoundError. */
  describe(name: string): RegisteredTool {
    return this.entry(name);
  }

  tools(): readonly RegisteredTool[] {
    return [...this.entries.values()];
  }

  /** The tools this caller may see and call (`isEnabled`, `authorize`), in registration order. */
  async visible(context: AgentContext): Promise<RegisteredTool[]> {
    const shown: RegisteredTool[] = [];
    for (const entry of this.entries.values()) if (!entry.gated || (await permits(entry, this.authorize, context))) shown.push(entry);
    return shown;
  }

  /** May this caller see and call the tool? `false` for a tool that does not exist. */
  async permits(name: string, context: AgentContext): Promise<boolean> {
    const entry = this.entries.get(name);
    return entry !== undefined && (!entry.gated || permits(entry, this.authorize, context));
  }

  /**
   * Everything `call` checks before running, without running: visibility (TOOL_NOT_FOUND), the
   * arguments (INVALID_JSON / INVALID_ARGUMENTS), and whether a human must approve the call.
   */
  async check(name: string, args: string | object, context: AgentContext): Promise<CallCheck> {
    const entry = await this.admit(name, context);
    const input = accepted(await entry.parse(args));
    return { input, approvalRequired: entry.approval !== undefined && (await approvalRequired(entry, input, context)) };
  }

  /**
   * Parses and validates arguments exactly as `call` would, without running the tool (e.g. to
   * evaluate an approval policy on typed arguments). Throws ToolNotFoundError / ToolInputError.
   */
  async parse(name: string, args: string | object): Promise<object> {
    return accepted(await this.entry(name).parse(args));
  }

  /**
   * Parses, validates, runs and serializes one call: the model's argument JSON (or an object) in,
   * the result JSON string out. Throws ToolNotFoundError, ToolInputError (INVALID_JSON /
   * INVALID_ARGUMENTS), ToolExecutionError (TOOL_FAILED), ToolOutputError (INVALID_OUTPUT),
   * ToolTimeoutError or ToolAbortedError. Traced as an `execute_tool` span while the app has an
   * OpenTelemetry tracer provider registered, on every surface (runner, MCP, adapters, CLI).
   */
  call(name: string, args: string | object, context?: AgentContext, memory?: AgentMemory, options?: CallOptions): Promise<string> {
    const tracer = activeTracer();
    if (tracer === undefined) {
      const entry = this.entries.get(name);
      if (entry !== undefined && direct(entry, options)) return settleDirect(entry, args, context, memory);
      return this.invoke(name, args, context, memory, options);
    }
    const description = this.entries.get(name)?.definition.description;
    const span = { name, description, toolCallId: options?.toolCallId, conversationId: context?.sessionId, args };
    return traceToolCall(tracer, this.tracing, span, () => this.invoke(name, args, context, memory, options));
  }

  private async invoke(
    name: string,
    args: string | object,
    context: AgentContext = directContext(),
    memory: AgentMemory = directMemory(context),
    options?: CallOptions,
  ): Promise<string> {
    const entry = this.entries.get(name);
    let input: object;
    try {
      // The gate: a tool hidden from this caller is refused as one that does not exist.
      if (entry === undefined) throw await this.notFound(name, context);
      if (entry.gated) {
        const allowed = permits(entry, this.authorize, context);
        if (allowed === false || (allowed instanceof Promise && !(await allowed))) throw await this.notFound(name, context);
      }
      const parsed = entry.parse(args);
      input = parsed instanceof Promise ? await parsed : parsed;
      if (entry.approval !== undefined && options?.approved !== true && !(input instanceof ToolInputError)) {
        const required = approvalRequired(entry, input, context);
        if (required === true || (required instanceof Promise && (await required))) throw new ApprovalRequiredError(name);
      }
    } catch (error) {
      // Reject after one tick, once the caller's handler is attached: Node's bookkeeping for a
      // promise that is already rejected when returned costs more than validating the call.
      // eslint-disable-next-line @typescript-eslint/await-thenable -- one tick, deliberately (measured: cheaper than Promise.resolve())
      await undefined;
      throw error;
    }
    if (input instanceof ToolInputError) {
      // eslint-disable-next-line @typescript-eslint/await-thenable -- as above; parse returned it (one throw, not two)
      await undefined;
      throw input;
    }
    const timeoutMs = options?.timeoutMs ?? entry.timeoutMs;
    const cancel = options?.[RUN_CANCELLATION] ?? options?.signal;
    let result: unknown;
    if (timeoutMs === undefined && cancel === undefined) {
      const ctx =
        options?.toolCallId === undefined && options?.logicalCallId === undefined && options?.onProgress === undefined
          ? context
          : context.forToolCall(callInfo(context, name, options, undefined));
      return run(entry, input, ctx, memory);
    } else if (timeoutMs === undefined) {
      result = runWithSignal(entry, input, context, memory, cancel!, options!);
      if (result instanceof Promise) result = await result;
    } else {
      result = await runGuarded(entry, input, context, memory, timeoutMs, cancel, options);
    }
    return entry.serialize(result);
  }

  /** The entry, if this caller may use it; otherwise TOOL_NOT_FOUND listing only what they may use. */
  private async admit(name: string, context: AgentContext): Promise<Entry> {
    const entry = this.entries.get(name);
    if (entry !== undefined && (!entry.gated || (await permits(entry, this.authorize, context)))) return entry;
    throw await this.notFound(name, context);
  }

  /** TOOL_NOT_FOUND naming only the tools this caller may use. */
  private async notFound(name: string, context: AgentContext): Promise<ToolNotFoundError> {
    return new ToolNotFoundError(name, this.gated ? (await this.visible(context)).map((t) => t.name) : this.nameList);
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ToolNotFoundError(name, this.nameList);
    return entry;
  }
}

const directContext = () => new AgentContext({ sessionId: 'direct' });
const directMemory = (context: AgentContext) => new AgentMemory({ agentName: 'direct', userId: context.userId ?? 'anonymous' });

/** A call `settleDirect` can take: the tool is visible to everyone, needs no approval (or has it), and runs without a signal, timeout or call id. */
function direct(entry: Entry, options: CallOptions | undefined): boolean {
  return (
    entry.gated !== true &&
    (entry.approval === undefined || options?.approved === true) &&
    entry.timeoutMs === undefined &&
    (options === undefined ||
      (options.timeoutMs === undefined &&
        options.signal === undefined &&
        options.toolCallId === undefined &&
        options.logicalCallId === undefined &&
        options.onProgress === undefined))
  );
}

/**
 * The common call (see `direct`) without an async frame: a synchronous parse and tool settle with
 * one resolved promise, which is all the caller's `await` costs. A refusal is neither thrown a
 * second time nor returned already rejected (Node tracks a rejection that has no handler yet):
 * the promise rejects one tick later, once the caller's handler is attached.
 */
function settleDirect(entry: Entry, args: string | object, context = directContext(), memory = directMemory(context)): Promise<string> {
  try {
    const parsed = entry.parse(args);
    if (parsed instanceof ToolInputError) return rejectLater(parsed);
    const out =
      parsed instanceof Promise
        ? parsed.then((input) => run(entry, accepted(input), context, memory))
        : run(entry, parsed, context, memory);
    return typeof out === 'string' ? Promise.resolve(out) : out;
  } catch (error) {
    return rejectLater(error);
  }
}

const TICK = Promise.resolve();

function rejectLater(error: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown (a ToolwrightError from parse or run)
  return new Promise((_, reject) => void TICK.then(() => reject(error)));
}

/** `execute`, then the result as the model sees it; a synchronous tool costs no tick. What the tool throws is TOOL_FAILED (`executionError`). */
function run(entry: Entry, input: object, ctx: AgentContext, memory: AgentMemory): string | Promise<string> {
  let result: unknown;
  try {
    result = entry.instance.execute(input as never, ctx, memory);
  } catch (error) {
    throw executionError(entry.name, error, entry.exposeErrors);
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => entry.serialize(value),
      (error) => {
        throw executionError(entry.name, error, entry.exposeErrors);
      },
    );
  }
  return entry.serialize(result);
}

/** A tool's own ModelRetryError goes back to the model as is; anything else it throws is TOOL_FAILED. */
function executionError(name: string, error: unknown, expose: boolean): ToolwrightError {
  return error instanceof ModelRetryError ? error : new ToolExecutionError(name, error, expose);
}

function callInfo(context: AgentContext, name: string, options: CallOptions | undefined, cancel: CancelSource | undefined): ToolCallInfo {
  const toolCallId = options?.toolCallId ?? 'direct';
  return new CallInfo(toolCallId, name, options?.onProgress, context, options?.logicalCallId ?? toolCallId, cancel);
}

/**
 * What a tool sees on `context.toolCall`. A class, not an object literal with getters: V8 gives
 * every such literal its own hidden class (microseconds a call); here the getters are shared.
 */
class CallInfo implements ToolCallInfo {
  private key?: string;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly onProgress: ToolCallInfo['onProgress'],
    private readonly context: AgentContext,
    private readonly logicalCallId: string,
    private readonly cancel: CancelSource | undefined,
  ) {}

  /** A run's Cancellation creates its AbortSignal only here, on the tool's first read (most tools never ask). */
  get signal(): AbortSignal | undefined {
    const cancel = this.cancel;
    return cancel instanceof Cancellation ? cancel.signal : cancel;
  }

  /**
   * Hashed on first read (most tools never ask). Stable across retries and resumes of the same
   * model call; opaque, so it leaks no ids.
   */
  get idempotencyKey(): string {
    return (this.key ??= createHash('sha256')
      .update(`${this.context.tenantId ?? ''}\u0000${this.context.sessionId}\u0000${this.logicalCallId}`)
      .digest('hex')
      .slice(0, 32));
  }
}

/**
 * A caller's signal or the run's cancellation, and no timeout (every MCP call, every streamed
 * run's call): the tool sees that signal itself, so no AbortController or Promise.race is needed;
 * an abort listener exists only while an async tool runs, so that a tool ignoring the signal
 * still fails with ABORTED at once. A Cancellation's listener is a plain callback: no AbortSignal
 * is created unless the tool reads `context.signal`.
 */
function runWithSignal(
  entry: Entry,
  input: object,
  context: AgentContext,
  memory: AgentMemory,
  cancel: CancelSource,
  options: CallOptions,
): unknown {
  if (cancel.aborted) throw new ToolAbortedError(entry.name, cancel.reason);
  const ctx = context.forToolCall(callInfo(context, entry.name, options, cancel));
  let result: unknown;
  try {
    result = entry.instance.execute(input as never, ctx, memory);
  } catch (error) {
    throw executionError(entry.name, error, entry.exposeErrors);
  }
  if (!(result instanceof Promise)) return result;
  const running = result;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new ToolAbortedError(entry.name, cancel.reason));
    // Aborted while the tool's synchronous part ran (e.g. by a progress observer): ABORTED, as on the guarded path.
    if (cancel.aborted) {
      running.catch(() => undefined);
      return onAbort();
    }
    const run = cancel instanceof Cancellation ? cancel : undefined;
    if (run) run.onAbort(onAbort);
    else (cancel as AbortSignal).addEventListener('abort', onAbort, { once: true });
    const stop = () => (run ? run.offAbort(onAbort) : (cancel as AbortSignal).removeEventListener('abort', onAbort));
    running.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error) => {
        stop();
        reject(executionError(entry.name, error, entry.exposeErrors));
      },
    );
  });
}

/**
 * Runs a call under a timeout and/or the caller's signal; the tool sees one combined signal,
 * created only if it reads `context.signal`.
 */
async function runGuarded(
  entry: Entry,
  input: object,
  context: AgentContext,
  memory: AgentMemory,
  timeoutMs: number | undefined,
  outer: CancelSource | undefined,
  options: CallOptions | undefined,
): Promise<unknown> {
  if (outer?.aborted) throw new ToolAbortedError(entry.name, outer.reason);
  const cancel = new Cancellation();
  let settle!: (error: ToolwrightError) => void;
  const stopped = new Promise<never>((_, reject) => (settle = reject));
  const onAbort = () => {
    cancel.abort(outer?.reason);
    settle(new ToolAbortedError(entry.name, outer?.reason));
  };
  const unlink = outer && onAbortOf(outer, onAbort);
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const error = new ToolTimeoutError(entry.name, timeoutMs);
          cancel.abort(error);
          settle(error);
        }, timeoutMs);
  const ctx = context.forToolCall(callInfo(context, entry.name, options, cancel));
  try {
    const running = Promise.resolve()
      .then(() => entry.instance.execute(input as never, ctx, memory))
      .catch((error) => {
        throw executionError(entry.name, error, entry.exposeErrors);
      });
    return await Promise.race([running, stopped]);
  } finally {
    clearTimeout(timer);
    unlink?.();
  }
}

function buildEntry(
  toolClass: ClassType,
  container: ContainerLike,
  limits: ArgumentLimits,
  table: ConstraintTable,
  ajv: { classes: ReturnType<typeof createClassAjv>; jsonSchema: ReturnType<typeof createJsonSchemaAjv> | undefined },
): Entry {
  if (typeof toolClass !== 'function') {
    throw new ToolDefinitionError(`ToolRegistry.build got ${String(toolClass)} where a tool class belongs. Pass the classes themselves.`);
  }
  const cls = toolClass.name || '(anonymous class)';
  const options = getToolOptions(toolClass);
  const handWritten = typeof toolClass.prototype.definition === 'function';
  if (!options && !handWritten) {
    throw new ToolDefinitionError(`${cls} is not a tool. Add @Tool({ name, description, input }) or write a definition() method.`);
  }
  if (typeof toolClass.prototype.execute !== 'function') {
    throw new ToolDefinitionError(`${cls} has no execute(args, context, memory) method. Implement ToolInterface.`);
  }
  if (toolClass.length > 0 && !getConstructorParamTypes(toolClass)) {
    throw new ToolDefinitionError(
      `${cls} takes constructor arguments but TypeScript emitted no types for them. ` +
        'Add @Tool({ name, description }) (or @Service()) to the class and enable emitDecoratorMetadata.',
    );
  }
  if (container === typediContainer) checkInjectableParams(toolClass, cls);
  let instance: ToolInterface<never>;
  try {
    instance = container.get(toolClass) as ToolInterface<never>;
  } catch (error) {
    throw new ToolDefinitionError(
      `Could not resolve ${cls} from the container: ${(error as Error).message}. ` +
        'Register its dependencies (@Service() or Container.set(...)) or pass a container that provides them.',
    );
  }

  let definition: ToolDefinition;
  let parse: Entry['parse'];
  if (handWritten) {
    definition = readHandWrittenDefinition(instance, cls, options);
    ajv.jsonSchema ??= createJsonSchemaAjv();
    let validation: ClassValidation;
    try {
      validation = ajv.jsonSchema(definition.parameters);
    } catch (error) {
      throw new ToolDefinitionError(`${cls}.definition() has invalid parameters JSON Schema: ${(error as Error).message}`);
    }
    const name = definition.name;
    parse = (raw) => {
      const value = parseArguments(name, raw, limits);
      if (typeof raw === 'string' && raw.length > LARGE_TEXT) {
        const list = reportFirst(validation, value);
        return list === undefined ? value : inputError(name, list);
      }
      return validation.valid(value) ? value : inputError(name, validation.report(value));
    };
  } else {
    const opts = options!;
    if (!opts.input) {
      throw new ToolDefinitionError(
        `${cls} has @Tool but no input class and no definition(). Add @Tool({ ..., input: YourInputClass }) ` +
          '(an empty class for a tool without parameters) or write definition().',
      );
    }
    const plan = buildClassPlan(opts.input, { closed: opts.closed ?? true, usage: `tool "${opts.name}" input`, table });
    definition = { name: opts.name, description: opts.description, parameters: plan.schema };
    parse = compileInput(opts.name, plan, ajv.classes(plan.validation), limits);
  }
  checkName(definition.name, cls);
  const output = options?.output ? compileOutput(options.output, cls, definition.name, table, ajv.classes) : undefined;
  if (output) definition.outputSchema = output.schema;
  deepFreeze(definition);
  if (!handWritten) Object.defineProperty(instance, 'definition', { value: () => definition, configurable: true });

  return {
    name: definition.name,
    definition,
    instance: instance as ResolvedTool<never>,
    toolClass,
    tags: Object.freeze([...(options?.tags ?? [])]),
    sequential: options?.sequential ?? false,
    timeoutMs: options?.timeoutMs,
    approval: options?.approval,
    annotations: options?.annotations && Object.freeze({ ...options.annotations }),
    exposeErrors: options?.exposeErrors ?? false,
    memory: options?.memory ?? false,
    parse,
    serialize: makeSerializer(definition.name, output),
  };
}

function readHandWrittenDefinition(instance: ToolInterface<never>, cls: string, options: ToolOptions | undefined): ToolDefinition {
  const raw = instance.definition!() as Partial<ToolDefinition> | undefined;
  if (
    !raw ||
    typeof raw.name !== 'string' ||
    typeof raw.description !== 'string' ||
    !raw.parameters ||
    typeof raw.parameters !== 'object'
  ) {
    throw new ToolDefinitionError(
      `${cls}.definition() must return { name, description, parameters } with parameters a JSON Schema object.`,
    );
  }
  if (raw.parameters.type !== 'object') {
    throw new ToolDefinitionError(
      `${cls}.definition().parameters must be a JSON Schema of type "object" (got ${JSON.stringify(raw.parameters.type)}).`,
    );
  }
  if (options && options.name !== raw.name) {
    throw new ToolDefinitionError(`${cls}: @Tool names it "${options.name}" but definition() names it "${raw.name}". Use one name.`);
  }
  return structuredClone({ name: raw.name, description: raw.description, parameters: raw.parameters });
}

function checkName(name: string, cls: string): void {
  if (!NAME.test(name)) {
    throw new ToolDefinitionError(`${cls}: tool name "${name}" is not accepted by model providers. Use 1-64 letters, digits, "_" or "-".`);
  }
}

/** What `check` and `parse` return: Entry.parse's value, or the ToolInputError it returned, thrown. */
function accepted(input: object): object {
  if (input instanceof ToolInputError) throw input;
  return input;
}

function inputError(name: string, list: FieldErrorList): ToolInputError {
  return new ToolInputError('INVALID_ARGUMENTS', name, list.errors, undefined, list.omitted);
}

/** Whatever a validator or `@Transform` throws on odd input is an invalid-arguments answer, never a raw error out of `call`. */
function guarded(name: string, parse: Entry['parse']): Entry['parse'] {
  const wrap = (error: unknown): ToolwrightError =>
    error instanceof ToolwrightError
      ? error
      : inputError(name, {
          errors: [
            { path: '', constraint: 'validation', message: 'arguments could not be validated: a validator or transform failed on them' },
          ],
          omitted: 0,
        });
  return (raw) => {
    try {
      const parsed = parse(raw);
      return parsed instanceof Promise ? parsed.catch((error: unknown) => Promise.reject(wrap(error))) : parsed;
    } catch (error) {
      throw wrap(error);
    }
  };
}

/**
 * A large text's verdict: the all-errors report first, reusing the key walk's lists of large objects
 * (see `enumerated`); undefined (accepted) only when the first-error validator agrees.
 */
function reportFirst(validation: ClassValidation, value: unknown): FieldErrorList | undefined {
  const list = validation.report(value);
  return list.errors.length === 0 && validation.valid(value) ? undefined : list;
}

function compileInput(name: string, plan: ClassPlan, validation: ClassValidation, limits: ArgumentLimits): Entry['parse'] {
  const hydrate = compileHydrator(plan);
  const residual = compileResidual(plan.residual);
  const fail = (list: FieldErrorList): ToolInputError => inputError(name, list);
  // A closed tree: the validator counts the keys it accepts, and on a valid call that count stands in for the key walk.
  const keyCount = plan.freeForm ? undefined : validation.keyCount;
  const textFloor = plan.freeForm ? undefined : validation.textFloor;
  const parse: Entry['parse'] = (raw) => {
    const large = typeof raw === 'string' && raw.length > LARGE_TEXT;
    // Keys checked after validating, with the validator's count; for a large text before, and then the
    // all-errors report decides, reusing the key walk's lists of large objects (see `enumerated`).
    const later = keyCount !== undefined && typeof raw === 'string' && !large;
    const value = parseArguments(name, raw, limits, plan.freeForm, !later);
    let list: FieldErrorList | undefined;
    if (large) list = reportFirst(validation, value);
    else if (!validation.valid(value)) {
      if (later) checkKeys(name, raw, value); // forbidden and repeated keys are answered before the validation errors
      list = validation.report(value);
    }
    if (list !== undefined) {
      if (!residual) return fail(list);
      const all = withResidual(list, residual, () => hydrate(value));
      return all instanceof Promise ? all.then(fail) : fail(all);
    }
    if (later) checkKeys(name, raw, value, keyCount(), textFloor?.());
    const instance = hydrate(value);
    if (!residual) return instance;
    // Constraints Ajv could not take over (custom, async, @ValidateIf, transformed): class-validator runs them on the instance.
    const found = residual(instance);
    if (found instanceof Promise) return found.then((f) => (f.errors.length ? fail(f) : instance));
    return found.errors.length ? fail(found) : instance;
  };
  return residual ? guarded(name, parse) : parse;
}

/**
 * Every failing property in one answer: Ajv's errors plus class-validator's for the constraints
 * it runs, on the instance hydrated from the invalid value (synchronous unless a constraint is async).
 */
function withResidual(list: FieldErrorList, residual: ResidualValidation, hydrate: () => object): FieldErrorList | Promise<FieldErrorList> {
  const merge = (found: FieldErrorList) => ({ errors: [...list.errors, ...found.errors], omitted: list.omitted + found.omitted });
  let found: ReturnType<ResidualValidation>;
  try {
    found = residual(hydrate());
  } catch {
    return list; // the residual constraints cannot run on this value: Ajv's errors stand
  }
  return found instanceof Promise ? found.then(merge, () => list) : merge(found);
}

interface CompiledOutput {
  schema: JsonSchema;
  validation: ClassValidation;
  /** class-validator on the constraints Ajv does not run, for the union member the value claims. */
  residual?: (value: object) => ReturnType<ResidualValidation>;
}

/** One class, or a union keyed by a literal field every class pins with `@Equals(...)`. */
function compileOutput(
  output: ClassType | readonly ClassType[],
  cls: string,
  name: string,
  table: ConstraintTable,
  compile: ReturnType<typeof createClassAjv>,
): CompiledOutput {
  const classes = Array.isArray(output) ? output : [output as ClassType];
  const plans = classes.map((c) => buildClassPlan(c, { closed: true, usage: `tool "${name}" output`, table }));
  const residuals = plans.map((p) => {
    const residual = compileResidual(p.residual);
    const hydrate = residual && compileHydrator(p);
    return residual && hydrate && ((value: object) => residual(hydrate(value as Record<string, unknown>)));
  });
  if (plans.length === 1) return { schema: plans[0].schema, validation: compile(plans[0].validation), residual: residuals[0] };
  const tag = Object.keys(plans[0].schema.properties ?? {}).find((key) =>
    plans.every((p) => p.schema.required?.includes(key) && p.schema.properties?.[key]?.const !== undefined),
  );
  if (!tag) {
    throw new ToolDefinitionError(
      `${cls}: the output union ${classes.map((c) => c.name).join(' | ')} has no common literal field. ` +
        "Pin one field in every class, e.g. @Equals('found') status!: 'found'.",
    );
  }
  const pick = (value: object) =>
    residuals[plans.findIndex((p) => p.schema.properties![tag].const === (value as Record<string, unknown>)[tag])];
  return {
    schema: { type: 'object', oneOf: plans.map((p) => p.schema) },
    validation: compile({ type: 'object', discriminator: { propertyName: tag }, required: [tag], oneOf: plans.map((p) => p.validation) }),
    residual: residuals.some(Boolean) ? (value) => pick(value)?.(value) ?? { errors: [], omitted: 0 } : undefined,
  };
}

function makeSerializer(name: string, output: CompiledOutput | undefined): Entry['serialize'] {
  const fail = (detail: string) => new ToolOutputError(name, [{ path: '', constraint: 'isJson', message: detail }], detail);
  const encode = (result: unknown): string => {
    if (typeof result === 'string') return result;
    try {
      return JSON.stringify(result);
    } catch (error) {
      throw fail(`the result cannot be serialized: ${(error as Error).message}`);
    }
  };
  return (result) => {
    let value = result;
    if (typeof result === 'string') {
      try {
        value = JSON.parse(result);
      } catch {
        throw fail('the result string is not valid JSON');
      }
    } else if (result === undefined || typeof result === 'function' || typeof result === 'symbol') {
      throw fail(`execute returned ${typeof result}, not a JSON string or object`);
    }
    if (output && !output.validation.valid(value)) throw new ToolOutputError(name, output.validation.report(value).errors);
    if (output?.residual) {
      let found: ReturnType<ResidualValidation>;
      try {
        found = output.residual(value as object);
      } catch (error) {
        throw fail(`the result could not be validated: ${(error as Error).message}`);
      }
      if (found instanceof Promise) {
        return found.then((f) => {
          if (f.errors.length) throw new ToolOutputError(name, f.errors);
          return encode(result);
        });
      }
      if (found.errors.length) throw new ToolOutputError(name, found.errors);
    }
    return encode(result);
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * typedi injects by the constructor types TypeScript records. An interface, a union or a type
 * alias is recorded as `Object` (a class not loaded yet as `undefined`), and typedi would inject
 * nothing there without an error: the tool would fail at its first call. Refuse it at build.
 */
function checkInjectableParams(toolClass: ClassType, cls: string): void {
  const types = getConstructorParamTypes(toolClass) ?? [];
  const names = constructorParamNames(toolClass);
  types.forEach((type, index) => {
    if (type !== Object && type !== undefined) return;
    if (Container.handlers.some((h) => h.object === toolClass && h.index === index)) return; // @Inject(...) names it
    const name = names[index] ?? `#${index + 1}`;
    throw new ToolDefinitionError(
      `${cls}: constructor parameter "${name}" (#${index + 1}) ` +
        (type === undefined
          ? 'is typed with a class that was not loaded yet when the class was decorated (a circular import?). Break the import cycle. '
          : 'is typed as an interface, a union or a type alias, which TypeScript records as Object: the container cannot know what to inject. ') +
        "Type it with a class (an abstract class works as a token), or name what to inject with typedi's @Inject('token') and Container.set('token', value).",
    );
  });
}

/** Parameter names from the compiled constructor, for messages only (best effort). */
function constructorParamNames(toolClass: ClassType): string[] {
  const match = /constructor\s*\(([^)]*)\)/.exec(Function.prototype.toString.call(toolClass));
  return match ? match[1].split(',').map((p) => p.trim().split(/[\s=]/)[0]) : [];
}
