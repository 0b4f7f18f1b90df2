import { createHash } from 'node:crypto';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import type { Message, ToolCall } from '../session/message';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import type { CancelSource } from '../registry/cancellation';
import { ApprovalDecisionError } from './errors';
import type { RunEvents } from './event-stream';
import type { ModelUsage } from './model';
import type { ContentPart } from '../content/tool-content';
import type { ChildResume } from '../session/agent-context';
import type { InputAnswer } from '../session/elicitation';
import type {
  ApprovalDecision,
  ApprovalRecord,
  Approver,
  PendingApproval,
  PendingInput,
  ResumeOptions,
  RunResult,
  ToolCallRecord,
} from './types';

/** A call of a response paused on another call's input that had finished: its result, as the model will see it. */
export interface SettledCall {
  status: ToolCallRecord['status'];
  result: string;
  parts?: readonly ContentPart[];
}

/* A run's state: what one run holds in this process, the paused run as stored, the run log, what a run returns. */

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
  /** Calls paused on the person's input (`context.elicit`); absent when none. */
  inputs?: PendingInput[];
  /** The person's answers so far, by tool call id, in the order the call asked (see input-pause.ts). */
  answers?: Record<string, InputAnswer[]>;
  records: ToolCallRecord[];
  usage: ModelUsage;
  failures: Record<string, number>;
  /** The paused response's calls that finished (results kept, not run again on resume); absent when none. */
  settled?: Record<string, SettledCall>;
  /** The ids of `inputs` answered since the run paused on them. */
  answered?: Record<string, true>;
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
  /** The paused run's answers to its calls' input requests, replayed when the calls run again. */
  answers?: Record<string, InputAnswer[]>;
  /** The response's calls that finished before it paused on an input (see StoredRun.settled). */
  settled?: Record<string, SettledCall>;
  /** On a resume: the decisions for paused child runs, by the id of the agent tool call that runs them again (child-pause.ts). */
  childResumes?: Record<string, ChildResume>;
  stopped?: boolean;
  /** The agent a transfer call handed the conversation to: the run ends there (see handoffs.ts). */
  handoff?: string;
  /** The structured final answer, when the agent declares `output`. */
  structured?: object;
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
export const NO_INPUTS: PendingInput[] = [];

/** The paused run's inputs still waiting for an answer (each answer written at resume is one call's next one). */
export function unansweredInputs(run: StoredRun): PendingInput[] {
  return (run.inputs ?? []).filter((i) => !Object.hasOwn(run.answered ?? {}, i.toolCallId));
}

/** Whether a paused run still waits on a human: an undecided approval or an unanswered input. */
export function waitsOnHuman(run: StoredRun): boolean {
  return run.approvals.some((a) => !Object.hasOwn(run.decisions, a.toolCallId)) || unansweredInputs(run).length > 0;
}

/** What `run`/`resume` return, from the run's state and the paused run (if it paused). */
export function runResult(state: RunState, paused: StoredRun | undefined): RunResult<unknown> {
  const history = state.context.getConversationHistory();
  const last = history[history.length - 1];
  const lastAssistant = state.stopped ? [...history].reverse().find((m) => m.role === 'assistant') : last;
  const text = paused ? null : lastAssistant?.role === 'assistant' ? (lastAssistant.content ?? '') : '';
  return {
    status: paused ? 'paused' : 'completed',
    // A run `stopWhen` ended has no final answer to validate: its output is its text.
    output: paused ? null : (state.structured ?? text),
    text,
    sessionId: state.key.sessionId,
    runId: state.runId,
    toolCalls: state.records,
    usage: state.usage,
    turns: state.turns,
    durationMs: Date.now() - state.startedAt,
    approvals: paused ? paused.approvals.filter((a) => !Object.hasOwn(paused.decisions, a.toolCallId)) : NO_APPROVALS,
    inputs: paused ? unansweredInputs(paused) : NO_INPUTS,
    ...(state.stopped ? { stoppedBy: 'stopWhen' as const } : {}),
    ...(state.handoff !== undefined && !paused ? { handoffs: [state.handoff] } : {}),
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

/** The run log with this run's entry last (a resumed run replaces its paused entry), at most RUN_LOG_SIZE. */
export function logged(state: RunState, status: RunLogEntry['status']): RunLogEntry[] {
  const entry: RunLogEntry = { runId: state.runId, input: inputHash(state.input), status, turns: state.turns, usage: { ...state.usage } };
  const log = state.runLog.filter((e) => e.runId !== state.runId);
  log.push(entry);
  return log.slice(-RUN_LOG_SIZE);
}

export function readRunLog(snapshot: SessionSnapshot): readonly RunLogEntry[] {
  const log = snapshot.state[RUN_LOG_KEY];
  return Array.isArray(log) ? (log as RunLogEntry[]) : [];
}

/** A decision as the call's record and the hooks' events show it. */
export function approvalRecord(decision: StoredDecision): ApprovalRecord {
  const record: ApprovalRecord = {
    approved: decision.approve,
    edited: decision.approve && decision.arguments !== undefined,
    decidedAt: decision.decidedAt ?? 0,
  };
  if (decision.approver) record.approver = decision.approver;
  if (!decision.approve) record.reason = decision.reason;
  return record;
}
