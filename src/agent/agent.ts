import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ContainerLike } from '../container/container';
import { encodeToolError, ToolExecutionError, ToolNotFoundError, ToolwrightConfigError, ToolwrightError, type ErrorCode } from '../errors/errors';
import type { ClassType } from '../metadata/types';
import { ToolRegistry, type RegisteredTool } from '../registry/tool-registry';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { Message, ToolCall } from '../session/message';
import { isEmptyMemoryChanges, type MemoryKey, type SessionKey, type SessionSnapshot } from '../session/snapshots';
import { SqliteStore } from '../stores/sqlite.store';
import type { SessionStore } from '../stores/store';
import { ToolCatalog, type CatalogOptions, type CatalogSelection } from './catalog';
import {
  AgentRunError,
  ApprovalDecisionError,
  MaxTurnsExceededError,
  RetryBudgetExceededError,
  RunAbortedError,
  RunNotFoundError,
  RunPausedError,
  SessionForbiddenError,
  ToolCallFailedError,
} from './errors';
import type { Model, ModelUsage } from './model';

/** What happens to an unexpected tool failure (TOOL_FAILED, INVALID_OUTPUT, TOOL_TIMEOUT). */
export type ErrorBoundary = 'throw' | 'redact';
export type ErrorPolicy = ErrorBoundary | ((error: ToolwrightError, call: ToolCallEvent) => ErrorBoundary);

export interface AgentOptions {
  name: string;
  /** The system prompt; a function is called once per run with the loaded session and memory. */
  instructions?: string | ((context: AgentContext, memory: AgentMemory) => string);
  model: Model;
  /** Tool classes (built into a registry with `container`) or a ready registry. */
  tools: ToolRegistry | readonly ClassType[];
  container?: ContainerLike;
  /** Where sessions, memories and paused runs live. Default: a SqliteStore at `./.toolwright/state.db`. */
  store?: SessionStore;
  /** Model calls per run (resumes included) before MaxTurnsExceededError. Default 10. */
  maxTurns?: number;
  /** Tool calls of one model response running at once. Default 4. */
  maxConcurrency?: number;
  /** Model-correctable failures (INVALID_JSON, INVALID_ARGUMENTS, TOOL_NOT_FOUND) allowed per tool per run. Default 2. */
  retryBudget?: number;
  /** Per-tool overrides of `retryBudget`. */
  retryBudgets?: Readonly<Record<string, number>>;
  /** Timeout for tools that declare none with `@Tool({ timeoutMs })`. */
  toolTimeoutMs?: number;
  /** Default `'throw'`: the run fails with ToolCallFailedError. `'redact'`: the model gets a redacted error result. */
  errorPolicy?: ErrorPolicy;
  hooks?: AgentHooks | readonly AgentHooks[];
  /** Per-turn tool selection (tags, authorization, top-k search). */
  catalog?: CatalogOptions;
  /** Load only the last N messages of a session's history into the model's context. */
  historyLimit?: number;
}

export interface RunOptions {
  sessionId: string;
  /** The real user: session ownership, memory scope, isEnabled/authorize and approval policies see it. */
  userId?: string;
  tenantId?: string;
  /** Cancels the run: the model request and every running tool (through `context.signal`). */
  signal?: AbortSignal;
  /** Narrow the catalog to these tags for this run. */
  tags?: readonly string[];
}

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The arguments that ran (after hooks and approval edits), as JSON. */
  arguments: string;
  /** What the model saw. */
  result: string;
  status: 'ok' | 'error' | 'denied' | 'rejected';
  /** The error code when status is `error`. */
  code?: string;
  durationMs: number;
}

export interface PendingApproval {
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them. */
  arguments: string;
  /** The validated arguments, as plain JSON. */
  args: unknown;
}

export type ApprovalDecision =
  | { approve: true; /** Run with these arguments instead (validated like the model's). */ arguments?: string | Record<string, unknown> }
  | { approve: false; /** Shown to the model. */ reason: string };

export interface RunResult {
  status: 'completed' | 'paused';
  /** The model's final text; `null` while paused. */
  output: string | null;
  sessionId: string;
  runId: string;
  toolCalls: ToolCallRecord[];
  usage: ModelUsage;
  /** Model calls made by this run (across resumes). */
  turns: number;
  durationMs: number;
  /** The calls waiting for a decision when `status` is `paused`. */
  approvals: PendingApproval[];
}

export interface ToolCallEvent {
  runId: string;
  sessionId: string;
  userId?: string;
  tenantId?: string;
  toolCallId: string;
  name: string;
  /** The arguments about to run (JSON). */
  arguments: string;
  context: AgentContext;
}

export type BeforeToolCallDecision = void | undefined | { arguments: string | Record<string, unknown> } | { deny: string };

export interface RunStartEvent {
  runId: string;
  sessionId: string;
  userId?: string;
  tenantId?: string;
  agentName: string;
  input: string;
  resumed: boolean;
  startedAt: number;
}

export interface RunEndEvent extends RunStartEvent {
  status: 'completed' | 'paused' | 'failed';
  durationMs: number;
  turns: number;
  usage: ModelUsage;
  toolCalls: readonly ToolCallRecord[];
  error?: unknown;
}

/** Observers and guards around a run. Every hook may be async; several hook sets run in order. */
export interface AgentHooks {
  onRunStart?(event: RunStartEvent): void | Promise<void>;
  onRunEnd?(event: RunEndEvent): void | Promise<void>;
  /** Rewrite the arguments (`{ arguments }`) or refuse the call (`{ deny: reason }`, the model sees the reason). */
  beforeToolCall?(event: ToolCallEvent): BeforeToolCallDecision | Promise<BeforeToolCallDecision>;
  /** Return a string to replace the result the model sees. */
  afterToolCall?(event: ToolCallEvent & { result: string; durationMs: number }): void | string | Promise<void | string>;
  onToolError?(event: ToolCallEvent & { error: ToolwrightError; handling: 'retry' | ErrorBoundary | 'abort'; durationMs: number }): void | Promise<void>;
}

/** A paused run as stored in the session (`pendingRun`): plain JSON, resumable by any process. */
interface StoredRun {
  kind: 'toolwright.run';
  version: 1;
  runId: string;
  agentName: string;
  userId?: string;
  input: string;
  startedAt: number;
  turns: number;
  assistant: Extract<Message, { role: 'assistant' }> & { toolCalls: ToolCall[] };
  approvals: PendingApproval[];
  decisions: Record<string, ApprovalDecision>;
  records: ToolCallRecord[];
  usage: ModelUsage;
  failures: Record<string, number>;
}

interface RunState {
  runId: string;
  key: SessionKey;
  memoryKey: MemoryKey;
  context: AgentContext;
  memory: AgentMemory;
  instructions?: string;
  input: string;
  userId?: string;
  signal?: AbortSignal;
  tags?: readonly string[];
  startedAt: number;
  resumed: boolean;
  turns: number;
  records: ToolCallRecord[];
  usage: ModelUsage;
  failures: Record<string, number>;
  hadPending: boolean;
}

interface CallOutcome {
  call: ToolCall;
  arguments: string;
  result?: string;
  error?: ToolwrightError;
  status: ToolCallRecord['status'];
  durationMs: number;
  handling?: 'retry' | ErrorBoundary | 'abort';
}

interface ToolPlan {
  tool: RegisteredTool;
  timeoutMs?: number;
}

const CORRECTABLE = new Set<ErrorCode>(['INVALID_JSON', 'INVALID_ARGUMENTS', 'TOOL_NOT_FOUND']);
const NO_APPROVALS: PendingApproval[] = [];

/**
 * Drives model → tool calls → results until the model answers, for one session and user. Loads the
 * session and the (agent, user) memory once, saves both once when the run completes, pauses or
 * fails. Tool results stay in the history, so later turns can refer to them.
 */
export class Agent {
  readonly name: string;
  readonly registry: ToolRegistry;
  readonly store: SessionStore;
  private readonly model: Model;
  private readonly instructions: AgentOptions['instructions'];
  private readonly maxTurns: number;
  private readonly maxConcurrency: number;
  private readonly retryBudget: number;
  private readonly retryBudgets: Readonly<Record<string, number>>;
  private readonly errorPolicy: ErrorPolicy;
  private readonly historyLimit?: number;
  private readonly catalog: ToolCatalog;
  private readonly plans = new Map<string, ToolPlan>();
  private readonly approvalTools: ToolPlan[] = [];
  private readonly hooks: readonly AgentHooks[];
  private readonly before: AgentHooks['beforeToolCall'][];
  private readonly after: AgentHooks['afterToolCall'][];
  private readonly onError: AgentHooks['onToolError'][];
  /** Some hook set watches run start/end. */
  private readonly observed: boolean;

  constructor(options: AgentOptions) {
    this.name = options.name;
    this.model = options.model;
    this.instructions = options.instructions;
    this.registry =
      options.tools instanceof ToolRegistry ? options.tools : ToolRegistry.build({ tools: options.tools, container: options.container });
    this.store = options.store ?? new SqliteStore(); // the embedded default; opened on first use
    this.maxTurns = positiveInt('maxTurns', options.maxTurns ?? 10);
    this.maxConcurrency = positiveInt('maxConcurrency', options.maxConcurrency ?? 4);
    this.retryBudget = options.retryBudget ?? 2;
    this.retryBudgets = options.retryBudgets ?? {};
    this.errorPolicy = options.errorPolicy ?? 'throw';
    this.historyLimit = options.historyLimit;
    this.catalog = new ToolCatalog(this.registry, options.catalog);
    for (const tool of this.registry.tools()) {
      const plan: ToolPlan = { tool, timeoutMs: tool.timeoutMs ?? options.toolTimeoutMs };
      this.plans.set(tool.name, plan);
      if (tool.approval) this.approvalTools.push(plan);
    }
    this.hooks = options.hooks === undefined ? [] : Array.isArray(options.hooks) ? [...options.hooks] : [options.hooks as AgentHooks];
    this.before = this.hooks.filter((h) => h.beforeToolCall).map((h) => h.beforeToolCall!.bind(h));
    this.after = this.hooks.filter((h) => h.afterToolCall).map((h) => h.afterToolCall!.bind(h));
    this.onError = this.hooks.filter((h) => h.onToolError).map((h) => h.onToolError!.bind(h));
    this.observed = this.hooks.some((h) => h.onRunStart || h.onRunEnd);
  }

  /** One user turn: load, loop until the model answers (or a call needs approval), save. */
  async run(input: string, options: RunOptions): Promise<RunResult> {
    const { state, pending } = await this.open(options, input);
    if (pending) throw new RunPausedError(options.sessionId, pending.approvals.map((a) => a.toolCallId));
    state.context.setUserInput(input);
    state.context.addMessage({ role: 'user', content: input });
    return this.drive(state, undefined);
  }

  /**
   * Decides calls of a paused run (by tool call id) and, once every call is decided, runs them and
   * continues the loop. Works from the stored run alone, so any process (any Agent instance with
   * the same name, tools and store) can resume it. Undecided calls keep the run paused.
   */
  async resume(options: RunOptions, decisions: Readonly<Record<string, ApprovalDecision>>): Promise<RunResult> {
    const { state, pending } = await this.open(options, undefined);
    if (!pending) throw new RunNotFoundError(options.sessionId, this.name);
    for (const [id, decision] of Object.entries(decisions)) {
      if (!pending.approvals.some((a) => a.toolCallId === id)) {
        throw new ApprovalDecisionError(`Tool call "${id}" is not waiting for approval. Pending: ${pending.approvals.map((a) => a.toolCallId).join(', ')}.`);
      }
      if (!decision || (decision.approve !== true && (decision.approve !== false || typeof decision.reason !== 'string' || !decision.reason))) {
        throw new ApprovalDecisionError(`Decision for "${id}" must be { approve: true, arguments? } or { approve: false, reason: "…" }.`);
      }
      pending.decisions[id] = decision;
    }
    return this.drive(state, pending);
  }

  /** Approves one pending call, optionally with edited arguments. */
  approve(options: RunOptions, toolCallId: string, editedArguments?: string | Record<string, unknown>): Promise<RunResult> {
    return this.resume(options, { [toolCallId]: editedArguments === undefined ? { approve: true } : { approve: true, arguments: editedArguments } });
  }

  /** Rejects one pending call; the model sees the reason. */
  reject(options: RunOptions, toolCallId: string, reason: string): Promise<RunResult> {
    return this.resume(options, { [toolCallId]: { approve: false, reason } });
  }

  /** The calls a session's paused run waits on (empty when nothing is paused). */
  async pendingApprovals(options: Pick<RunOptions, 'sessionId' | 'tenantId'>): Promise<PendingApproval[]> {
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId }, { historyLimit: 0 });
    return this.storedRun(snapshot)?.approvals ?? [];
  }

  // --- the run -------------------------------------------------------------------------------

  private async drive(state: RunState, pending: StoredRun | undefined): Promise<RunResult> {
    if (this.observed) await this.emitStart(state);
    let result: RunResult;
    let stored: StoredRun | undefined;
    try {
      if (pending) {
        const undecided = pending.approvals.filter((a) => !pending.decisions[a.toolCallId]);
        if (undecided.length > 0) {
          stored = pending;
        } else {
          state.context.addMessage(pending.assistant);
          await this.runCalls(state, pending.assistant.toolCalls, await this.select(state), pending.decisions);
        }
      }
      stored ??= await this.loop(state);
      result = this.result(state, stored);
    } catch (error) {
      const failure = state.signal?.aborted && !(error instanceof RunAbortedError)
        ? new RunAbortedError(state.key.sessionId, state.context.getConversationHistory(), state.signal.reason)
        : error;
      // Keep what happened (the history is complete: every call has its result); the failure wins over a save error.
      await this.save(state, state.hadPending ? null : undefined).catch(() => undefined);
      if (this.observed) await this.emitEnd(state, 'failed', failure);
      throw failure;
    }
    try {
      await this.save(state, stored ?? (state.hadPending ? null : undefined));
    } catch (error) {
      if (this.observed) await this.emitEnd(state, 'failed', error);
      throw error;
    }
    if (this.observed) await this.emitEnd(state, result.status, undefined);
    return result;
  }

  /** The loop: ask the model, run its calls, until it answers or a call needs approval. */
  private async loop(state: RunState): Promise<StoredRun | undefined> {
    const context = state.context;
    for (;;) {
      if (state.signal?.aborted) throw new RunAbortedError(state.key.sessionId, context.getConversationHistory(), state.signal.reason);
      if (state.turns >= this.maxTurns) throw new MaxTurnsExceededError(this.maxTurns, state.key.sessionId, context.getConversationHistory());
      const selected = this.select(state);
      const selection = selected instanceof Promise ? await selected : selected;
      const response = await this.model.generate({
        instructions: state.instructions,
        messages: context.getConversationHistory(),
        tools: selection.definitions,
        signal: state.signal,
      });
      state.turns++;
      if (response.usage) {
        state.usage.inputTokens += response.usage.inputTokens;
        state.usage.outputTokens += response.usage.outputTokens;
      }
      const calls = response.toolCalls;
      if (calls.length === 0) {
        context.addMessage({ role: 'assistant', content: response.content });
        return undefined;
      }
      const assistant = { role: 'assistant' as const, content: response.content, toolCalls: calls };
      if (this.approvalTools.length > 0) {
        const approvals = await this.approvalsNeeded(state, calls, selection);
        if (approvals.length > 0) return this.pause(state, assistant, approvals);
      }
      context.addMessage(assistant);
      await this.runCalls(state, calls, selection, undefined);
    }
  }

  private select(state: RunState): CatalogSelection | Promise<CatalogSelection> {
    return this.catalog.select(state.context, state.input, state.tags);
  }

  /**
   * Runs one response's calls: consecutive ordinary calls concurrently (up to maxConcurrency), a
   * sequential tool alone. Every call settles, then results go to the history in call order; only
   * then does a failure (retry budget, `throw` boundary, cancellation) end the run.
   */
  private async runCalls(state: RunState, calls: readonly ToolCall[], selection: CatalogSelection, decisions?: Record<string, ApprovalDecision>): Promise<void> {
    const outcomes: CallOutcome[] = new Array(calls.length);
    const exec = async (i: number) => {
      outcomes[i] = await this.execute(state, calls[i], selection, decisions?.[calls[i].id]);
    };
    if (calls.length === 1) {
      outcomes[0] = await this.execute(state, calls[0], selection, decisions?.[calls[0].id]);
    } else {
      for (let i = 0; i < calls.length; ) {
        if (this.plans.get(calls[i].name)?.tool.sequential) {
          await exec(i++);
          continue;
        }
        let end = i;
        while (end < calls.length && !this.plans.get(calls[end].name)?.tool.sequential) end++;
        await pool(i, end, this.maxConcurrency, exec);
        i = end;
      }
    }

    let failure: (() => AgentRunError) | undefined;
    for (const outcome of outcomes) {
      const fail = this.settle(state, outcome);
      if (outcome.error && this.onError.length > 0) await this.reportError(state, outcome);
      failure ??= fail;
    }
    if (failure) throw failure();
  }

  private async reportError(state: RunState, o: CallOutcome): Promise<void> {
    for (const hook of this.onError) {
      await hook!({ ...this.event(state, o.call, o.arguments), error: o.error!, handling: o.handling!, durationMs: o.durationMs });
    }
  }

  /** Records one outcome in the history; returns the run failure it causes, if any. */
  private settle(state: RunState, o: CallOutcome): (() => AgentRunError) | undefined {
    const { call, error } = o;
    const history = () => state.context.getConversationHistory();
    const sessionId = state.key.sessionId;
    let content: string;
    let failure: (() => AgentRunError) | undefined;
    if (error) {
      const handling = (o.handling = this.handling(error, state, call));
      if (handling === 'retry') {
        const attempts = (state.failures[call.name] = (state.failures[call.name] ?? 0) + 1);
        if (attempts > (this.retryBudgets[call.name] ?? this.retryBudget)) {
          failure = () => new RetryBudgetExceededError(call.name, attempts, sessionId, history(), error);
        }
      } else if (handling === 'throw') {
        failure = () => new ToolCallFailedError(call.name, call.id, sessionId, history(), error);
      } else if (handling === 'abort') {
        failure = () => new RunAbortedError(sessionId, history(), state.signal?.reason);
      }
      content = error.toToolResult();
    } else {
      content = o.result!;
    }
    state.context.addMessage(
      error || o.status !== 'ok'
        ? { role: 'tool', toolCallId: call.id, name: call.name, content, isError: true }
        : { role: 'tool', toolCallId: call.id, name: call.name, content },
    );
    const record: ToolCallRecord = { id: call.id, name: call.name, arguments: o.arguments, result: content, status: o.status, durationMs: o.durationMs };
    if (error) record.code = error.code;
    state.records.push(record);
    return failure;
  }

  private handling(error: ToolwrightError, state: RunState, call: ToolCall): 'retry' | ErrorBoundary | 'abort' {
    if (CORRECTABLE.has(error.code)) return 'retry';
    if (error.code === 'ABORTED' && state.signal?.aborted) return 'abort';
    const policy = this.errorPolicy;
    return typeof policy === 'function' ? policy(error, this.event(state, call, call.arguments)) : policy;
  }

  /** One call: catalog check, approval decision, before-hooks, the registry call, after-hooks. Never throws. */
  private async execute(state: RunState, call: ToolCall, selection: CatalogSelection, decision: ApprovalDecision | undefined): Promise<CallOutcome> {
    const started = performance.now();
    let args: string | Record<string, unknown> = call.arguments;
    const outcome = (status: CallOutcome['status'], result: string | undefined, error?: ToolwrightError): CallOutcome => ({
      call,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      result,
      error,
      status,
      durationMs: performance.now() - started,
    });
    try {
      if (selection.offered && !selection.offered.has(call.name)) throw new ToolNotFoundError(call.name, [...selection.offered]);
      if (decision) {
        if (!decision.approve) return outcome('rejected', refusal('REJECTED', `A human rejected this call: ${decision.reason}`));
        if (decision.arguments !== undefined) args = decision.arguments;
      }
      for (const hook of this.before) {
        const verdict = await hook!(this.event(state, call, args));
        if (verdict && 'deny' in verdict) return outcome('denied', refusal('DENIED', verdict.deny));
        if (verdict && 'arguments' in verdict) args = verdict.arguments;
      }
      let result = await this.registry.call(call.name, args, state.context, state.memory, {
        toolCallId: call.id,
        signal: state.signal,
        timeoutMs: this.plans.get(call.name)?.timeoutMs,
      });
      for (const hook of this.after) {
        const replaced = await hook!({ ...this.event(state, call, args), result, durationMs: performance.now() - started });
        if (typeof replaced === 'string') result = replaced;
      }
      return outcome('ok', result);
    } catch (error) {
      // A hook that throws is an unexpected failure like a tool that throws.
      return outcome('error', undefined, error instanceof ToolwrightError ? error : new ToolExecutionError(call.name, error));
    }
  }

  /** Calls whose tool's approval policy says yes. Invalid calls need none: they go back to the model. */
  private async approvalsNeeded(state: RunState, calls: readonly ToolCall[], selection: CatalogSelection): Promise<PendingApproval[]> {
    if (this.approvalTools.length === 0) return NO_APPROVALS;
    const needed: PendingApproval[] = [];
    for (const call of calls) {
      const policy = this.plans.get(call.name)?.tool.approval as ((args: unknown, context: AgentContext) => boolean | Promise<boolean>) | boolean | undefined;
      if (!policy || (selection.offered && !selection.offered.has(call.name))) continue;
      let args: object;
      try {
        args = await this.registry.parse(call.name, call.arguments);
      } catch {
        continue;
      }
      if (policy === true || (typeof policy === 'function' && (await policy(args, state.context)))) {
        needed.push({ toolCallId: call.id, name: call.name, arguments: call.arguments, args: JSON.parse(JSON.stringify(args)) });
      }
    }
    return needed;
  }

  private pause(state: RunState, assistant: StoredRun['assistant'], approvals: PendingApproval[]): StoredRun {
    return {
      kind: 'toolwright.run',
      version: 1,
      runId: state.runId,
      agentName: this.name,
      userId: state.userId,
      input: state.input,
      startedAt: state.startedAt,
      turns: state.turns,
      assistant,
      approvals,
      decisions: {},
      records: state.records,
      usage: state.usage,
      failures: state.failures,
    };
  }

  // --- load and save -------------------------------------------------------------------------

  private async open(options: RunOptions, input: string | undefined): Promise<{ state: RunState; pending?: StoredRun }> {
    if (options.signal?.aborted) throw new RunAbortedError(options.sessionId, [], options.signal.reason);
    const key: SessionKey = { sessionId: options.sessionId, tenantId: options.tenantId };
    const memoryKey: MemoryKey = { agentName: this.name, userId: options.userId ?? `session:${options.sessionId}`, tenantId: options.tenantId };
    const [snapshot, memorySnapshot] = await Promise.all([
      this.store.loadSession(key, this.historyLimit === undefined ? undefined : { historyLimit: this.historyLimit }),
      this.store.loadMemory(memoryKey),
    ]);
    if (snapshot?.userId !== undefined && options.userId !== undefined && snapshot.userId !== options.userId) {
      throw new SessionForbiddenError(options.sessionId);
    }
    const context = snapshot
      ? AgentContext.fromSnapshot(this.historyLimit === undefined ? snapshot : withoutOrphanResults(snapshot), options.userId)
      : new AgentContext({ sessionId: options.sessionId, userId: options.userId, tenantId: options.tenantId });
    // PHP-kit-style tools read the signed-in user from state; only the runner ever writes it.
    if (options.userId !== undefined && context.getState('user_id') !== options.userId) context.setState('user_id', options.userId);
    const memory = memorySnapshot ? AgentMemory.fromSnapshot(memorySnapshot) : new AgentMemory(memoryKey);
    const pending = this.storedRun(snapshot);
    if (pending?.userId !== undefined && options.userId !== undefined && pending.userId !== options.userId) {
      throw new SessionForbiddenError(options.sessionId);
    }
    const instructions = typeof this.instructions === 'function' ? this.instructions(context, memory) : this.instructions;
    const resumed = input === undefined;
    const state: RunState = {
      runId: resumed && pending ? pending.runId : randomUUID(),
      key,
      memoryKey,
      context,
      memory,
      instructions,
      input: input ?? pending?.input ?? '',
      userId: options.userId,
      signal: options.signal,
      tags: options.tags,
      startedAt: resumed && pending ? pending.startedAt : Date.now(),
      resumed,
      turns: resumed && pending ? pending.turns : 0,
      records: resumed && pending ? pending.records : [],
      usage: resumed && pending ? pending.usage : { inputTokens: 0, outputTokens: 0 },
      failures: resumed && pending ? pending.failures : {},
      hadPending: pending !== undefined,
    };
    return { state, pending };
  }

  private storedRun(snapshot: SessionSnapshot | undefined): StoredRun | undefined {
    const run = snapshot?.pendingRun as StoredRun | null | undefined;
    return run && run.kind === 'toolwright.run' && run.agentName === this.name ? run : undefined;
  }

  /** Saves the session's changes (and the paused run, or its removal) and the memory's, once. */
  private async save(state: RunState, pendingRun: StoredRun | null | undefined): Promise<void> {
    const changes = state.context.takeChanges();
    if (pendingRun !== undefined) changes.pendingRun = pendingRun;
    const memoryChanges = state.memory.takeChanges();
    if (isEmptyMemoryChanges(memoryChanges)) {
      await this.store.saveSession(state.key, changes);
    } else {
      await Promise.all([this.store.saveSession(state.key, changes), this.store.saveMemory(state.memoryKey, memoryChanges)]);
    }
  }

  private result(state: RunState, paused: StoredRun | undefined): RunResult {
    const history = state.context.getConversationHistory();
    const last = history[history.length - 1];
    return {
      status: paused ? 'paused' : 'completed',
      output: paused ? null : last?.role === 'assistant' ? (last.content ?? '') : '',
      sessionId: state.key.sessionId,
      runId: state.runId,
      toolCalls: state.records,
      usage: state.usage,
      turns: state.turns,
      durationMs: Date.now() - state.startedAt,
      approvals: paused ? paused.approvals.filter((a) => !paused.decisions[a.toolCallId]) : NO_APPROVALS,
    };
  }

  // --- hooks ---------------------------------------------------------------------------------

  private event(state: RunState, call: ToolCall, args: string | Record<string, unknown>): ToolCallEvent {
    return {
      runId: state.runId,
      sessionId: state.key.sessionId,
      userId: state.userId,
      tenantId: state.key.tenantId,
      toolCallId: call.id,
      name: call.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      context: state.context,
    };
  }

  private startEvent(state: RunState): RunStartEvent {
    return {
      runId: state.runId,
      sessionId: state.key.sessionId,
      userId: state.userId,
      tenantId: state.key.tenantId,
      agentName: this.name,
      input: state.input,
      resumed: state.resumed,
      startedAt: state.startedAt,
    };
  }

  private async emitStart(state: RunState): Promise<void> {
    for (const hook of this.hooks) if (hook.onRunStart) await hook.onRunStart(this.startEvent(state));
  }

  private async emitEnd(state: RunState, status: RunEndEvent['status'], error: unknown): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onRunEnd) continue;
      await hook.onRunEnd({
        ...this.startEvent(state),
        status,
        durationMs: Date.now() - state.startedAt,
        turns: state.turns,
        usage: { ...state.usage },
        toolCalls: [...state.records],
        ...(error === undefined ? {} : { error }),
      });
    }
  }
}

/** Runs `fn(i)` for i in [from, to) with at most `limit` in flight. */
async function pool(from: number, to: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) await fn(next++);
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.min(limit, to - from); w++) workers.push(worker());
  await Promise.all(workers);
}

function refusal(code: ErrorCode, message: string): string {
  return encodeToolError(code, message);
}

/** A history window may start with tool results whose assistant call was cut off; providers refuse those. */
function withoutOrphanResults(snapshot: SessionSnapshot): SessionSnapshot {
  let start = 0;
  while (start < snapshot.history.length && snapshot.history[start].role === 'tool') start++;
  return start === 0 ? snapshot : { ...snapshot, history: snapshot.history.slice(start) };
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ToolwrightConfigError(`${name} must be a positive integer, got ${value}`);
  return value;
}
