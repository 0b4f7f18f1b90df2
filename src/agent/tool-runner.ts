import type { ContentPart } from '../content/tool-content';
import { performance } from 'node:perf_hooks';
import { encodeToolError, ToolExecutionError, ToolInputError, ToolNotFoundError, ToolwrightError, type ErrorCode } from '../errors/errors';
import { Cancellation, RUN_CANCELLATION } from '../registry/cancellation';
import type { CallOptions, RegisteredTool, ToolRegistry } from '../registry/tool-registry';
import type { ToolProgress } from '../session/agent-context';
import type { ToolLog } from '../session/tool-log';
import type { ToolCall } from '../session/message';
import type { CatalogSelection } from './catalog';
import { AgentRunError, ApprovalDecisionError, RetryBudgetExceededError, RunAbortedError, ToolCallFailedError } from './errors';
import type { RunEvents } from './event-stream';
import type { HookSet } from './hooks';
import type { Model } from './model';
import { usageSinks } from './sampling';
import { fromJournal, type StepJournal } from './step-journal';
import { childPaused, nestedWaits, type Waiting } from './child-pause';
import type { AgentEvent } from './events';
import { pausedInput, pausedOn, pausingSink, type Asked, type PendingInput } from './input-pause';
import { approvalRecord, NO_APPROVALS, ownValue, setOwn, type RunState, type StoredDecision } from './run-state';
import type { AgentOptions, ApprovalRecord, ErrorBoundary, ErrorPolicy, PendingApproval, RepairedCall, ToolCallRecord } from './types';

interface CallOutcome {
  call: ToolCall;
  arguments: string;
  result?: string;
  error?: ToolwrightError;
  status: ToolCallRecord['status'];
  durationMs: number;
  handling?: 'retry' | ErrorBoundary | 'abort';
  approval?: ApprovalRecord;
  /** A ToolContent result's parts (none when an after-hook replaced the result). */
  parts?: readonly ContentPart[];
  input?: PendingInput; // waits for the person's input (`context.elicit`): the response pauses, no call settles
  nested?: Waiting; // an agent tool whose child run paused: the response pauses on the child's calls
}

interface ToolPlan {
  tool: RegisteredTool;
  timeoutMs?: number;
}

type RunnerOptions = Pick<AgentOptions, 'toolTimeoutMs' | 'retryBudgets' | 'repairToolCall'> & {
  /** The run's step journal: each call's result recorded, a recorded one replayed (see StepJournal). */
  steps?: StepJournal;
  maxConcurrency: number;
  retryBudget: number;
  errorPolicy: ErrorPolicy;
  /** The model that answers the tools' `context.sample` (`AgentOptions.sampling`). */
  sampler?: Model;
};

// A tool's input request no one could answer (or answered wrongly) goes back to the model too: it can do without.
// So does a rate limit: the model reads when to try again (and a model that keeps trying spends its retry budget).
const CORRECTABLE = new Set<ErrorCode>([
  'RATE_LIMITED',
  'INVALID_JSON',
  'INVALID_ARGUMENTS',
  'TOOL_NOT_FOUND',
  'MODEL_RETRY',
  'INPUT_UNAVAILABLE',
  'INVALID_INPUT',
]);

/**
 * Runs the tool calls of a model response: repair, approval checks, hooks around each call, the
 * registry call, and the results into the history in call order, with the retry budget and error policy.
 */
export class ToolRunner {
  /** Some tool has an approval policy (else no call ever pauses). */
  get approvals(): boolean {
    this.sync();
    return this.anyApproval;
  }
  private anyApproval = false;
  private planned?: readonly unknown[]; // the tool list the plans were made for: remote servers' lists change
  /** `repairToolCall` is set. */
  readonly repairs: boolean;
  private plans = new Map<string, ToolPlan>();
  private readonly retryBudgets: Readonly<Record<string, number>>;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly hooks: HookSet,
    private readonly options: RunnerOptions,
    private readonly loadMemory: (state: RunState) => Promise<void>,
  ) {
    this.sync();
    this.repairs = options.repairToolCall !== undefined;
    this.retryBudgets = options.retryBudgets ?? {};
  }

  /**
   * Runs one response's calls: consecutive ordinary calls concurrently (up to maxConcurrency), a
   * sequential tool alone. Every call settles, then results go to the history in call order; only
   * then does a failure (retry budget, `throw` boundary, cancellation) end the run. Inputs asked: returned, nothing settles.
   */
  async runCalls(
    state: RunState,
    calls: readonly ToolCall[],
    selection: CatalogSelection,
    decisions?: Record<string, StoredDecision>,
  ): Promise<Waiting | undefined> {
    this.sync();
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
        await pool(i, end, this.options.maxConcurrency, exec);
        i = end;
      }
    }

    const waiting = pausedOn(state, outcomes); // the response waits on the person: nothing settles
    if (waiting) return waiting;
    // Every call gets its result in the history first; only then do observers hear of errors.
    let failure: (() => AgentRunError) | undefined;
    for (const outcome of outcomes) {
      const fail = this.settle(state, outcome);
      failure ??= fail;
      state.events?.emit({ type: 'tool-result', runId: state.runId, turn: state.turns, record: state.records[state.records.length - 1] });
    }
    if (this.hooks.onError.length > 0) {
      for (const o of outcomes) {
        if (o.error)
          await this.hooks.toolError(state, o.call, o.arguments, o.approval, {
            error: o.error,
            handling: o.handling!,
            durationMs: o.durationMs,
          });
      }
    }
    if (failure) throw failure();
    return undefined;
  }

  private sync(): void {
    if (this.registry.definitions() === this.planned) return;
    this.planned = this.registry.definitions();
    this.plans = new Map(this.registry.tools().map((t) => [t.name, { tool: t, timeoutMs: t.timeoutMs ?? this.options.toolTimeoutMs }]));
    this.anyApproval = this.registry.tools().some((tool) => !!tool.approval);
  }

  /** Calls whose tool's approval policy says yes. Invalid calls need none: they go back to the model. */
  async approvalsNeeded(state: RunState, calls: readonly ToolCall[], selection: CatalogSelection): Promise<PendingApproval[]> {
    if (!this.approvals) return NO_APPROVALS;
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

  /** Offers each call the model got wrong to `repairToolCall`, before approvals see the calls. */
  async repairCalls(state: RunState, calls: ToolCall[], selection: CatalogSelection): Promise<ToolCall[]> {
    const repair = this.options.repairToolCall!;
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
          fixed = await repair({ call, error, tools: selection.definitions, context: state.context });
        } catch (hookError) {
          this.hooks.onHookError(hookError, 'repairToolCall');
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

  /** An approver's edit is validated when given: refused to the approver (field errors), never sent to the model. */
  async checkEdit(approval: PendingApproval, edited: string | Record<string, unknown>): Promise<void> {
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

  /** One call: catalog check, approval decision, before-hooks, the registry call, after-hooks. Never throws. */
  private async execute(
    state: RunState,
    call: ToolCall,
    index: number,
    selection: CatalogSelection,
    decision: StoredDecision | undefined,
  ): Promise<CallOutcome> {
    const started = performance.now();
    const asked: Asked = {}; // the call's unanswered `context.elicit` request, if any
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
    const done = ownValue(state.settled, call.id); // finished before the run paused on another call's input
    if (done) return { ...outcome(done.status, done.result), ...(done.parts && { parts: done.parts }) };
    try {
      if (selection.offered && !selection.offered.has(call.name)) throw new ToolNotFoundError(call.name, [...selection.offered]);
      if (decision) {
        if (!decision.approve) return outcome('rejected', encodeToolError('REJECTED', `A human rejected this call: ${decision.reason}`));
        if (decision.arguments !== undefined) args = decision.arguments;
      }
      for (const hook of this.hooks.before) {
        const verdict = await hook(this.hooks.event(state, call, args, approval));
        if (verdict && 'deny' in verdict) return outcome('denied', encodeToolError('DENIED', verdict.deny));
        if (verdict && 'arguments' in verdict) args = verdict.arguments;
      }
      const plan = this.plans.get(call.name);
      if (!state.memory.loaded && plan?.tool.memory) await this.loadMemory(state);
      let parts: readonly ContentPart[] | undefined;
      const options: CallOptions = {
        onContent: (content) => (parts = content.parts),
        approved: decision?.approve === true,
        toolCallId: call.id,
        // The logical call (what a retry of the run shares, model turn, place in the response): the same for
        // a run retried after its save failed and for resumes; never the provider's id, which providers reuse.
        logicalCallId: `${state.callScope}:${state.turns}:${index}`,
        signal: state.signal instanceof Cancellation ? undefined : state.signal,
        [RUN_CANCELLATION]: state.signal instanceof Cancellation ? state.signal : undefined,
        timeoutMs: plan?.timeoutMs,
        onProgress: state.events && progressTo(state.events, state.runId, call),
        onLog: state.events && logTo(state.events, state.runId, call),
        ...usageSinks(this.options.sampler, state.usage),
        onElicit: pausingSink(ownValue(state.answers, call.id), asked),
        childResume: ownValue(state.childResumes, call.id),
        onChildEvent: state.events && ((event) => state.events!.emit(event as AgentEvent<unknown>)),
      };
      const steps = this.options.steps;
      let result = steps
        ? await recordedCall(steps, state, `t${state.turns}:${index}`, () =>
            this.registry.call(call.name, args, state.context, state.memory, options),
          )
        : await this.registry.call(call.name, args, state.context, state.memory, options);
      for (const hook of this.hooks.after) {
        const replaced = await hook({ ...this.hooks.event(state, call, args, approval), result, durationMs: performance.now() - started });
        if (typeof replaced === 'string') [result, parts] = [replaced, undefined];
      }
      return { ...outcome('ok', result), ...(parts && { parts }) };
    } catch (error) {
      // The journal's store failed, or another process runs this call: the run stops (nothing is saved).
      if (fromJournal(error)) throw error;
      const input = pausedInput(error, asked, call, args); // the tool's request waits for the person: the run pauses
      if (input) return { ...outcome('ok', undefined), input };
      const child = childPaused(error); // an agent tool's child run waits on a human: so does this run
      if (child) return { ...outcome('ok', undefined), nested: nestedWaits(call, child) };
      // A hook that throws is an unexpected failure like a tool that throws.
      return outcome('error', undefined, error instanceof ToolwrightError ? error : new ToolExecutionError(call.name, error));
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
        if (attempts > (ownValue(this.retryBudgets, call.name) ?? this.options.retryBudget)) {
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
        : { role: 'tool', toolCallId: call.id, name: call.name, content, ...(o.parts && { parts: o.parts }) },
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
    const policy = this.options.errorPolicy;
    return typeof policy === 'function' ? policy(error, this.hooks.event(state, call, call.arguments)) : policy;
  }
}

/** What a tool step records: its result and the session-state writes made while it ran. */
interface RecordedCall {
  result: string;
  set?: Record<string, unknown>;
  deleted?: string[];
}

/**
 * A tool call as a durable step: run once and recorded with the state it wrote, or replayed from
 * its record, its state writes applied again (they were never saved by the attempt that died).
 * Memory writes are not recorded: a replayed call does not remember again.
 */
async function recordedCall(steps: StepJournal, state: RunState, step: string, call: () => Promise<string>): Promise<string> {
  const writes = state.context.unsavedStateWrites();
  const before = { set: new Map(writes.set), deleted: new Set(writes.deleted) };
  const recorded = await steps.step(state, step, async (): Promise<RecordedCall> => {
    const result = await call();
    const set: Record<string, unknown> = {};
    for (const [key, value] of writes.set) if (!before.set.has(key) || before.set.get(key) !== value) setOwn(set, key, value);
    const deleted = [...writes.deleted].filter((key) => !before.deleted.has(key));
    return { result, ...(Object.keys(set).length ? { set } : {}), ...(deleted.length ? { deleted } : {}) };
  });
  for (const [key, value] of Object.entries(recorded.set ?? {})) state.context.setState(key, value);
  for (const key of recorded.deleted ?? []) state.context.forgetState(key);
  return recorded.result;
}

/** A tool's `context.reportProgress`, as stream events. */
function progressTo(events: RunEvents, runId: string, call: ToolCall): (progress: ToolProgress) => void {
  return (progress) => events.emit({ type: 'tool-progress', runId, toolCallId: call.id, name: call.name, ...progress });
}

function logTo(events: RunEvents, runId: string, call: ToolCall): (log: ToolLog) => void {
  return (log) => events.emit({ type: 'tool-log', runId, toolCallId: call.id, name: call.name, ...log });
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
