import { createHash, randomUUID } from 'node:crypto';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import { saveTurn } from '../stores/save-turn';
import { checkId } from '../stores/snapshot-rows';
import type { CancelSource } from '../registry/cancellation';
import type { SessionStore } from '../stores/store';
import {
  ApprovalAlreadyDecidedError,
  ApprovalDecisionError,
  RunAbortedError,
  RunClaimedError,
  RunNotFoundError,
  RunPausedError,
} from './errors';
import { SessionForbiddenError } from '../errors/session-forbidden';
import {
  alreadyDecided,
  approverOf,
  logged,
  readRunLog,
  RUN_LOG_KEY,
  setOwn,
  type RunLogEntry,
  type RunState,
  type StoredConversation,
  type StoredDecision,
  type StoredRun,
  unansweredInputs,
} from './run-state';
import { isInputDecision, storedAnswer } from './input-pause';
import type { InputAnswer } from '../session/elicitation';
import type { AgentOptions, Approver, PendingApproval, PendingInput, ResumeDecision, ResumeOptions, RunOptions } from './types';

type PersistenceOptions = Pick<AgentOptions, 'instructions' | 'historyLimit'> & { memoryAtStart: boolean; resumeLeaseMs: number };

/** A session as a run opens it: the loaded snapshots and the keys they were loaded under. */
interface Loaded {
  key: SessionKey;
  memoryKey: MemoryKey;
  snapshot: SessionSnapshot | undefined;
  memorySnapshot: Awaited<ReturnType<SessionStore['loadMemory']>> | undefined;
  /** The snapshot the run's call scope is read from (a session this run just created, read again). */
  marked: SessionSnapshot | undefined;
}

/**
 * A run's state in the session store: loads a session and its memory into a RunState, saves them
 * once, and keeps the paused run (`pendingRun`) — its decisions and its resume claim — atomic in
 * the store (compare-and-set), so any process can resume it and only one does.
 */
export class RunPersistence {
  constructor(
    readonly store: SessionStore,
    private readonly agentName: string,
    private readonly options: PersistenceOptions,
  ) {}

  /** A new run: the session loaded and the user's input added; RunPausedError while the session has a paused run. */
  async openRun(options: RunOptions, input: string, signal: CancelSource | undefined, handedOff = false): Promise<RunState> {
    const { state, pending } = await this.open(options, input, signal);
    if (pending) throw new RunPausedError(options.sessionId, waitingIds(pending));
    state.context.setUserInput(input);
    // A run that takes over a handed-off conversation answers the input already in the history.
    if (!handedOff) state.context.addMessage({ role: 'user', content: input });
    return state;
  }

  /** A resume: the paused run loaded and the decisions written (see `decide`); `next` is the run to go on with. */
  async openResume(
    options: ResumeOptions,
    decisions: Readonly<Record<string, ResumeDecision>>,
    signal: CancelSource | undefined,
    checkEdit: (approval: PendingApproval, edited: string | Record<string, unknown>) => Promise<void>,
  ): Promise<{ state: RunState; next: StoredRun }> {
    const approver = approverOf(options.approver);
    const { state, pending } = await this.open(options, undefined, signal);
    if (!pending) {
      // A call the run already went past (another approver decided it) is not "no run": say it was decided.
      const decided = alreadyDecided(state, decisions);
      throw decided.length
        ? new ApprovalAlreadyDecidedError(options.sessionId, decided)
        : new RunNotFoundError(options.sessionId, this.agentName);
    }
    return { state, next: await this.decide(state, pending, decisions, approver, checkEdit) };
  }

  private async open(
    options: RunOptions,
    input: string | undefined,
    signal: CancelSource | undefined,
  ): Promise<{ state: RunState; pending?: StoredRun }> {
    if (signal?.aborted) throw new RunAbortedError(options.sessionId, [], signal.reason);
    const loaded = await this.load(options, input);
    const { snapshot, memorySnapshot, memoryKey } = loaded;
    const { historyLimit, memoryAtStart } = this.options;
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
    const paused = resumed ? pending : undefined;
    const state: RunState = {
      runId: paused ? paused.runId : randomUUID(),
      key: loaded.key,
      memoryKey,
      context,
      memory,
      instructions,
      input: input ?? pending?.input ?? '',
      userId: options.userId,
      signal,
      tags: options.tags,
      startedAt: paused ? paused.startedAt : Date.now(),
      resumed,
      turns: paused ? paused.turns : 0,
      records: paused ? paused.records : [],
      usage: paused ? paused.usage : { inputTokens: 0, outputTokens: 0 },
      failures: paused ? paused.failures : {},
      hadPending: pending !== undefined,
      callIds: new Set(paused ? [...paused.records.map((r) => r.id), ...paused.assistant.toolCalls.map((c) => c.id)] : []),
      callScope: paused ? (paused.callScope ?? paused.runId) : callScopeOf(loaded.marked, input ?? ''),
      runLog: snapshot ? readRunLog(snapshot) : [],
      steps: paused ? [...(paused.steps ?? [])] : [],
    };
    return { state, pending };
  }

  /** The session and (when loaded at the start) the memory; a session this run creates is claimed for its user. */
  private async load(options: RunOptions, input: string | undefined): Promise<Loaded> {
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
    return { key, memoryKey, snapshot, memorySnapshot, marked };
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

  /** The calls a session's paused run waits on for the person's input (empty when none). */
  async pendingInputs(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<PendingInput[]> {
    const snapshot = await this.store.loadSession({ sessionId: options.sessionId, tenantId: options.tenantId }, { historyLimit: 0 });
    if (snapshot && (snapshot.userId ?? null) !== (options.userId ?? null)) throw new SessionForbiddenError(options.sessionId);
    const run = this.storedRun(snapshot);
    return run ? unansweredInputs(run) : [];
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
    return run ? waitingIds(run) : [];
  }

  /**
   * Writes new decisions into the paused run by compare-and-set, and claims the run for running
   * once every call is decided: of two approvers at once, one wins, the other gets RunClaimedError.
   * `checkEdit` refuses an approver's invalid edit before anything is written.
   */
  async decide(
    state: RunState,
    pending: StoredRun,
    decisions: Readonly<Record<string, ResumeDecision>>,
    approver: Approver | undefined,
    checkEdit: (approval: PendingApproval, edited: string | Record<string, unknown>) => Promise<void>,
  ): Promise<StoredRun> {
    const sessionId = state.key.sessionId;
    const merged: Record<string, StoredDecision> = {};
    for (const [id, decision] of Object.entries(pending.decisions ?? {})) setOwn(merged, id, decision);
    const decidedAt = Date.now();
    const decided = alreadyDecided(state, decisions).filter((id) => !pending.approvals.some((a) => a.toolCallId === id));
    if (decided.length) throw new ApprovalAlreadyDecidedError(sessionId, decided);
    const answers = copyAnswers(pending.answers);
    const answered: Record<string, true> = { ...pending.answered };
    for (const [id, decision] of Object.entries(decisions)) {
      const input = isInputDecision(decision) ? (pending.inputs ?? []).find((i) => i.toolCallId === id) : undefined;
      if (input) {
        if (Object.hasOwn(answered, id)) throw new ApprovalAlreadyDecidedError(sessionId, [id]);
        setOwn(answers, id, [...(Object.hasOwn(answers, id) ? answers[id] : []), storedAnswer(id, input, decision as InputAnswer)]);
        setOwn(answered, id, true as const);
        continue;
      }
      if (isInputDecision(decision))
        throw new ApprovalDecisionError(
          `Tool call "${id}" is not waiting for input. Pending: ${waitingIds(pending).join(', ') || 'none'}.`,
        );
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
    const complete =
      pending.approvals.every((a) => Object.hasOwn(merged, a.toolCallId)) &&
      (pending.inputs ?? []).every((i) => Object.hasOwn(answered, i.toolCallId));
    if (complete && pending.claim && decidedAt - pending.claim.at < this.options.resumeLeaseMs)
      throw new RunClaimedError(sessionId, pending.runId);
    const next: StoredRun = { ...pending, decisions: merged, ...(pending.inputs?.length ? { answers, answered } : {}) };
    // Claimed before anything runs; a claim left by a process that died expires after resumeLeaseMs.
    if (complete) next.claim = { id: randomUUID(), at: decidedAt };
    else delete next.claim;
    if (!(await this.store.compareAndSetPendingRun(state.key, pending, next))) throw new RunClaimedError(sessionId, pending.runId);
    state.stored = JSON.parse(JSON.stringify(next)) as StoredRun; // as stored: the run mutates `next` (records, usage)
    state.approver = approver;
    state.answers = next.answers;
    state.settled = next.settled;
    return next;
  }

  /** The paused run to store when calls need a decision. */
  pause(
    state: RunState,
    assistant: StoredRun['assistant'],
    approvals: PendingApproval[],
    inputs?: { inputs: PendingInput[]; decisions?: Record<string, StoredDecision> },
  ): StoredRun {
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
      decisions: inputs?.decisions ?? {},
      ...(inputs && { inputs: inputs.inputs, answers: copyAnswers(state.answers), settled: state.settled ?? {} }),
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

/** The ids a paused run waits on: its approvals, its unanswered inputs. */
function waitingIds(run: StoredRun): string[] {
  return [...run.approvals.map((a) => a.toolCallId), ...unansweredInputs(run).map((i) => i.toolCallId)];
}

function copyAnswers(answers: Record<string, InputAnswer[]> | undefined): Record<string, InputAnswer[]> {
  const copy: Record<string, InputAnswer[]> = {};
  for (const [id, list] of Object.entries(answers ?? {})) setOwn(copy, id, [...list]);
  return copy;
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
