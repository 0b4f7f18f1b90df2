import { ToolInputError } from '../errors/errors';
import type { Cancellation } from '../registry/cancellation';
import type { ToolRegistry } from '../registry/tool-registry';
import type { SessionStore } from '../stores/store';
import { activeTracer, traceAgentRun } from '../tracing/tracing';
import type { CatalogSelection } from './catalog';
import { agentParts, type AgentParts } from './agent-parts';
import { AgentTool, type AgentToolOptions } from './agent-tool';
import { MaxTurnsExceededError, RetryBudgetExceededError, RunAbortedError } from './errors';
import { correction, withOutputSchema, type FinalOutput } from './final-output';
import { RunEventStream, type RunEvents } from './event-stream';
import { emitToolCalls, type AgentEvent } from './events';
import type { Model, ModelUsage } from './model';
import { finish, streamEnded, streamFailed, type RunOutcome } from './run-end';
import { runResult, waitsOnHuman, type RunState, type StoredConversation, type StoredDecision, type StoredRun } from './run-state';
import { uniqueCallIds } from './call-ids';
import { HandoffEvents, lastUserText } from './handoff-stream';
import { findInGraph, HOLDER_KEY, joined, recordTransfer, transferIn, transferTools, withTransfers } from './handoffs';
import { childResumes, isNested, ownDecisions, type Waiting } from './child-pause';
import type {
  AgentOptions,
  HandoffTarget,
  InputDecision,
  PendingApproval,
  PendingInput,
  ResumeDecision,
  ResumeOptions,
  RunOptions,
  RunResult,
  StepResult,
} from './types';

export type * from './types';

/**
 * Drives model → tool calls → results until the model answers, for one session and user. Loads the
 * session and the (agent, user) memory once, saves both once when the run completes, pauses or
 * fails. Tool results stay in the history, so later turns can refer to them. Beside it:
 * run-persistence.ts (load, save, the paused run), model-turn.ts (one model turn), tool-runner.ts
 * (one response's calls), run-end.ts (the run's end), hooks.ts.
 */
export class Agent<O = string> {
  readonly name: string;
  readonly registry: ToolRegistry;
  readonly store: SessionStore;
  readonly description?: string;
  private readonly model: Model;
  private readonly handoffs?: AgentOptions['handoffs'];
  private readonly parts: AgentParts;
  private readonly output?: FinalOutput;
  private readonly outputBudget: number;

  constructor(options: AgentOptions<O>) {
    this.name = options.name;
    this.description = options.description;
    this.handoffs = options.handoffs;
    this.model = options.model;
    this.parts = agentParts(options);
    this.output = this.parts.output?.output;
    this.outputBudget = options.retryBudget ?? 2;
    this.registry = this.parts.registry;
    this.store = this.parts.store;
  }

  /** This agent as a tool of another agent (a tool source: `ToolRegistry.buildAsync({ tools, sources: [agent.asTool(...)] })`). */
  asTool(options: AgentToolOptions): AgentTool {
    return new AgentTool(this, options, this.output);
  }

  /**
   * One user turn: load, loop until the model answers (or a call needs approval), save. With
   * handoffs, the agent holding the session runs it, and a transfer hands the turn to the next one.
   */
  run(input: string, options: RunOptions): Promise<RunResult<O>> {
    if (this.handoffs === undefined) return this.begin(input, options, undefined) as Promise<RunResult<O>>;
    return Agent.handedOff(undefined, undefined, this, options, input) as Promise<RunResult<O>>;
  }

  /** The agents this one hands off to (`AgentOptions.handoffs`). */
  handoffTargets(): readonly HandoffTarget[] {
    const targets = this.handoffs;
    return typeof targets === 'function' ? targets() : (targets ?? []);
  }

  /** The agent of this one's handoff graph that holds the session (this one when none is recorded). */
  private async holder(options: Pick<RunOptions, 'sessionId' | 'tenantId'>): Promise<Agent<unknown>> {
    if (this.handoffs === undefined) return this;
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId }, { historyLimit: 0 });
    const held = snapshot?.state[HOLDER_KEY];
    return (typeof held === 'string' && held !== this.name && findInGraph<Agent<unknown>>(this, held)) || this;
  }

  /** A turn (input, or a resume's decisions) through handoffs: the holder answers, each transfer hands it on; streamed as one run. */
  private static async handedOff(
    this: void,
    stream: RunEvents | undefined,
    cancel: Cancellation | undefined,
    first: Agent<unknown>,
    options: RunOptions,
    turn: string | Readonly<Record<string, ResumeDecision>>,
  ): Promise<RunResult<unknown>> {
    const events = stream && new HandoffEvents(stream);
    try {
      let agent = await first.holder(options);
      let input = typeof turn === 'string' ? turn : '';
      let result =
        typeof turn === 'string' ? await agent.begin(turn, options, events, cancel) : await agent.continue(options, turn, events, cancel);
      for (let hops = 0; !events?.failed && result.status === 'completed' && hops < first.parts.maxTurns; hops++) {
        const to = result.handoffs?.at(-1);
        const next = to === undefined || to === agent.name ? undefined : findInGraph<Agent<unknown>>(agent, to);
        if (next === undefined) break;
        agent = next;
        input ||= lastUserText(await agent.loadConversation(options)); // a resume's: the turn's user message
        const after = await agent.begin(input, options, events, cancel, true);
        result = events?.failed ? result : joined(result, after);
      }
      events?.endWith(result);
      return result;
    } catch (error) {
      return streamFailed(events, error);
    }
  }

  /**
   * `run` as it happens: run-start, per model turn its text deltas, tool calls, tool progress and
   * results and turn-end, approval-required per call a pause waits on, and run-end carrying the
   * same RunResult `run` returns; a run that fails throws its error from the iterator. Leaving the
   * loop early (break, return, throw) cancels the run — its signal fires, tools see it on
   * `context.signal` — and waits for it to save, so the session stays well-formed. The run starts
   * on the first read.
   */
  stream(input: string, options: RunOptions): AsyncIterableIterator<AgentEvent<O>> {
    if (this.handoffs === undefined) return new RunEventStream(options.signal, Agent.startRun, this, input, options) as Events<O>;
    return new RunEventStream(options.signal, Agent.handedOff, this, options, input) as Events<O>;
  }

  /** `resume` (approve / reject) as events, as `stream` yields them (with handoffs, the holder resumes). */
  streamResume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): AsyncIterableIterator<AgentEvent<O>> {
    if (this.handoffs === undefined) return new RunEventStream(options.signal, Agent.startResume, this, options, decisions) as Events<O>;
    return new RunEventStream(options.signal, Agent.handedOff, this, options, decisions) as Events<O>;
  }

  /**
   * Decides calls of a paused run (by tool call id) and, once every call is decided, runs them and
   * continues the loop. Works from the stored run alone, so any process (any Agent instance with
   * the same name, tools and store) can resume it. Undecided calls keep the run paused. Decisions
   * are written, and the run claimed for running, atomically in the store: of two approvers at
   * once, one wins and the other gets RunClaimedError; the tools run once.
   */
  resume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): Promise<RunResult<O>> {
    if (this.handoffs !== undefined) return Agent.handedOff(undefined, undefined, this, options, decisions) as Promise<RunResult<O>>;
    return this.continue(options, decisions, undefined) as Promise<RunResult<O>>;
  }

  /** Approves one pending call, optionally with edited arguments. */
  approve(options: ResumeOptions, toolCallId: string, editedArguments?: string | Record<string, unknown>): Promise<RunResult<O>> {
    return this.resume(options, {
      [toolCallId]: editedArguments === undefined ? { approve: true } : { approve: true, arguments: editedArguments },
    });
  }

  /** Rejects one pending call; the model sees the reason. */
  reject(options: ResumeOptions, toolCallId: string, reason: string): Promise<RunResult<O>> {
    return this.resume(options, { [toolCallId]: { approve: false, reason } });
  }

  /**
   * Answers a call paused on the person's input (`context.elicit` / `elicitUrl`): `{ action: 'accept',
   * content }` with the form's fields, or `decline` / `cancel`. The call runs again and gets the answer
   * (checked against its input class: an invalid one is INVALID_INPUT to the tool). `resume` takes
   * such answers beside approval decisions.
   */
  answer(options: ResumeOptions, toolCallId: string, answer: InputDecision): Promise<RunResult<O>> {
    return this.resume(options, { [toolCallId]: answer });
  }

  /** The calls a session's paused run waits on for the person's input (empty when none). */
  async pendingInputs(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingInput[]> {
    return (await this.holder(options)).parts.runs.pendingInputs(options);
  }

  /** The calls a session's paused run waits on (empty when nothing is paused). */
  async pendingApprovals(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingApproval[]> {
    return (await this.holder(options)).parts.runs.pendingApprovals(options);
  }

  /**
   * What a session holds, for a front end that shows it again (`toolwright/ai-sdk-ui` restores a
   * chat from it): the whole stored history, the paused run, the log of its last runs. Only the
   * session's own user (or, for an anonymous session, an anonymous caller) may read it:
   * SessionForbiddenError otherwise. A session that does not exist is empty.
   */
  loadConversation(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation> {
    return this.parts.runs.conversation(options);
  }

  // A stream's run: plain functions of the stream's arguments (no closure a stream).
  private static startRun(this: void, events: RunEvents, cancel: Cancellation, agent: Agent<unknown>, input: string, options: RunOptions) {
    return agent.begin(input, options, events, cancel);
  }

  private static startResume(
    this: void,
    events: RunEvents,
    cancel: Cancellation,
    agent: Agent<unknown>,
    options: ResumeOptions,
    decisions: Readonly<Record<string, ResumeDecision>>,
  ) {
    return agent.continue(options, decisions, events, cancel);
  }

  /** `run`, or with `events` a streamed run: its failure goes to the stream (`events.end`) and its promise does not reject. */
  private async begin(
    input: string,
    options: RunOptions,
    events: RunEvents | undefined,
    cancel?: Cancellation,
    handedOff = false,
  ): Promise<RunResult<unknown>> {
    try {
      const state = await this.parts.runs.openRun(options, input, cancel ?? options.signal, handedOff);
      state.events = events;
      return streamEnded(state, await this.traced(state, undefined));
    } catch (error) {
      return streamFailed(events, error);
    }
  }

  /** `resume`, or with `events` a streamed resume (as `begin`). */
  private async continue(
    options: ResumeOptions,
    decisions: Readonly<Record<string, ResumeDecision>>,
    events: RunEvents | undefined,
    cancel?: Cancellation,
  ): Promise<RunResult<unknown>> {
    try {
      const { runs, tools } = this.parts;
      // A child run's call is checked by the child agent, which knows its tool, when the child resumes.
      const { state, next } = await runs.openResume(options, decisions, cancel ?? options.signal, (approval, edited) =>
        isNested(approval) ? Promise.resolve() : tools.checkEdit(approval, edited),
      );
      state.events = events;
      return streamEnded(state, await this.traced(state, next));
    } catch (error) {
      return streamFailed(events, error);
    }
  }

  /** A run or resume, as an `invoke_agent` span while the app has a tracer provider registered. */
  private traced(state: RunState, pending: StoredRun | undefined): Promise<RunResult<unknown>> {
    const tracer = activeTracer();
    if (tracer === undefined) return this.drive(state, pending);
    const info = { agentName: this.name, modelName: this.model.name, conversationId: state.key.sessionId };
    return traceAgentRun(tracer, this.parts.tracing, info, () => this.drive(state, pending));
  }

  /** The run from its start hook to its end (`finish`); a resume holds its claim, renewed, while it runs. */
  private async drive(state: RunState, pending: StoredRun | undefined): Promise<RunResult<unknown>> {
    const { hooks, runs, end } = this.parts;
    if (hooks.observed) await hooks.emitStart(state);
    state.events?.emit({ type: 'run-start', runId: state.runId, sessionId: state.key.sessionId, resumed: state.resumed });
    const keeping = runs.keepClaim(state);
    const plan = this.parts.output;
    if (plan) state.instructions = withOutputSchema(state.instructions, plan.format.schema, plan.native);
    let outcome: RunOutcome;
    try {
      // A resume that still waits on decisions: they were written by compare-and-set, the run stays paused.
      const waiting = pending !== undefined && waitsOnHuman(pending);
      const paused = pending && !waiting ? await this.runDecided(state, pending) : undefined;
      const stored = waiting ? pending : (paused ?? (state.stopped ? undefined : await this.loop(state)));
      outcome = { failed: false, result: runResult(state, stored), stored, written: waiting };
    } catch (error) {
      outcome = { failed: true, error };
    }
    if (keeping) await keeping.stop();
    return finish(end, state, outcome);
  }

  /** The paused response's calls, every one decided: run as the model asked them; the run paused again if one waits on a human. */
  private async runDecided(state: RunState, pending: StoredRun): Promise<StoredRun | undefined> {
    state.context.addMessage(pending.assistant);
    if (state.events) emitToolCalls(state.events, state.runId, state.turns, pending.assistant.toolCalls);
    const selection = await this.parts.catalog.select(state.context, state.input, state.tags);
    state.childResumes = childResumes(state.stored ?? pending, state.approver);
    const waiting = await this.step(state, pending.assistant, selection, NO_USAGE, pending.decisions);
    // Decisions for child runs were handed down (each child keeps them): a new pause keeps only the run's own.
    if (waiting) return this.pauseForInput(state, pending.assistant, waiting, ownDecisions(pending));
    state.settled = undefined;
    return undefined;
  }

  /** A response whose calls wait on a human (an input, a child run's call): stored with the paused run, not in the history (yet). */
  private pauseForInput(
    state: RunState,
    assistant: StoredRun['assistant'],
    waiting: Waiting,
    decisions?: Record<string, StoredDecision>,
  ): StoredRun {
    state.context.retractMessage(assistant);
    return this.parts.runs.pause(state, assistant, waiting.approvals, { inputs: waiting.inputs, decisions });
  }

  /** The loop: ask the model, run its calls, until it answers or a call needs approval. */
  private async loop(state: RunState): Promise<StoredRun | undefined> {
    const { maxTurns, tools, runs, model, catalog } = this.parts;
    const context = state.context;
    for (;;) {
      // A reader that is behind: wait before the next model call (a model without `stream` answers a turn at once).
      const room = state.events?.room();
      if (room) await room;
      if (state.signal?.aborted) throw new RunAbortedError(state.key.sessionId, context.getConversationHistory(), state.signal.reason);
      if (state.turns >= maxTurns) throw new MaxTurnsExceededError(maxTurns, state.key.sessionId, context.getConversationHistory());
      const selected = catalog.select(state.context, state.input, state.tags);
      const targets = this.handoffs === undefined ? NO_TARGETS : this.handoffTargets();
      const offered = selected instanceof Promise ? await selected : selected;
      const selection = targets.length ? withTransfers(offered, transferTools(targets)) : offered;
      const response = await model.ask(state, selection);
      state.turns++;
      if (response.usage) {
        state.usage.inputTokens += response.usage.inputTokens;
        state.usage.outputTokens += response.usage.outputTokens;
      }
      if (response.toolCalls.length === 0) {
        context.addMessage({ role: 'assistant', content: response.content });
        state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage: response.usage ?? NO_USAGE });
        if (!this.output || (await this.acceptAnswer(state, response.content))) return undefined;
        continue;
      }
      // One id per call before anything is decided: a decision, a result and an idempotency key each name one call.
      let calls = uniqueCallIds(response.toolCalls, state.callIds);
      if (tools.repairs) calls = await tools.repairCalls(state, calls, selection);
      const assistant = { role: 'assistant' as const, content: response.content, toolCalls: calls };
      if (state.events) emitToolCalls(state.events, state.runId, state.turns, calls);
      const transfer = targets.length ? transferIn(calls, targets) : undefined;
      if (transfer) {
        recordTransfer(state, assistant, transfer.call, transfer.target.name);
        state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage: response.usage ?? NO_USAGE });
        return undefined;
      }
      if (tools.approvals) {
        const approvals = await tools.approvalsNeeded(state, calls, selection);
        if (approvals.length > 0) {
          state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage: response.usage ?? NO_USAGE });
          return runs.pause(state, assistant, approvals);
        }
      }
      context.addMessage(assistant);
      const waiting = await this.step(state, assistant, selection, response.usage ?? NO_USAGE, undefined);
      if (waiting) return this.pauseForInput(state, assistant, waiting);
      if (state.stopped) return undefined;
    }
  }

  /** The final answer checked against `output`: kept when valid, else sent back with its field errors under the retry budget. */
  private async acceptAnswer(state: RunState, content: string | null): Promise<boolean> {
    const checked = await this.output!.check(content ?? '');
    if (!(checked instanceof ToolInputError)) {
      state.structured = checked;
      return true;
    }
    const attempts = (state.failures[OUTPUT_KEY] ?? 0) + 1;
    state.failures[OUTPUT_KEY] = attempts;
    const history = state.context.getConversationHistory();
    if (attempts > this.outputBudget) throw new RetryBudgetExceededError('final output', attempts, state.key.sessionId, history, checked);
    state.context.addMessage({ role: 'user', content: correction(checked) });
    return false;
  }

  /** Runs one response's calls, then asks `stopWhen` whether the run ends here; returns what its calls wait on, if anything. */
  private async step(
    state: RunState,
    assistant: StoredRun['assistant'],
    selection: CatalogSelection,
    usage: ModelUsage,
    decisions?: Record<string, StoredDecision>,
  ): Promise<Waiting | undefined> {
    const before = state.records.length;
    const waiting = await this.parts.tools.runCalls(state, assistant.toolCalls, selection, decisions);
    state.events?.emit({ type: 'turn-end', runId: state.runId, turn: state.turns, usage });
    const stopWhen = this.parts.stopWhen;
    if (waiting || !stopWhen) return waiting;
    const step: StepResult = {
      turn: state.turns,
      text: assistant.content,
      toolCalls: assistant.toolCalls,
      results: state.records.slice(before),
      usage: { ...state.usage },
      context: state.context,
    };
    if (await stopWhen(step)) state.stopped = true;
    return undefined;
  }
}

// The final answer's failures, counted beside the tools' (a tool cannot be named with a space and parentheses).
const OUTPUT_KEY = '(final output)';
const NO_TARGETS: readonly HandoffTarget[] = [];
type Events<O> = AsyncIterableIterator<AgentEvent<O>>;
const NO_USAGE: ModelUsage = Object.freeze({ inputTokens: 0, outputTokens: 0 });
