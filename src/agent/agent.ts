import { ModelError, ToolwrightConfigError } from '../errors/errors';
import { Cancellation, onAbort } from '../registry/cancellation';
import { ToolRegistry } from '../registry/tool-registry';
import { InMemoryStore } from '../stores/in-memory.store';
import { SqliteStore } from '../stores/sqlite.store';
import type { ToolCall } from '../session/message';
import type { SessionStore } from '../stores/store';
import { activeTracer, traceAgentRun, traceModelCall } from '../tracing/tracing';
import { ToolCatalog, type CatalogSelection } from './catalog';
import {
  ApprovalAlreadyDecidedError,
  MaxTurnsExceededError,
  ModelCallFailedError,
  RunAbortedError,
  RunClaimedError,
  RunNotFoundError,
  RunPausedError,
} from './errors';
import { HookSet } from './hooks';
import { RunEventStream, type RunEvents } from './event-stream';
import type { AgentEvent } from './events';
import type { Model, ModelRequest, ModelResponse, ModelUsage } from './model';
import {
  alreadyDecided,
  approverOf,
  RunStore,
  runResult,
  type RunState,
  type StoredConversation,
  type StoredDecision,
  type StoredRun,
} from './run-state';
import { fromJournal, StepJournal, STEPS_NAMESPACE } from './step-journal';
import { ToolRunner, uniqueCallIds } from './tool-runner';
import type { AgentOptions, ApprovalDecision, PendingApproval, ResumeOptions, RunOptions, RunResult, StepResult } from './types';

export type * from './types';

/**
 * Drives model → tool calls → results until the model answers, for one session and user. Loads the
 * session and the (agent, user) memory once, saves both once when the run completes, pauses or
 * fails. Tool results stay in the history, so later turns can refer to them. Beside it:
 * run-state.ts (load, save, the paused run), tool-runner.ts (one response's calls), hooks.ts.
 */
export class Agent {
  readonly name: string;
  readonly registry: ToolRegistry;
  readonly store: SessionStore;
  private readonly model: Model;
  private readonly maxTurns: number;
  private readonly catalog: ToolCatalog;
  private readonly stopWhen?: AgentOptions['stopWhen'];
  private readonly hooks: HookSet;
  private readonly runs: RunStore;
  private readonly tools: ToolRunner;
  private readonly tracing: AgentOptions['tracing'];
  /** Durable steps (see StepJournal); unset for a store that keeps nothing past the process. */
  private readonly steps?: StepJournal;

  constructor(options: AgentOptions) {
    this.name = options.name;
    this.model = options.model;
    this.registry =
      options.tools instanceof ToolRegistry
        ? options.tools
        : ToolRegistry.build({ tools: options.tools, container: options.container, tracing: options.tracing });
    this.tracing = options.tracing;
    this.store = options.store ?? new SqliteStore(); // the embedded default; opened on first use
    this.maxTurns = positiveInt('maxTurns', options.maxTurns ?? 10);
    this.catalog = new ToolCatalog(this.registry, options.catalog);
    this.stopWhen = options.stopWhen;
    this.hooks = new HookSet(this.name, options);
    this.runs = new RunStore(this.store, this.name, {
      instructions: options.instructions,
      historyLimit: options.historyLimit,
      memoryAtStart: options.loadMemory ?? (typeof options.instructions === 'function' && options.instructions.length >= 2),
      resumeLeaseMs: options.resumeLeaseMs ?? 10 * 60_000,
    });
    const claims = (this.store as Partial<Pick<SqliteStore, 'idempotency'>>).idempotency;
    if ((options.durableSteps ?? !(this.store instanceof InMemoryStore)) && claims !== undefined) {
      this.steps = new StepJournal(
        claims.call(this.store, STEPS_NAMESPACE),
        this.name,
        positiveInt('stepLeaseMs', options.stepLeaseMs ?? 30_000),
      );
    }
    this.tools = new ToolRunner(
      this.registry,
      this.hooks,
      {
        toolTimeoutMs: options.toolTimeoutMs,
        maxConcurrency: positiveInt('maxConcurrency', options.maxConcurrency ?? 4),
        retryBudget: options.retryBudget ?? 2,
        retryBudgets: options.retryBudgets,
        errorPolicy: options.errorPolicy ?? 'throw',
        repairToolCall: options.repairToolCall,
        steps: this.steps,
      },
      (state) => this.runs.loadMemory(state),
    );
  }

  /** One user turn: load, loop until the model answers (or a call needs approval), save. */
  run(input: string, options: RunOptions): Promise<RunResult> {
    return this.begin(input, options, undefined);
  }

  /**
   * `run` as it happens: run-start, per model turn its text deltas, tool calls, tool progress and
   * results and turn-end, approval-required per call a pause waits on, and run-end carrying the
   * same RunResult `run` returns; a run that fails throws its error from the iterator. Leaving the
   * loop early (break, return, throw) cancels the run — its signal fires, tools see it on
   * `context.signal` — and waits for it to save, so the session stays well-formed. The run starts
   * on the first read.
   */
  stream(input: string, options: RunOptions): AsyncIterableIterator<AgentEvent> {
    return new RunEventStream(options.signal, Agent.startRun, this, input, options);
  }

  /** `resume` (approve / reject) as events, as `stream` yields them. */
  streamResume(options: ResumeOptions, decisions: Readonly<Record<string, ApprovalDecision>>): AsyncIterableIterator<AgentEvent> {
    return new RunEventStream(options.signal, Agent.startResume, this, options, decisions);
  }

  // A stream's run: plain functions of the stream's arguments (no closure a stream).
  private static startRun(
    this: void,
    events: RunEvents,
    cancel: Cancellation,
    agent: Agent,
    input: string,
    options: RunOptions,
  ): Promise<RunResult> {
    return agent.begin(input, options, events, cancel);
  }

  private static startResume(
    this: void,
    events: RunEvents,
    cancel: Cancellation,
    agent: Agent,
    options: ResumeOptions,
    decisions: Readonly<Record<string, ApprovalDecision>>,
  ): Promise<RunResult> {
    return agent.continue(options, decisions, events, cancel);
  }

  /** `run`, or with `events` a streamed run: its failure goes to the stream (`events.end`) and its promise does not reject. */
  private async begin(input: string, options: RunOptions, events: RunEvents | undefined, cancel?: Cancellation): Promise<RunResult> {
    try {
      const { state, pending } = await this.runs.open(options, input, cancel ?? options.signal);
      if (pending)
        throw new RunPausedError(
          options.sessionId,
          pending.approvals.map((a) => a.toolCallId),
        );
      state.context.setUserInput(input);
      state.context.addMessage({ role: 'user', content: input });
      state.events = events;
      return this.ended(state, await this.traced(state, undefined));
    } catch (error) {
      return this.failed(events, error);
    }
  }

  /**
   * Decides calls of a paused run (by tool call id) and, once every call is decided, runs them and
   * continues the loop. Works from the stored run alone, so any process (any Agent instance with
   * the same name, tools and store) can resume it. Undecided calls keep the run paused. Decisions
   * are written, and the run claimed for running, atomically in the store: of two approvers at
   * once, one wins and the other gets RunClaimedError; the tools run once.
   */
  resume(options: ResumeOptions, decisions: Readonly<Record<string, ApprovalDecision>>): Promise<RunResult> {
    return this.continue(options, decisions, undefined);
  }

  private async continue(
    options: ResumeOptions,
    decisions: Readonly<Record<string, ApprovalDecision>>,
    events: RunEvents | undefined,
    cancel?: Cancellation,
  ): Promise<RunResult> {
    try {
      const approver = approverOf(options.approver);
      const { state, pending } = await this.runs.open(options, undefined, cancel ?? options.signal);
      if (!pending) {
        // A call the run already went past (another approver decided it) is not "no run": say it was decided.
        const decided = alreadyDecided(state, decisions);
        throw decided.length
          ? new ApprovalAlreadyDecidedError(options.sessionId, decided)
          : new RunNotFoundError(options.sessionId, this.name);
      }
      const next = await this.runs.decide(state, pending, decisions, approver, (approval, edited) =>
        this.tools.checkEdit(approval, edited),
      );
      state.events = events;
      return this.ended(state, await this.traced(state, next));
    } catch (error) {
      return this.failed(events, error);
    }
  }

  /**
   * A streamed run's last events, once it saved and its span ended: approval-required per call a
   * pause waits on, then run-end, which ends the stream (its reader's next read is done at once).
   */
  private ended(state: RunState, result: RunResult): RunResult {
    const events = state.events;
    if (events) {
      for (const approval of result.approvals) events.emit({ type: 'approval-required', runId: state.runId, approval });
      events.emit({ type: 'run-end', runId: state.runId, result });
    }
    return result;
  }

  /** A run's failure: thrown by `run`, handed to the stream (whose reader gets it) when streamed. */
  private failed(events: RunEvents | undefined, error: unknown): RunResult {
    if (events === undefined) throw error;
    events.end(true, error);
    return undefined as unknown as RunResult; // never read: a streamed run's result reaches its reader as run-end
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

  /** The calls a session's paused run waits on (empty when nothing is paused). */
  pendingApprovals(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingApproval[]> {
    return this.runs.pendingApprovals(options);
  }

  /**
   * What a session holds, for a front end that shows it again (`toolwright/ai-sdk-ui` restores a
   * chat from it): the whole stored history, the paused run, the log of its last runs. Only the
   * session's own user (or, for an anonymous session, an anonymous caller) may read it:
   * SessionForbiddenError otherwise. A session that does not exist is empty.
   */
  loadConversation(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation> {
    return this.runs.conversation(options);
  }

  // --- the run -------------------------------------------------------------------------------

  private async drive(state: RunState, pending: StoredRun | undefined): Promise<RunResult> {
    const { hooks, runs } = this;
    if (hooks.observed) await hooks.emitStart(state);
    state.events?.emit({ type: 'run-start', runId: state.runId, sessionId: state.key.sessionId, resumed: state.resumed });
    let result: RunResult;
    let stored: StoredRun | undefined;
    // New decisions of a run still paused were written by compare-and-set: saving the run again could undo a concurrent one.
    let written = false;
    // A resume holds its claim while it runs: renewed, so no other process takes the run over mid-way.
    const keeping = runs.keepClaim(state);
    try {
      if (pending) {
        if (pending.approvals.some((a) => !Object.hasOwn(pending.decisions, a.toolCallId))) {
          stored = pending;
          written = true;
        } else {
          state.context.addMessage(pending.assistant);
          if (state.events) this.emitCalls(state, pending.assistant.toolCalls);
          await this.step(state, pending.assistant, await this.select(state), NO_USAGE, pending.decisions);
        }
      }
      if (!stored && !state.stopped) stored = await this.loop(state);
      result = runResult(state, stored);
      if (keeping) await keeping.stop();
    } catch (error) {
      if (keeping) await keeping.stop();
      if (fromJournal(error)) {
        // Another live process runs this run, or the store failed under a step: nothing is saved here; its records stay.
        await runs.release(state);
        if (hooks.observed) await hooks.emitEnd(state, 'failed', error);
        throw error;
      }
      const failure =
        state.signal?.aborted && !(error instanceof RunAbortedError)
          ? new RunAbortedError(state.key.sessionId, state.context.getConversationHistory(), state.signal.reason)
          : error;
      // Keep what happened (the history is complete: every call has its result); the failure wins over a save error.
      const saved = await runs.save(state, state.hadPending ? null : undefined, 'failed').then(
        () => true,
        () => runs.release(state).then(() => false),
      );
      if (saved) await this.steps?.forget(state);
      if (hooks.observed) await hooks.emitEnd(state, 'failed', failure);
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
          : new RunPausedError(state.key.sessionId, await runs.pendingIds(state.key));
        await runs.save(state, undefined, 'failed').catch(() => undefined);
        if (hooks.observed) await hooks.emitEnd(state, 'failed', lost);
        throw lost;
      }
      await runs.save(state, written || pausing ? undefined : state.hadPending ? null : undefined, result.status);
      // The run's end is saved: its step records are done with (a paused run keeps them in its stored run).
      if (stored === undefined) await this.steps?.forget(state);
    } catch (error) {
      if (error instanceof RunClaimedError || error instanceof RunPausedError) throw error;
      // The turn was not saved: take the new pause back (best effort) and give up the claim, so a retry can run.
      if (pausing) await this.store.compareAndSetPendingRun(state.key, stored, previous).catch(() => undefined);
      await runs.release(state);
      if (hooks.observed) await hooks.emitEnd(state, 'failed', error);
      throw error;
    }
    if (hooks.observed) await hooks.emitEnd(state, result.status, undefined);
    return result;
  }

  /** The loop: ask the model, run its calls, until it answers or a call needs approval. */
  private async loop(state: RunState): Promise<StoredRun | undefined> {
    const context = state.context;
    for (;;) {
      // A reader that is behind: wait before the next model call (a model without `stream` answers a turn at once).
      const room = state.events?.room();
      if (room) await room;
      if (state.signal?.aborted) throw new RunAbortedError(state.key.sessionId, context.getConversationHistory(), state.signal.reason);
      if (state.turns >= this.maxTurns)
        throw new MaxTurnsExceededError(this.maxTurns, state.key.sessionId, context.getConversationHistory());
      const selected = this.select(state);
      const selection = selected instanceof Promise ? await selected : selected;
      // A durable run asks the model once per turn: a turn recorded by an attempt that died is replayed.
      const response = this.steps ? await this.replayable(state, selection) : await this.ask(state, selection);
      state.turns++;
      if (response.usage) {
        state.usage.inputTokens += response.usage.inputTokens;
        state.usage.outputTokens += response.usage.outputTokens;
      }
      if (response.toolCalls.length === 0) {
        context.addMessage({ role: 'assistant', content: response.content });
        state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage: response.usage ?? NO_USAGE });
        return undefined;
      }
      // One id per call before anything is decided: a decision, a result and an idempotency key each name one call.
      let calls = uniqueCallIds(response.toolCalls, state.callIds);
      if (this.tools.repairs) calls = await this.tools.repairCalls(state, calls, selection);
      const assistant = { role: 'assistant' as const, content: response.content, toolCalls: calls };
      if (state.events) this.emitCalls(state, calls);
      if (this.tools.approvals) {
        const approvals = await this.tools.approvalsNeeded(state, calls, selection);
        if (approvals.length > 0) {
          state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage: response.usage ?? NO_USAGE });
          return this.runs.pause(state, assistant, approvals);
        }
      }
      context.addMessage(assistant);
      await this.step(state, assistant, selection, response.usage ?? NO_USAGE, undefined);
      if (state.stopped) return undefined;
    }
  }

  /** A model turn as a durable step: asked once, or replayed from its record (a streamed run gets its text as one delta). */
  private async replayable(state: RunState, selection: CatalogSelection): Promise<ModelResponse> {
    let asked = false;
    const response = await this.steps!.step(state, `m${state.turns + 1}`, () => ((asked = true), this.ask(state, selection)));
    if (!asked && state.events && response.content)
      state.events.emit({ type: 'text-delta', runId: state.runId, turn: state.turns + 1, delta: response.content });
    return response;
  }

  /** One model turn (generated or streamed); a failure is the run's ModelCallFailedError. */
  private async ask(state: RunState, selection: CatalogSelection): Promise<ModelResponse> {
    try {
      const request = modelRequest(state, selection);
      const streams = state.events !== undefined && this.model.stream !== undefined;
      const response = await this.traceTurn(state, request, () =>
        streams ? this.streamTurn(state, request) : this.model.generate(request),
      );
      // A model without `stream` streams its answer as one delta (here, not in a `then`: no extra promise a turn).
      if (state.events && !streams && response.content)
        state.events.emit({ type: 'text-delta', runId: state.runId, turn: state.turns + 1, delta: response.content });
      return response;
    } catch (error) {
      throw new ModelCallFailedError(this.model.name, state.key.sessionId, state.context.getConversationHistory(), error);
    }
  }

  /** Runs one response's calls, then asks `stopWhen` whether the run ends here. */
  private async step(
    state: RunState,
    assistant: StoredRun['assistant'],
    selection: CatalogSelection,
    usage: ModelUsage,
    decisions?: Record<string, StoredDecision>,
  ): Promise<void> {
    const before = state.records.length;
    await this.tools.runCalls(state, assistant.toolCalls, selection, decisions);
    state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage });
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

  /**
   * One model turn for a stream consumer, through `model.stream` (text as it arrives, each part
   * asked for once the reader has room; a model without it answers through `generate`, as one delta). A stream that ends without `finish`, or
   * a consumer that left while the model ignores the signal, ends the turn with an error.
   */
  private async streamTurn(state: RunState, request: ModelRequest): Promise<ModelResponse> {
    const events = state.events!;
    const turn = state.turns + 1;
    const parts = this.model.stream!(request)[Symbol.asyncIterator]();
    // The run's own cancellation, not request.signal: reading that would create an AbortSignal the model may never use.
    const signal = state.signal;
    let unlink: (() => void) | undefined;
    const aborted =
      signal &&
      new Promise<never>((_, reject) => {
        unlink = onAbort(signal, () => reject(new Error('The run was cancelled while the model streamed.', { cause: signal.reason })));
      });
    aborted?.catch(() => undefined);
    try {
      for (;;) {
        // Pulled as the reader reads: while it is behind, the model's next part is not asked for.
        const room = events.room();
        if (room) {
          await room;
          if (signal?.aborted) await aborted; // rejects: the reader left or the caller cancelled while the run waited
        }
        const next = aborted ? await Promise.race([parts.next(), aborted]) : await parts.next();
        if (next.done) throw new ModelError(this.model.name, 'the response stream ended without a finish part');
        const part = next.value;
        if (part.type === 'text-delta') events.emit({ type: 'text-delta', runId: state.runId, turn, delta: part.delta });
        else if (part.type === 'finish') return part.response;
      }
    } finally {
      unlink?.();
      void parts.return?.()?.catch(() => undefined);
    }
  }

  /** The response's calls, arguments complete, with the ids they run under. */
  private emitCalls(state: RunState, calls: readonly ToolCall[]): void {
    for (const call of calls) {
      state.events!.emit({
        type: 'tool-call',
        runId: state.runId,
        turn: state.turns,
        toolCallId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
    }
  }

  private select(state: RunState): CatalogSelection | Promise<CatalogSelection> {
    return this.catalog.select(state.context, state.input, state.tags);
  }

  /** A run or resume, as an `invoke_agent` span while the app has a tracer provider registered. */
  private traced(state: RunState, pending: StoredRun | undefined): Promise<RunResult> {
    const tracer = activeTracer();
    if (tracer === undefined) return this.drive(state, pending);
    const info = { agentName: this.name, modelName: this.model.name, conversationId: state.key.sessionId };
    return traceAgentRun(tracer, this.tracing, info, () => this.drive(state, pending));
  }

  /** One model call (generated or streamed), as a `chat` span when the app traces. */
  private traceTurn(state: RunState, request: ModelRequest, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
    const tracer = activeTracer();
    if (tracer === undefined) return call();
    const info = {
      modelName: this.model.name,
      conversationId: state.key.sessionId,
      stream: state.events !== undefined && !!this.model.stream,
    };
    return traceModelCall(tracer, this.tracing, info, request, call);
  }
}

/** A model turn's request; under a streamed run's Cancellation, `signal` is created only if the model reads it. */
function modelRequest(state: RunState, selection: CatalogSelection): ModelRequest {
  const cancel = state.signal;
  const instructions = state.instructions;
  const messages = state.context.getConversationHistory();
  const tools = selection.definitions;
  if (!(cancel instanceof Cancellation)) return { instructions, messages, tools, signal: cancel };
  const request = { instructions, messages, tools, [RUN]: cancel };
  // An own, enumerable getter shared by every request (a model wrapper's `{ ...request }` still carries the signal);
  // a getter in the literal would give every request its own hidden class. Measured: ~0.1 µs a request, where a
  // WeakMap beside the request cost ~0.5 µs.
  return Object.defineProperty(request, 'signal', LAZY_SIGNAL);
}

const RUN = Symbol('run');
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: { [RUN]: Cancellation }) {
    return this[RUN].signal;
  },
  enumerable: true,
};

const NO_USAGE: ModelUsage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ToolwrightConfigError(`${name} must be a positive integer, got ${value}`);
  return value;
}
