import { createHash, randomUUID } from 'node:crypto';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { Message, ToolCall } from '../session/message';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import { saveTurn } from '../stores/save-turn';
import { checkId } from '../stores/snapshot-rows';
import type { CancelSource } from '../registry/cancellation';
import type { SessionStore } from '../stores/store';
import { ApprovalAlreadyDecidedError, ApprovalDecisionError, RunAbortedError, RunClaimedError } from './errors';
import { SessionForbiddenError } from '../errors/session-forbidden';
import type { RunEvents } from './event-stream';
import type { ModelUsage } from './model';
import type {
  AgentOptions,
  ApprovalDecision,
  Approver,
  PendingApproval,
  ResumeOptions,
  RunOptions,
  RunResult,
  ToolCallRecord,
} from './types';

/** A paused run as stored in the session (`pendingRun`): plain JSON, resumable by any process. */
export interface StoredRun {
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
  /** What the run's idempotency keys derive from (see RunState.callScope); a run paused before it existed uses its runId. */
  callScope?: string;
  /** The run's step records so far (see StepJournal), forgotten by whichever process saves the run's end. */
  steps?: string[];
}

export type StoredDecision = ApprovalDecision & { approver?: Approver; decidedAt?: number };

/** One run in this process: what was loaded, what happened so far. */
export interface RunState {
  runId: string;
  key: SessionKey;
  memoryKey: MemoryKey;
  context: AgentContext;
  memory: AgentMemory;
  instructions?: string;
  input: string;
  userId?: string;
  /** The caller's signal (`run`), or a streamed run's Cancellation (its AbortSignal created only when read). */
  signal?: CancelSource;
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
  /**
   * What a retry of this run shares: the session's stored history mark when the run opened and its
   * input. With the model turn and the call's place in it, it makes the call's idempotency key, so
   * a run retried after its save failed (same input, same session, same history) gets the same keys.
   */
  callScope: string;
  approver?: Approver;
  stopped?: boolean;
  /** The memory's load, started by the first call to a tool that reads memory. */
  memoryLoad?: Promise<void>;
  /** Where the run's events go when it is streamed (`agent.stream`); unset, a run builds none. */
  events?: RunEvents;
  /** The session's run log as loaded (see RUN_LOG_KEY); this run's entry is added when it saves. */
  runLog: readonly RunLogEntry[];
  /** The keys of the run's step records (see StepJournal); `stepBase` their common prefix, made on first use. */
  steps: string[];
  stepBase?: string;
}

/**
 * The session state key of the run log: the last runs of the session (id, how they ended, turns,
 * usage), so a chat front end can restore its messages with the ids and metadata it streamed
 * (`toolwright/ai-sdk-ui`). Kept beside the history by every save, hidden from tools.
 */
export const RUN_LOG_KEY = 'toolwright:runs';
/** Runs the log keeps (older messages restore without their run's metadata). */
export const RUN_LOG_SIZE = 32;

/** One run in the session's run log. */
export interface RunLogEntry {
  runId: string;
  /** A hash of the run's input: which stored user message the run answered. */
  input: string;
  status: RunResult['status'] | 'failed';
  turns: number;
  usage: ModelUsage;
}

/** What a session holds for a front end that restores it: the history, the paused run, the run log. */
export interface StoredConversation {
  history: Message[];
  pendingRun?: StoredRun;
  runLog: RunLogEntry[];
}

/** The run log's hash of an input (the stored user message's content). */
export function inputHash(input: string): string {
  return createHash('sha256').update(input).digest('base64url').slice(0, 16);
}

export const NO_APPROVALS: PendingApproval[] = [];

/**
 * Run-state persistence: loads a session and its memory into a RunState, saves them once, and
 * keeps the paused run (`pendingRun`) — its decisions and its resume claim — atomic in the store.
 */
export class RunStore {
  constructor(
    readonly store: SessionStore,
    private readonly agentName: string,
    private readonly options: Pick<AgentOptions, 'instructions' | 'historyLimit'> & { memoryAtStart: boolean; resumeLeaseMs: number },
  ) {}

  async open(
    options: RunOptions,
    input: string | undefined,
    signal: CancelSource | undefined = options.signal,
  ): Promise<{ state: RunState; pending?: StoredRun }> {
    if (signal?.aborted) throw new RunAbortedError(options.sessionId, [], signal.reason);
    const { historyLimit, memoryAtStart } = this.options;
    const key: SessionKey = { sessionId: options.sessionId, tenantId: options.tenantId };
    if (options.userId !== undefined) checkId('userId', options.userId);
    const memoryKey: MemoryKey = {
      agentName: this.agentName,
      userId: memoryScope(options.userId, options.sessionId),
      tenantId: options.tenantId,
    };
    const [snapshot, memorySnapshot] = await Promise.all([
      this.store.loadSession(key, historyLimit === undefined ? undefined : { historyLimit }),
      memoryAtStart ? this.store.loadMemory(memoryKey) : undefined,
    ]);
    // One owner per session, fixed when a run creates it (insert-if-absent in the store): a user, or
    // nobody (anonymous). A run without userId is anonymous and never acts as the owner.
    const owner = snapshot
      ? (snapshot.userId ?? null)
      : input === undefined
        ? (options.userId ?? null)
        : await this.store.claimSession(key, options.userId ?? null);
    if (owner !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    // A session this run just created: its mark is read as a retry will read it (the claim made it).
    const marked = snapshot ?? (input === undefined ? undefined : await this.store.loadSession(key, { historyLimit: 0 }));
    const runLog = snapshot ? readRunLog(snapshot) : [];
    const context = snapshot
      ? AgentContext.fromSnapshot(withoutRunLog(historyLimit === undefined ? snapshot : withoutOrphanResults(snapshot)), options.userId)
      : new AgentContext({ sessionId: options.sessionId, userId: options.userId, tenantId: options.tenantId });
    // PHP-kit-style tools read the signed-in user from state; only the runner ever writes it.
    if (options.userId !== undefined && context.getState('user_id') !== options.userId) context.setState('user_id', options.userId);
    const memory = !memoryAtStart
      ? AgentMemory.unloaded(memoryKey)
      : memorySnapshot
        ? AgentMemory.fromSnapshot(memorySnapshot)
        : new AgentMemory(memoryKey);
    const pending = this.storedRun(snapshot);
    if (pending?.userId !== undefined && options.userId !== undefined && pending.userId !== options.userId) {
      throw new SessionForbiddenError(options.sessionId);
    }
    const instructions =
      typeof this.options.instructions === 'function' ? this.options.instructions(context, memory) : this.options.instructions;
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
      signal,
      tags: options.tags,
      startedAt: resumed && pending ? pending.startedAt : Date.now(),
      resumed,
      turns: resumed && pending ? pending.turns : 0,
      records: resumed && pending ? pending.records : [],
      usage: resumed && pending ? pending.usage : { inputTokens: 0, outputTokens: 0 },
      failures: resumed && pending ? pending.failures : {},
      hadPending: pending !== undefined,
      callIds: new Set(resumed && pending ? [...pending.records.map((r) => r.id), ...pending.assistant.toolCalls.map((c) => c.id)] : []),
      callScope: resumed && pending ? (pending.callScope ?? pending.runId) : callScopeOf(marked, input ?? ''),
      runLog,
      steps: resumed && pending ? [...(pending.steps ?? [])] : [],
    };
    return { state, pending };
  }

  /** Loads the memory once per run, for the first tool that reads it (concurrent calls share the load). */
  loadMemory(state: RunState): Promise<void> {
    return (state.memoryLoad ??= this.store.loadMemory(state.memoryKey).then((snapshot) => state.memory.hydrate(snapshot)));
  }

  storedRun(snapshot: SessionSnapshot | undefined): StoredRun | undefined {
    const run = snapshot?.pendingRun as StoredRun | null | undefined;
    return run && run.kind === 'toolwright.run' && run.agentName === this.agentName ? run : undefined;
  }

  /** The calls a session's paused run waits on (empty when nothing is paused). */
  async pendingApprovals(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingApproval[]> {
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId }, { historyLimit: 0 });
    if (snapshot && (snapshot.userId ?? null) !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    const run = this.storedRun(snapshot);
    return run ? run.approvals.filter((a) => !Object.hasOwn(run.decisions ?? {}, a.toolCallId)) : [];
  }

  /** The whole stored conversation of a session its user may read (SessionForbiddenError otherwise; empty when missing). */
  async conversation(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation> {
    if (options.userId !== undefined) checkId('userId', options.userId);
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId });
    if (!snapshot) return { history: [], runLog: [] };
    if ((snapshot.userId ?? null) !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    const pendingRun = this.storedRun(snapshot);
    if (pendingRun?.userId !== undefined && options.userId !== undefined && pendingRun.userId !== options.userId)
      throw new SessionForbiddenError(options.sessionId);
    return { history: snapshot.history, pendingRun, runLog: [...readRunLog(snapshot)] };
  }

  async pendingIds(key: SessionKey): Promise<string[]> {
    const run = this.storedRun(await this.store.loadSession(key, { historyLimit: 0 }).catch(() => undefined));
    return run ? run.approvals.map((a) => a.toolCallId) : [];
  }

  /**
   * Writes new decisions into the paused run by compare-and-set, and claims the run for running
   * once every call is decided: of two approvers at once, one wins, the other gets RunClaimedError.
   * `checkEdit` refuses an approver's invalid edit before anything is written.
   */
  async decide(
    state: RunState,
    pending: StoredRun,
    decisions: Readonly<Record<string, ApprovalDecision>>,
    approver: Approver | undefined,
    checkEdit: (approval: PendingApproval, edited: string | Record<string, unknown>) => Promise<void>,
  ): Promise<StoredRun> {
    const sessionId = state.key.sessionId;
    const merged: Record<string, StoredDecision> = {};
    for (const [id, decision] of Object.entries(pending.decisions ?? {})) setOwn(merged, id, decision);
    const decidedAt = Date.now();
    const decided = alreadyDecided(state, decisions).filter((id) => !pending.approvals.some((a) => a.toolCallId === id));
    if (decided.length) throw new ApprovalAlreadyDecidedError(sessionId, decided);
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
      if (decision.approve && decision.arguments !== undefined) await checkEdit(approval, decision.arguments);
      setOwn(merged, id, { ...decision, ...(approver ? { approver } : {}), decidedAt });
    }
    const complete = pending.approvals.every((a) => Object.hasOwn(merged, a.toolCallId));
    if (complete && pending.claim && decidedAt - pending.claim.at < this.options.resumeLeaseMs)
      throw new RunClaimedError(sessionId, pending.runId);
    const next: StoredRun = { ...pending, decisions: merged };
    // Claimed before anything runs; a claim left by a process that died expires after resumeLeaseMs.
    if (complete) next.claim = { id: randomUUID(), at: decidedAt };
    else delete next.claim;
    if (!(await this.store.compareAndSetPendingRun(state.key, pending, next))) throw new RunClaimedError(sessionId, pending.runId);
    state.stored = JSON.parse(JSON.stringify(next)) as StoredRun; // as stored: the run mutates `next` (records, usage)
    state.approver = approver;
    return next;
  }

  /** The paused run to store when calls need a decision. */
  pause(state: RunState, assistant: StoredRun['assistant'], approvals: PendingApproval[]): StoredRun {
    return {
      kind: 'toolwright.run',
      version: 1,
      runId: state.runId,
      agentName: this.agentName,
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
      callScope: state.callScope,
      ...(state.steps.length ? { steps: [...state.steps] } : {}),
    };
  }

  /**
   * Saves the session's changes (and the paused run, or its removal), the run's log entry and the
   * memory's, once and as one unit: a save that fails leaves the session where it was, so the
   * caller's retry runs the turn again.
   */
  async save(state: RunState, pendingRun: StoredRun | null | undefined, status: RunLogEntry['status']): Promise<void> {
    const changes = state.context.takeChanges();
    changes.set[RUN_LOG_KEY] = logged(state, status);
    // The session is this run's user's (checked at load): if it was deleted and claimed by another since, nothing is written.
    changes.owner = state.userId ?? null;
    if (pendingRun !== undefined) changes.pendingRun = pendingRun;
    await saveTurn(this.store, { key: state.key, changes, always: true }, { key: state.memoryKey, changes: state.memory.takeChanges() });
  }

  /**
   * Renews a resume's claim (`claim.at`, by compare-and-set) every third of `resumeLeaseMs` until
   * stopped, so a resume that runs longer than the lease is not taken over by another process
   * while it is alive; a claim left by a process that died still lapses. `stop` waits for a renewal
   * under way, so the run's last writes compare against the claim as stored. Undefined when the run
   * holds no claim (not a resume): nothing to renew, nothing to await.
   */
  keepClaim(state: RunState): { stop(): Promise<void> } | undefined {
    if (!state.stored?.claim) return undefined;
    let renewing: Promise<void> = Promise.resolve();
    let stopped = false;
    const renew = async (): Promise<void> => {
      const held = state.stored;
      if (stopped || !held?.claim) return;
      const next: StoredRun = { ...held, claim: { id: held.claim.id, at: Date.now() } };
      // A store that is down: tried again next time; a claim taken over: every later try fails too.
      if (await this.store.compareAndSetPendingRun(state.key, held, next).catch(() => false)) state.stored = next;
    };
    const timer = setInterval(() => (renewing = renewing.then(renew)), Math.max(1, this.options.resumeLeaseMs / 3));
    timer.unref();
    return {
      stop: () => {
        stopped = true;
        clearInterval(timer);
        return renewing;
      },
    };
  }

  /** Gives up this process's claim on a paused run whose resume could not be saved, so a retry can resume it. */
  async release(state: RunState): Promise<void> {
    const claimed = state.stored;
    if (!claimed?.claim) return;
    const { claim: _claim, ...released } = claimed;
    await this.store.compareAndSetPendingRun(state.key, claimed, released).catch(() => undefined);
  }
}

/** What `run`/`resume` return, from the run's state and the paused run (if it paused). */
export function runResult(state: RunState, paused: StoredRun | undefined): RunResult {
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

/** The decided call ids whose call has a result in the session's history: the run went on past them (decided, then run or rejected). */
export function alreadyDecided(state: RunState, decisions: unknown): string[] {
  const ids = decisions !== null && typeof decisions === 'object' ? Object.keys(decisions) : [];
  if (ids.length === 0) return [];
  const answered = new Set<string>();
  for (const m of state.context.getConversationHistory()) if (m.role === 'tool') answered.add(m.toolCallId);
  return ids.filter((id) => answered.has(id));
}

export function approverOf(approver: ResumeOptions['approver']): Approver | undefined {
  if (approver === undefined) return undefined;
  const value = typeof approver === 'string' ? { id: approver } : approver;
  if (!value || typeof value.id !== 'string' || value.id === '') {
    throw new ApprovalDecisionError('approver must be a non-empty id string or { id: string, … }.');
  }
  return JSON.parse(JSON.stringify(value)) as Approver;
}

/** Own keys only: ids and tool names come from the model and may be `constructor` or `__proto__`. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
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

/** Hashed once a run: the key of every call hashes this with the model turn and the call's place. */
function callScopeOf(snapshot: SessionSnapshot | undefined, input: string): string {
  const mark = snapshot?.historyMark ?? `n${snapshot?.history.length ?? 0}`;
  return createHash('sha256').update(mark).update('\u0000').update(input).digest('base64url').slice(0, 22);
}

/** The run log with this run's entry last (a resumed run replaces its paused entry), at most RUN_LOG_SIZE. */
function logged(state: RunState, status: RunLogEntry['status']): RunLogEntry[] {
  const entry: RunLogEntry = { runId: state.runId, input: inputHash(state.input), status, turns: state.turns, usage: { ...state.usage } };
  const log = state.runLog.filter((e) => e.runId !== state.runId);
  log.push(entry);
  return log.slice(-RUN_LOG_SIZE);
}

function readRunLog(snapshot: SessionSnapshot): readonly RunLogEntry[] {
  const log = snapshot.state[RUN_LOG_KEY];
  return Array.isArray(log) ? (log as RunLogEntry[]) : [];
}

/** Tools see the session's state without the run log (the runner's own record). */
function withoutRunLog(snapshot: SessionSnapshot): SessionSnapshot {
  if (!Object.hasOwn(snapshot.state, RUN_LOG_KEY)) return snapshot;
  const { [RUN_LOG_KEY]: _log, ...state } = snapshot.state;
  return { ...snapshot, state };
}

/** A history window may start with tool results whose assistant call was cut off; providers refuse those. */
function withoutOrphanResults(snapshot: SessionSnapshot): SessionSnapshot {
  let start = 0;
  while (start < snapshot.history.length && snapshot.history[start].role === 'tool') start++;
  return start === 0 ? snapshot : { ...snapshot, history: snapshot.history.slice(start) };
}
