import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ContainerLike } from '../container/container';
import {
  encodeToolError,
  ToolExecutionError,
  ToolInputError,
  ToolNotFoundError,
  ToolwrightConfigError,
  ToolwrightError,
  type ErrorCode,
} from '../errors/errors';
import type { ClassType } from '../metadata/types';
import type { ToolDefinition } from '../schema/json-schema';
import { ToolRegistry, type RegisteredTool } from '../registry/tool-registry';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { Message, ToolCall } from '../session/message';
import { isEmptyMemoryChanges, type MemoryKey, type SessionKey, type SessionSnapshot } from '../session/snapshots';
import { SqliteStore } from '../stores/sqlite.store';
import { checkId } from '../stores/snapshot-rows';
import type { SessionStore } from '../stores/store';
import { ToolCatalog, type CatalogOptions, type CatalogSelection } from './catalog';
import {
  AgentRunError,
  ApprovalDecisionError,
  MaxTurnsExceededError,
  ModelCallFailedError,
  RetryBudgetExceededError,
  RunAbortedError,
  RunClaimedError,
  RunNotFoundError,
  RunPausedError,
  SessionForbiddenError,
  ToolCallFailedError,
} from './errors';
import type { Model, ModelResponse, ModelUsage } from './model';

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
  /**
   * Ends the run after a step whose tool calls have run, when it returns true (the Vercel AI SDK's
   * `stopWhen`): the run completes without asking the model again. `maxTurns` still applies.
   */
  stopWhen?: (step: StepResult) => boolean | Promise<boolean>;
  /**
   * Called before anything is decided for a call the model got wrong (unknown or misspelled tool
   * name, bad JSON, invalid arguments): return a corrected call (same id) to run instead, or nothing
   * to send the error back to the model. A repaired call is checked and approved like any other.
   */
  repairToolCall?: (event: RepairEvent) => RepairedCall | null | undefined | void | Promise<RepairedCall | null | undefined | void>;
  /**
   * How long a resume holds a paused run before another process may take it over (a process that
   * died mid-resume). Default 10 minutes.
   */
  resumeLeaseMs?: number;
  /** Where failures of observer hooks (onRunStart, onRunEnd, onToolError, repairToolCall) go. Default: `process.emitWarning`. */
  onHookError?: (error: unknown, hook: string) => void;
  /**
   * Load the (agent, user) memory at the start of every run. Default: only when `instructions` is
   * a function taking the memory (a second parameter), otherwise just before the first call to a
   * tool declaring `@Tool({ memory: true })`; a run that reads no memory never loads it.
   */
  loadMemory?: boolean;
}

/** One model step, after its tool calls ran: what `stopWhen` looks at. */
export interface StepResult {
  /** Model calls so far in this run (1 for the first step). */
  turn: number;
  /** The model's text of this step, if any. */
  text: string | null;
  toolCalls: readonly ToolCall[];
  /** What each call of this step did, in call order. */
  results: readonly ToolCallRecord[];
  usage: ModelUsage;
  context: AgentContext;
}

export interface RepairEvent {
  call: ToolCall;
  /** Why the call cannot run: TOOL_NOT_FOUND, INVALID_JSON or INVALID_ARGUMENTS. */
  error: ToolwrightError;
  /** The tools offered this turn. */
  tools: readonly ToolDefinition[];
  context: AgentContext;
}

export interface RepairedCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Who decided a paused call: not the session's user (a manager, a reviewer, a service). */
export interface Approver {
  id: string;
  /** Anything else to record with the decision (name, role…); plain JSON. */
  [key: string]: unknown;
}

/** A decision as recorded with the paused run, the call's record and the hooks' events. */
export interface ApprovalRecord {
  approved: boolean;
  approver?: Approver;
  /** The rejection reason. */
  reason?: string;
  /** The approver changed the arguments. */
  edited: boolean;
  decidedAt: number;
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

/** `approve` / `reject` / `resume`: the session (and its owner, `userId`) and who decides. */
export interface ResumeOptions extends RunOptions {
  /** The approver's identity, recorded with each decision and shown to hooks; a string is `{ id }`. */
  approver?: string | Approver;
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
  /** For a call that waited for approval: the decision and who made it. */
  approval?: ApprovalRecord;
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
  /** Set when `stopWhen` ended the run. */
  stoppedBy?: 'stopWhen';
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
  /** For a call that waited for approval: the decision and the approver. */
  approval?: ApprovalRecord;
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
  /** Who decided, when this start is a resume (`approve` / `reject` / `resume`). */
  approver?: Approver;
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
  onToolError?(
    event: ToolCallEvent & { error: ToolwrightError; handling: 'retry' | ErrorBoundary | 'abort'; durationMs: number },
  ): void | Promise<void>;
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
  /** By tool call id (own keys only: ids are the model's). */
  decisions: Record<string, StoredDecision>;
  records: ToolCallRecord[];
  usage: ModelUsage;
  failures: Record<string, number>;
  /** Set while one process resumes the run (see `resumeLeaseMs`). */
  claim?: { id: string; at: number };
}

type StoredDecision = ApprovalDecision & { approver?: Approver; decidedAt?: number };

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
  /** The paused run as this process stored it: claimed for a resume, or with new decisions already written. */
  stored?: StoredRun;
  /** Call ids used in this run, so that every id is unique before anything is decided. */
  callIds: Set<string>;
  approver?: Approver;
  stopped?: boolean;
  /** The memory's load, started by the first call to a tool that reads memory. */
  memoryLoad?: Promise<void>;
}

interface CallOutcome {
  call: ToolCall;
  arguments: string;
  result?: string;
  error?: ToolwrightError;
  status: ToolCallRecord['status'];
  durationMs: number;
  handling?: 'retry' | ErrorBoundary | 'abort';
  approval?: ApprovalRecord;
}

interface ToolPlan {
  tool: RegisteredTool;
  timeoutMs?: number;
}

const CORRECTABLE = new Set<ErrorCode>(['INVALID_JSON', 'INVALID_ARGUMENTS', 'TOOL_NOT_FOUND', 'MODEL_RETRY']);
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
  private readonly memoryAtStart: boolean;
  private readonly catalog: ToolCatalog;
  private readonly plans = new Map<string, ToolPlan>();
  private readonly approvalTools: ToolPlan[] = [];
  private readonly hooks: readonly AgentHooks[];
  private readonly before: AgentHooks['beforeToolCall'][];
  private readonly after: AgentHooks['afterToolCall'][];
  private readonly onError: AgentHooks['onToolError'][];
  /** Some hook set watches run start/end. */
  private readonly observed: boolean;
  private readonly stopWhen?: AgentOptions['stopWhen'];
  private readonly repair?: AgentOptions['repairToolCall'];
  private readonly resumeLeaseMs: number;
  private readonly onHookError: (error: unknown, hook: string) => void;

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
    this.memoryAtStart = options.loadMemory ?? (typeof options.instructions === 'function' && options.instructions.length >= 2);
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
    this.stopWhen = options.stopWhen;
    this.repair = options.repairToolCall;
    this.resumeLeaseMs = options.resumeLeaseMs ?? 10 * 60_000;
    this.onHookError =
      options.onHookError ??
      ((error, hook) =>
        process.emitWarning(
          `toolwright agent "${this.name}": ${hook} hook failed: ${error instanceof Error ? error.message : String(error)}`,
          'ToolwrightHookWarning',
        ));
  }

  /** One user turn: load, loop until the model answers (or a call needs approval), save. */
  async run(input: string, options: RunOptions): Promise<RunResult> {
    const { state, pending } = await this.open(options, input);
    if (pending)
      throw new RunPausedError(
        options.sessionId,
        pending.approvals.map((a) => a.toolCallId),
      );
    state.context.setUserInput(input);
    state.context.addMessage({ role: 'user', content: input });
    return this.drive(state, undefined);
  }

  /**
   * Decides calls of a paused run (by tool call id) and, once every call is decided, runs them and
   * continues the loop. Works from the stored run alone, so any process (any Agent instance with
   * the same name, tools and store) can resume it. Undecided calls keep the run paused. Decisions
   * are written, and the run claimed for running, atomically in the store: of two approvers at
   * once, one wins and the other gets RunClaimedError; the tools run once.
   */
  async resume(options: ResumeOptions, decisions: Readonly<Record<string, ApprovalDecision>>): Promise<RunResult> {
    const approver = approverOf(options.approver);
    const { state, pending } = await this.open(options, undefined);
    if (!pending) throw new RunNotFoundError(options.sessionId, this.name);
    const merged: Record<string, StoredDecision> = {};
    for (const [id, decision] of Object.entries(pending.decisions ?? {})) setOwn(merged, id, decision);
    const decidedAt = Date.now();
    for (const [id, decision] of Object.entries(decisions)) {
      const approval = pending.approvals.find((a) => a.toolCallId === id);
      if (!approval) {
        throw new ApprovalDecisionError(
          `Tool call "${id}" is not waiting for approval. Pending: ${pending.approvals.map((a) => a.toolCallId).join(', ')}.`,
        );
      }
      if (
        !decision ||
        (decision.approve !== true && (decision.approve !== false || typeof decision.reason !== 'string' || !decision.reason))
      ) {
        throw new ApprovalDecisionError(`Decision for "${id}" must be { approve: true, arguments? } or { approve: false, reason: "…" }.`);
      }
      if (decision.approve && decision.arguments !== undefined) await this.checkEdit(approval, decision.arguments);
      setOwn(merged, id, { ...decision, ...(approver ? { approver } : {}), decidedAt });
    }
    const complete = pending.approvals.every((a) => Object.hasOwn(merged, a.toolCallId));
    if (complete && pending.claim && decidedAt - pending.claim.at < this.resumeLeaseMs)
      throw new RunClaimedError(options.sessionId, pending.runId);
    const next: StoredRun = { ...pending, decisions: merged };
    // Claimed before anything runs; a claim left by a process that died expires after resumeLeaseMs.
    if (complete) next.claim = { id: randomUUID(), at: decidedAt };
    else delete next.claim;
    if (!(await this.store.compareAndSetPendingRun(state.key, pending, next))) throw new RunClaimedError(options.sessionId, pending.runId);
    state.stored = JSON.parse(JSON.stringify(next)) as StoredRun; // as stored: the run mutates `next` (records, usage)
    state.approver = approver;
    return this.drive(state, next);
  }

  /** Approves one pending call, optionally with edited arguments. */
  approve(options: ResumeOptions, toolCallId: string, editedArguments?: string | Record<string, unknown>): Promise<RunResult> {
    return this.resume(options, {
      [toolCallId]: editedArguments === undefined ? { approve: true } : { approve: true, arguments: editedArguments },
    });
  }

  /** Rejects one pending call; the model sees the reason. */
  reject(options: ResumeOptions, toolCallId: string, reason: string): Promise<RunResult> {
    return this.resume(options, { [toolCallId]: { approve: false, reason } });
  }

  /** An approver's edit is validated when given: refused to the approver (field errors), never sent to the model. */
  private async checkEdit(approval: PendingApproval, edited: string | Record<string, unknown>): Promise<void> {
    try {
      await this.registry.parse(approval.name, edited);
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw error;
      throw new ApprovalDecisionError(
        `The edited arguments for "${approval.toolCallId}" (${approval.name}) are invalid: ${error.message}. The run stays paused.`,
        error.errors,
      );
    }
  }

  /** The calls a session's paused run waits on (empty when nothing is paused). */
  async pendingApprovals(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingApproval[]> {
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId }, { historyLimit: 0 });
    if (snapshot && (snapshot.userId ?? null) !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    const run = this.storedRun(snapshot);
    return run ? run.approvals.filter((a) => !Object.hasOwn(run.decisions ?? {}, a.toolCallId)) : [];
  }

  // --- the run -------------------------------------------------------------------------------

  private async drive(state: RunState, pending: StoredRun | undefined): Promise<RunResult> {
    if (this.observed) await this.emitStart(state);
    let result: RunResult;
    let stored: StoredRun | undefined;
    // New decisions of a run still paused were written by compare-and-set: saving the run again could undo a concurrent one.
    let written = false;
    try {
      if (pending) {
        if (pending.approvals.some((a) => !Object.hasOwn(pending.decisions, a.toolCallId))) {
          stored = pending;
          written = true;
        } else {
          state.context.addMessage(pending.assistant);
          await this.step(state, pending.assistant, await this.select(state), pending.decisions);
        }
      }
      if (!stored && !state.stopped) stored = await this.loop(state);
      result = this.result(state, stored);
    } catch (error) {
      const failure =
        state.signal?.aborted && !(error instanceof RunAbortedError)
          ? new RunAbortedError(state.key.sessionId, state.context.getConversationHistory(), state.signal.reason)
          : error;
      // Keep what happened (the history is complete: every call has its result); the failure wins over a save error.
      await this.save(state, state.hadPending ? null : undefined).catch(() => this.release(state));
      if (this.observed) await this.emitEnd(state, 'failed', failure);
      throw failure;
    }
    // A new pause is written by compare-and-set first: of two runs of one session pausing at once
    // (or a resume whose claim was taken over), one keeps its paused run; the other fails typed.
    const previous = state.stored ?? null;
    const pausing = stored !== undefined && !written;
    try {
      if (pausing && !(await this.store.compareAndSetPendingRun(state.key, previous, stored))) {
        const lost = previous
          ? new RunClaimedError(state.key.sessionId, state.runId)
          : new RunPausedError(state.key.sessionId, await this.pendingIds(state.key));
        await this.save(state, undefined).catch(() => undefined);
        if (this.observed) await this.emitEnd(state, 'failed', lost);
        throw lost;
      }
      await this.save(state, written || pausing ? undefined : state.hadPending ? null : undefined);
    } catch (error) {
      if (error instanceof RunClaimedError || error instanceof RunPausedError) throw error;
      // The turn was not saved: take the new pause back (best effort) and give up the claim, so a retry can run.
      if (pausing) await this.store.compareAndSetPendingRun(state.key, stored, previous).catch(() => undefined);
      await this.release(state);
      if (this.observed) await this.emitEnd(state, 'failed', error);
      throw error;
    }
    if (this.observed) await this.emitEnd(state, result.status, undefined);
    return result;
  }

  private async pendingIds(key: SessionKey): Promise<string[]> {
    const run = this.storedRun(await this.store.loadSession(key, { historyLimit: 0 }).catch(() => undefined));
    return run ? run.approvals.map((a) => a.toolCallId) : [];
  }

  /** The loop: ask the model, run its calls, until it answers or a call needs approval. */
  private async loop(state: RunState): Promise<StoredRun | undefined> {
    const context = state.context;
    for (;;) {
      if (state.signal?.aborted) throw new RunAbortedError(state.key.sessionId, context.getConversationHistory(), state.signal.reason);
      if (state.turns >= this.maxTurns)
        throw new MaxTurnsExceededError(this.maxTurns, state.key.sessionId, context.getConversationHistory());
      const selected = this.select(state);
      const selection = selected instanceof Promise ? await selected : selected;
      let response: ModelResponse;
      try {
        response = await this.model.generate({
          instructions: state.instructions,
          messages: context.getConversationHistory(),
          tools: selection.definitions,
          signal: state.signal,
        });
      } catch (error) {
        throw new ModelCallFailedError(this.model.name, state.key.sessionId, context.getConversationHistory(), error);
      }
      state.turns++;
      if (response.usage) {
        state.usage.inputTokens += response.usage.inputTokens;
        state.usage.outputTokens += response.usage.outputTokens;
      }
      if (response.toolCalls.length === 0) {
        context.addMessage({ role: 'assistant', content: response.content });
        return undefined;
      }
      // One id per call before anything is decided: a decision, a result and an idempotency key each name one call.
      let calls = uniqueCallIds(response.toolCalls, state.callIds);
      if (this.repair) calls = await this.repairCalls(state, calls, selection);
      const assistant = { role: 'assistant' as const, content: response.content, toolCalls: calls };
      if (this.approvalTools.length > 0) {
        const approvals = await this.approvalsNeeded(state, calls, selection);
        if (approvals.length > 0) return this.pause(state, assistant, approvals);
      }
      context.addMessage(assistant);
      await this.step(state, assistant, selection, undefined);
      if (state.stopped) return undefined;
    }
  }

  /** Runs one response's calls, then asks `stopWhen` whether the run ends here. */
  private async step(
    state: RunState,
    assistant: StoredRun['assistant'],
    selection: CatalogSelection,
    decisions?: Record<string, StoredDecision>,
  ): Promise<void> {
    const before = state.records.length;
    await this.runCalls(state, assistant.toolCalls, selection, decisions);
    if (!this.stopWhen) return;
    const step: StepResult = {
      turn: state.turns,
      text: assistant.content,
      toolCalls: assistant.toolCalls,
      results: state.records.slice(before),
      usage: { ...state.usage },
      context: state.context,
    };
    if (await this.stopWhen(step)) state.stopped = true;
  }

  /** Offers each call the model got wrong to `repairToolCall`, before approvals see the calls. */
  private async repairCalls(state: RunState, calls: ToolCall[], selection: CatalogSelection): Promise<ToolCall[]> {
    const out: ToolCall[] = [];
    for (const call of calls) {
      let error: ToolwrightError | undefined;
      if (!this.registry.has(call.name) || (selection.offered && !selection.offered.has(call.name))) {
        error = new ToolNotFoundError(call.name, selection.offered ? [...selection.offered] : this.registry.names());
      } else {
        try {
          await this.registry.parse(call.name, call.arguments);
        } catch (e) {
          if (!(e instanceof ToolwrightError) || !CORRECTABLE.has(e.code)) throw e;
          error = e;
        }
      }
      let fixed: RepairedCall | null | undefined | void;
      if (error) {
        try {
          fixed = await this.repair!({ call, error, tools: selection.definitions, context: state.context });
        } catch (hookError) {
          this.onHookError(hookError, 'repairToolCall');
        }
      }
      out.push(
        fixed
          ? {
              id: call.id,
              name: fixed.name,
              arguments: typeof fixed.arguments === 'string' ? fixed.arguments : JSON.stringify(fixed.arguments),
            }
          : call,
      );
    }
    return out;
  }

  /** Gives up this process's claim on a paused run whose resume could not be saved, so a retry can resume it. */
  private async release(state: RunState): Promise<void> {
    const claimed = state.stored;
    if (!claimed?.claim) return;
    const { claim: _claim, ...released } = claimed;
    await this.store.compareAndSetPendingRun(state.key, claimed, released).catch(() => undefined);
  }

  private select(state: RunState): CatalogSelection | Promise<CatalogSelection> {
    return this.catalog.select(state.context, state.input, state.tags);
  }

  /**
   * Runs one response's calls: consecutive ordinary calls concurrently (up to maxConcurrency), a
   * sequential tool alone. Every call settles, then results go to the history in call order; only
   * then does a failure (retry budget, `throw` boundary, cancellation) end the run.
   */
  private async runCalls(
    state: RunState,
    calls: readonly ToolCall[],
    selection: CatalogSelection,
    decisions?: Record<string, StoredDecision>,
  ): Promise<void> {
    const outcomes: CallOutcome[] = new Array(calls.length);
    const exec = async (i: number) => {
      outcomes[i] = await this.execute(state, calls[i], i, selection, ownValue(decisions, calls[i].id));
    };
    if (calls.length === 1) {
      outcomes[0] = await this.execute(state, calls[0], 0, selection, ownValue(decisions, calls[0].id));
    } else {
      for (let i = 0; i < calls.length;) {
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

    // Every call gets its result in the history first; only then do observers hear of errors.
    let failure: (() => AgentRunError) | undefined;
    for (const outcome of outcomes) {
      const fail = this.settle(state, outcome);
      failure ??= fail;
    }
    if (this.onError.length > 0) for (const outcome of outcomes) if (outcome.error) await this.reportError(state, outcome);
    if (failure) throw failure();
  }

  /** onToolError observes: its failure is reported to onHookError and changes nothing about the call. */
  private async reportError(state: RunState, o: CallOutcome): Promise<void> {
    for (const hook of this.onError) {
      try {
        await hook!({
          ...this.event(state, o.call, o.arguments, o.approval),
          error: o.error!,
          handling: o.handling!,
          durationMs: o.durationMs,
        });
      } catch (error) {
        this.onHookError(error, 'onToolError');
      }
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
        // Own keys only: a tool name such as `constructor` must not read Object.prototype.
        const attempts = (ownValue(state.failures, call.name) ?? 0) + 1;
        setOwn(state.failures, call.name, attempts);
        if (attempts > (ownValue(this.retryBudgets, call.name) ?? this.retryBudget)) {
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
    const record: ToolCallRecord = {
      id: call.id,
      name: call.name,
      arguments: o.arguments,
      result: content,
      status: o.status,
      durationMs: o.durationMs,
    };
    if (error) record.code = error.code;
    if (o.approval) record.approval = o.approval;
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
  private async execute(
    state: RunState,
    call: ToolCall,
    index: number,
    selection: CatalogSelection,
    decision: StoredDecision | undefined,
  ): Promise<CallOutcome> {
    const started = performance.now();
    let args: string | Record<string, unknown> = call.arguments;
    const approval = decision && approvalRecord(decision);
    const outcome = (status: CallOutcome['status'], result: string | undefined, error?: ToolwrightError): CallOutcome => ({
      call,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      result,
      error,
      status,
      durationMs: performance.now() - started,
      approval,
    });
    try {
      if (selection.offered && !selection.offered.has(call.name)) throw new ToolNotFoundError(call.name, [...selection.offered]);
      if (decision) {
        if (!decision.approve) return outcome('rejected', refusal('REJECTED', `A human rejected this call: ${decision.reason}`));
        if (decision.arguments !== undefined) args = decision.arguments;
      }
      for (const hook of this.before) {
        const verdict = await hook!(this.event(state, call, args, approval));
        if (verdict && 'deny' in verdict) return outcome('denied', refusal('DENIED', verdict.deny));
        if (verdict && 'arguments' in verdict) args = verdict.arguments;
      }
      if (!state.memory.loaded && this.plans.get(call.name)?.tool.memory) await this.loadMemory(state);
      let result = await this.registry.call(call.name, args, state.context, state.memory, {
        approved: decision?.approve === true,
        toolCallId: call.id,
        // The logical call (run, model turn, place in the response): stable across resumes and a retried
        // resume, distinct across runs even when a provider restarts its call ids every response.
        logicalCallId: `${state.runId}:${state.turns}:${index}`,
        signal: state.signal,
        timeoutMs: this.plans.get(call.name)?.timeoutMs,
      });
      for (const hook of this.after) {
        const replaced = await hook!({ ...this.event(state, call, args, approval), result, durationMs: performance.now() - started });
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
      if (!this.plans.get(call.name)?.tool.approval || (selection.offered && !selection.offered.has(call.name))) continue;
      let check;
      try {
        check = await this.registry.check(call.name, call.arguments, state.context);
      } catch {
        continue;
      }
      if (check.approvalRequired) {
        needed.push({ toolCallId: call.id, name: call.name, arguments: call.arguments, args: JSON.parse(JSON.stringify(check.input)) });
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
    if (options.userId !== undefined) checkId('userId', options.userId);
    const memoryKey: MemoryKey = {
      agentName: this.name,
      userId: memoryScope(options.userId, options.sessionId),
      tenantId: options.tenantId,
    };
    const [snapshot, memorySnapshot] = await Promise.all([
      this.store.loadSession(key, this.historyLimit === undefined ? undefined : { historyLimit: this.historyLimit }),
      this.memoryAtStart ? this.store.loadMemory(memoryKey) : undefined,
    ]);
    // One owner per session, fixed when a run creates it (insert-if-absent in the store): a user, or
    // nobody (anonymous). A run without userId is anonymous and never acts as the owner.
    const owner = snapshot
      ? (snapshot.userId ?? null)
      : input === undefined
        ? (options.userId ?? null)
        : await this.store.claimSession(key, options.userId ?? null);
    if (owner !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    const context = snapshot
      ? AgentContext.fromSnapshot(this.historyLimit === undefined ? snapshot : withoutOrphanResults(snapshot), options.userId)
      : new AgentContext({ sessionId: options.sessionId, userId: options.userId, tenantId: options.tenantId });
    // PHP-kit-style tools read the signed-in user from state; only the runner ever writes it.
    if (options.userId !== undefined && context.getState('user_id') !== options.userId) context.setState('user_id', options.userId);
    const memory = !this.memoryAtStart
      ? AgentMemory.unloaded(memoryKey)
      : memorySnapshot
        ? AgentMemory.fromSnapshot(memorySnapshot)
        : new AgentMemory(memoryKey);
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
      callIds: new Set(resumed && pending ? [...pending.records.map((r) => r.id), ...pending.assistant.toolCalls.map((c) => c.id)] : []),
    };
    return { state, pending };
  }

  /** Loads the memory once per run, for the first tool that reads it (concurrent calls share the load). */
  private loadMemory(state: RunState): Promise<void> {
    return (state.memoryLoad ??= this.store.loadMemory(state.memoryKey).then((snapshot) => state.memory.hydrate(snapshot)));
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
    const lastAssistant = state.stopped ? [...history].reverse().find((m) => m.role === 'assistant') : last;
    return {
      status: paused ? 'paused' : 'completed',
      output: paused ? null : lastAssistant?.role === 'assistant' ? (lastAssistant.content ?? '') : '',
      sessionId: state.key.sessionId,
      runId: state.runId,
      toolCalls: state.records,
      usage: state.usage,
      turns: state.turns,
      durationMs: Date.now() - state.startedAt,
      approvals: paused ? paused.approvals.filter((a) => !Object.hasOwn(paused.decisions, a.toolCallId)) : NO_APPROVALS,
      ...(state.stopped ? { stoppedBy: 'stopWhen' as const } : {}),
    };
  }

  // --- hooks ---------------------------------------------------------------------------------

  private event(state: RunState, call: ToolCall, args: string | Record<string, unknown>, approval?: ApprovalRecord): ToolCallEvent {
    const event: ToolCallEvent = {
      runId: state.runId,
      sessionId: state.key.sessionId,
      userId: state.userId,
      tenantId: state.key.tenantId,
      toolCallId: call.id,
      name: call.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      context: state.context,
    };
    if (approval) event.approval = approval;
    return event;
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
      ...(state.approver ? { approver: state.approver } : {}),
    };
  }

  /** Run observers: a failing one is reported to onHookError and changes nothing about the run. */
  private async emitStart(state: RunState): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onRunStart) continue;
      try {
        await hook.onRunStart(this.startEvent(state));
      } catch (error) {
        this.onHookError(error, 'onRunStart');
      }
    }
  }

  private async emitEnd(state: RunState, status: RunEndEvent['status'], error: unknown): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onRunEnd) continue;
      try {
        await hook.onRunEnd({
          ...this.startEvent(state),
          status,
          durationMs: Date.now() - state.startedAt,
          turns: state.turns,
          usage: { ...state.usage },
          toolCalls: [...state.records],
          ...(error === undefined ? {} : { error }),
        });
      } catch (hookError) {
        this.onHookError(hookError, 'onRunEnd');
      }
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

/** Gives each call an id unused in this run (`c1`, then `c1_2`…), so that one decision is one call. */
function uniqueCallIds(calls: readonly ToolCall[], used: Set<string>): ToolCall[] {
  return calls.map((call) => {
    const base = typeof call.id === 'string' && call.id !== '' ? call.id : 'call';
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** Own keys only: ids and tool names come from the model and may be `constructor` or `__proto__`. */
function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Anonymous sessions keep their memory under `#session:<id>`; a user id starting with `#` is stored
 * with one more `#`, so no user id can spell an anonymous scope.
 */
function memoryScope(userId: string | undefined, sessionId: string): string {
  if (userId === undefined) return `#session:${sessionId}`;
  return userId.startsWith('#') ? `#${userId}` : userId;
}

function approverOf(approver: ResumeOptions['approver']): Approver | undefined {
  if (approver === undefined) return undefined;
  const value = typeof approver === 'string' ? { id: approver } : approver;
  if (!value || typeof value.id !== 'string' || value.id === '') {
    throw new ApprovalDecisionError('approver must be a non-empty id string or { id: string, … }.');
  }
  return JSON.parse(JSON.stringify(value)) as Approver;
}

function approvalRecord(decision: StoredDecision): ApprovalRecord {
  const record: ApprovalRecord = {
    approved: decision.approve,
    edited: decision.approve && decision.arguments !== undefined,
    decidedAt: decision.decidedAt ?? 0,
  };
  if (decision.approver) record.approver = decision.approver;
  if (!decision.approve) record.reason = decision.reason;
  return record;
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
