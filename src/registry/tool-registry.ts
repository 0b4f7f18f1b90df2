import { typediContainer, type ContainerLike } from '../container/container';
import { ToolContent } from '../content/tool-content';
import { ApprovalRequiredError, ToolInputError, ToolNotFoundError, ToolwrightConfigError } from '../errors/errors';
import type { ClassType, RateLimit } from '../metadata/types';
import { getToolOptions } from '../metadata/metadata';
import { MemoryRateCounters, type RateCounters } from '../side-effects/rate-counters';
import type { ToolDefinition } from '../metadata/json-schema';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import { DEFAULT_LIMITS, type ArgumentLimits } from '../validation/arguments';
import type { TracingOptions } from '../tracing/options';
import { activeTracer, traceToolCall } from '../tracing/tracing';
import { throwIfRefused } from './call-pipeline';
import type { CallOptions } from './call-options';
import { directContext, directMemory, isDirectCall, settleDirect } from './direct-call';
import { execute } from './execute';
import { teeLog } from './log-budget';
import { isPromise, oneTick } from './maybe-promise';
import { approvalRequired, permits, type AuthorizePolicy } from './policy';
import { rateRules, throttle } from './rate-limit';
import type { RegisteredTool, ToolEntry } from './registered-tool';
import { buildPrompts, buildResources } from './feature-builder';
import { Features, type FeatureCallOptions } from './features';
import type { Completion, CompletionRef, PromptRead, RegisteredPrompt, RegisteredResource, ResourceRead } from './registered-feature';
import { buildEntries, createBuilder, type Builder } from './tool-builder';
import { Sources } from './sources';
import type { ToolSource } from './tool-source';
import type { ResolvedTool } from './tool.interface';

export type { CallOptions } from './call-options';
export type { RegisteredTool } from './registered-tool';
export type { FeatureCallOptions } from './features';

export interface ToolRegistryOptions {
  tools: readonly ClassType[];
  /** `@Resource` and `@ResourceTemplate` classes, served over MCP beside the tools, behind the same gate. */
  resources?: readonly ClassType[];
  /** `@Prompt` classes, served over MCP beside the tools, behind the same gate. */
  prompts?: readonly ClassType[];
  /** Anything with `get(cls)`; typedi's global Container by default. */
  container?: ContainerLike;
  limits?: Partial<ArgumentLimits>;
  /**
   * Who may see and call which tool, asked with the caller's context on every surface (runner,
   * MCP, CLI, adapters, `call`). `false` hides the tool: it is not listed and a call to it fails
   * with TOOL_NOT_FOUND, as for a tool that does not exist.
   */
  authorize?: AuthorizePolicy;
  /**
   * Rate limits or quotas for every tool (each tool counted apart), beside each tool's own
   * `@Tool({ rateLimit })`: checked in the gate on every surface, refused with RATE_LIMITED.
   */
  rateLimit?: RateLimit | readonly RateLimit[];
  /**
   * Where the counts are kept: a store's `rateCounters()` to hold them across replicas and
   * restarts; this process's memory by default.
   */
  rateCounters?: RateCounters;
  /** What `execute_tool` spans record when the app traces with OpenTelemetry (tool arguments and results only on opt-in). */
  tracing?: TracingOptions;
  /** Remote MCP servers (`McpToolset.stdio` / `.http`, `toolwright/mcp-client`): listed asynchronously, by `buildAsync`. */
  mcp?: readonly ToolSource[];
  /** Other tool sources (`agent.asTool(...)`, any `ToolSource`): built by `buildAsync` after `mcp`. */
  sources?: readonly ToolSource[];
}

/** What `check` found: the call may go ahead, possibly after a human decision. */
export interface CallCheck {
  /** The validated arguments, as `execute` would receive them. */
  input: object;
  approvalRequired: boolean;
}

/**
 * Turns tool classes into checked, frozen definitions once, then validates and runs calls.
 * Every definition problem is found by `build`, naming the class and the fix.
 */
export class ToolRegistry {
  private entries: ReadonlyMap<string, ToolEntry>;
  private nameList: readonly string[];
  private definitionList: readonly ToolDefinition[];
  private readonly authorize?: AuthorizePolicy;
  private readonly shared: readonly RateLimit[];
  private sources?: Sources;
  private readonly tracing?: TracingOptions;
  private readonly features: Features;
  private readonly counters: RateCounters;
  private readonly resourceListeners = new Set<(uri: string) => void>();
  /** Some tool's visibility depends on the caller (or, with remote sources, on when they are asked). */
  gated = false;

  private constructor(
    entries: Map<string, ToolEntry>,
    features: Features,
    options: ToolRegistryOptions,
    private readonly builder: Builder,
  ) {
    const { authorize, tracing } = options;
    this.counters = options.rateCounters ?? new MemoryRateCounters();
    this.shared =
      options.rateLimit === undefined ? [] : Array.isArray(options.rateLimit) ? options.rateLimit : [options.rateLimit as RateLimit];
    this.features = features;
    this.tracing = tracing;
    this.authorize = authorize;
    this.entries = this.nameList = this.definitionList = undefined as never;
    this.install(entries);
  }

  /** A registry of local tools only; one with `mcp` or other `sources` is built by `buildAsync`. */
  static build(options: ToolRegistryOptions): ToolRegistry {
    if (options.mcp?.length || options.sources?.length) {
      throw new ToolwrightConfigError(
        'ToolRegistry.build: remote tools and agent tools are listed asynchronously. Use `await ToolRegistry.buildAsync({ tools, mcp, sources })`.',
      );
    }
    const limits: ArgumentLimits = { ...DEFAULT_LIMITS, ...options.limits };
    const builder = createBuilder(options.container ?? typediContainer, limits);
    const entries = buildEntries(options.tools, builder);
    const features = new Features(
      buildResources(options.resources ?? [], builder),
      buildPrompts(options.prompts ?? [], builder),
      options.authorize,
    );
    return new ToolRegistry(entries, features, options, builder);
  }

  /**
   * `build`, then every remote source's tools listed and added after the local ones (the same
   * pipeline, gate and policies). Rejects when a source cannot be reached or a remote tool's name
   * clashes with another tool (use the toolset's `prefix`); close the registry (`close()`) when done.
   */
  static async buildAsync(options: ToolRegistryOptions): Promise<ToolRegistry> {
    const registry = ToolRegistry.build({ ...options, mcp: undefined, sources: undefined });
    const given = [...(options.mcp ?? []), ...(options.sources ?? [])];
    if (given.length) {
      const sources = new Sources(given, registry.builder, [...registry.entries.values()], (all) => registry.install(all));
      registry.sources = sources;
      try {
        await sources.start();
      } catch (error) {
        await sources.close();
        throw error;
      }
    }
    return registry;
  }

  /** Calls `listener` after remote tools were added, changed or removed (a server's `tools/list_changed`). */
  onToolsChanged(listener: () => void): () => void {
    return this.sources?.onChanged(listener) ?? (() => undefined);
  }

  /** Closes every remote source's connections (a no-op for a registry of local tools). */
  async close(): Promise<void> {
    await this.sources?.close();
  }

  /** Makes these entries the registry's tools: their rate rules and gate flags, the name and definition lists. */
  private install(entries: ReadonlyMap<string, ToolEntry>): void {
    for (const entry of entries.values()) {
      const rules = rateRules(entry.name, entry.origin ? entry.rateLimit : getToolOptions(entry.toolClass)?.rateLimit, this.shared);
      if (rules.length > 0) entry.rateRules = rules;
      entry.gated = this.authorize !== undefined || typeof entry.instance.isEnabled === 'function';
    }
    this.entries = entries;
    this.nameList = Object.freeze([...entries.keys()]);
    this.definitionList = Object.freeze([...entries.values()].map((e) => e.definition));
    // With remote sources the list changes over time: surfaces that watch a caller's list (MCP list_changed) watch it.
    this.gated = this.sources !== undefined || [...entries.values()].some((e) => e.gated);
  }

  /** Every resource and resource template, in registration order. */
  resources(): readonly RegisteredResource[] {
    return this.features.allResources();
  }

  /** Every prompt, in registration order. */
  prompts(): readonly RegisteredPrompt[] {
    return this.features.allPrompts();
  }

  /** The resources and templates this caller may see and read (`isEnabled`, `authorize`). */
  visibleResources(context: AgentContext): Promise<RegisteredResource[]> {
    return this.features.visibleResources(context);
  }

  /** The prompts this caller may see and get. */
  visiblePrompts(context: AgentContext): Promise<RegisteredPrompt[]> {
    return this.features.visiblePrompts(context);
  }

  /** Some resource's or prompt's visibility depends on the caller. */
  get featuresGated(): boolean {
    return this.features.gated;
  }

  /**
   * Reads a resource by URI (a fixed one, else the first template that matches, its variables
   * validated as tool arguments are). Throws ResourceNotFoundError (also for one hidden from this
   * caller), ToolInputError, ToolExecutionError, ToolOutputError.
   */
  readResource(
    uri: string,
    context = directContext(),
    memory = directMemory(context),
    options?: FeatureCallOptions,
  ): Promise<ResourceRead> {
    return this.features.read(uri, context, memory, options);
  }

  /** Does this URI name a resource this caller may read? */
  hasResource(uri: string, context = directContext()): Promise<boolean> {
    return this.features.has(uri, context);
  }

  /** A prompt's messages for these arguments (validated). Throws PromptNotFoundError, ToolInputError, ToolExecutionError, ToolOutputError. */
  getPrompt(
    name: string,
    args?: string | object,
    context = directContext(),
    memory = directMemory(context),
    options?: FeatureCallOptions,
  ): Promise<PromptRead> {
    return this.features.get(name, args, context, memory, options);
  }

  /** Completion values for a prompt argument or template variable, starting with `argument.value`. */
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context = directContext(),
    args?: Record<string, string>,
  ): Promise<Completion> {
    return this.features.complete(ref, argument, context, args);
  }

  /** Tells whoever subscribed (an MCP client's `resources/subscribe`) that the resource at `uri` changed. */
  resourceUpdated(uri: string): void {
    for (const listener of this.resourceListeners) {
      try {
        listener(uri);
      } catch {
        // One listener's failure (a closed session) is not the others' or the caller's.
      }
    }
  }

  /** Listens for `resourceUpdated`; returns the remover. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.resourceListeners.add(listener);
    return () => this.resourceListeners.delete(listener);
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
    const input = throwIfRefused(await entry.parse(args));
    return { input, approvalRequired: entry.approval !== undefined && (await approvalRequired(entry, input, context)) };
  }

  /**
   * Parses and validates arguments exactly as `call` would, without running the tool (e.g. to
   * evaluate an approval policy on typed arguments). Throws ToolNotFoundError / ToolInputError.
   */
  async parse(name: string, args: string | object): Promise<object> {
    return throwIfRefused(await this.entry(name).parse(args));
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
    if (tracer !== undefined) {
      const span = {
        name,
        description: this.entries.get(name)?.definition.description,
        toolCallId: options?.toolCallId,
        conversationId: context?.sessionId,
        args,
      };
      return traceToolCall(tracer, this.tracing, span, (spanLog) =>
        this.invoke(name, args, context, memory, spanLog ? { ...options, onLog: teeLog(options?.onLog, spanLog) } : options),
      );
    }
    const entry = this.entries.get(name);
    // The fast path: the same steps as `invoke`, synchronously, for a call that needs nothing asynchronous from the registry.
    if (entry !== undefined && isDirectCall(entry, options)) return settleDirect(entry, args, context, memory);
    return this.invoke(name, args, context, memory, options);
  }

  /** One call's steps: gate → input pipeline → approval → rate limits → execute → output pipeline. */
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
      // 1. The gate: a tool hidden from this caller is refused as one that does not exist.
      if (entry === undefined) throw await this.notFound(name, context);
      const allowed = !entry.gated || permits(entry, this.authorize, context);
      if (!(isPromise(allowed) ? await allowed : allowed)) throw await this.notFound(name, context);
      // 2. The input pipeline: parse → validate → hydrate → residual class-validator checks (a refusal is returned).
      const parsed = entry.parse(args);
      input = isPromise(parsed) ? await parsed : parsed;
      // 3. Approval, for validated arguments.
      const required =
        entry.approval !== undefined &&
        options?.approved !== true &&
        !(input instanceof ToolInputError) &&
        approvalRequired(entry, input, context);
      if (isPromise(required) ? await required : required) throw new ApprovalRequiredError(name);
      // 4. Rate limits, for a call that would run now (refused arguments and pending approvals are not counted).
      if (entry.rateRules !== undefined && !(input instanceof ToolInputError))
        await throttle(name, entry.rateRules, this.counters, context);
    } catch (error) {
      await oneTick();
      throw error;
    }
    if (input instanceof ToolInputError) {
      await oneTick();
      throw input;
    }
    // 5. `execute`, in the mode the options ask for (plain, with a signal, under a timeout).
    const running = execute(entry, input, context, memory, options);
    const result = isPromise(running) ? await running : running;
    if (options?.onContent !== undefined && result instanceof ToolContent) options.onContent(result);
    // 6. The output pipeline: the output contract's checks, then the JSON string the model sees.
    return entry.serialize(result);
  }

  /** The entry, if this caller may use it; otherwise TOOL_NOT_FOUND listing only what they may use. */
  private async admit(name: string, context: AgentContext): Promise<ToolEntry> {
    const entry = this.entries.get(name);
    if (entry !== undefined && (!entry.gated || (await permits(entry, this.authorize, context)))) return entry;
    throw await this.notFound(name, context);
  }

  /** TOOL_NOT_FOUND naming only the tools this caller may use. */
  private async notFound(name: string, context: AgentContext): Promise<ToolNotFoundError> {
    return new ToolNotFoundError(name, this.gated ? (await this.visible(context)).map((t) => t.name) : this.nameList);
  }

  private entry(name: string): ToolEntry {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new ToolNotFoundError(name, this.nameList);
    return entry;
  }
}
