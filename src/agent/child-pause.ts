import type { ChildResume } from '../session/agent-context';
import type { ToolCall } from '../session/message';
import { ChildRunPausedError } from './errors';
import { setOwn, type StoredDecision, type StoredRun } from './run-state';
import type { Approver, PendingApproval, PendingInput } from './types';

/*
 * Approvals through the tree: an agent tool whose child run paused throws ChildRunPausedError; the
 * calling run pauses on it as on an input (its other calls settle), listing the child's calls under
 * its own session with ids `parentCallId/childCallId` and a `path` (`tool#callId` from the top run
 * down). Deciding them is deciding the top run (same compare-and-set, same claim); the top run's
 * resume runs the agent tool call again with the decisions for its child (`childResume`), and the
 * agent tool resumes the child run with them, which claims its own paused run in its own store.
 */

/** What the calling run waits on: its own inputs, and the calls of paused child runs. */
export interface Waiting {
  inputs: PendingInput[];
  approvals: PendingApproval[];
}

/** The ChildRunPausedError a call failed with (the registry wraps what a tool throws), if any. */
export function childPaused(error: unknown): ChildRunPausedError | undefined {
  let cause = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++, cause = cause.cause) {
    if (cause instanceof ChildRunPausedError) return cause;
  }
  return undefined;
}

/** The child's waiting calls as the calling run lists them: ids prefixed by the call's, path extended. */
export function nestedWaits(call: ToolCall, paused: ChildRunPausedError): Waiting {
  const step = `${call.name}#${call.id}`;
  return {
    approvals: paused.approvals.map((a) => ({
      ...a,
      toolCallId: `${call.id}/${a.toolCallId}`,
      path: [step, ...(a.path ?? [`${a.name}#${a.toolCallId}`])],
    })),
    inputs: paused.inputs.map((i) => ({
      ...i,
      toolCallId: `${call.id}/${i.toolCallId}`,
      path: [step, ...(i.path ?? [`${i.name}#${i.toolCallId}`])],
    })),
  };
}

/** The decisions and answers a decided paused run holds for its child runs, by the calling call's id. */
export function childResumes(run: StoredRun, approver: Approver | undefined): Record<string, ChildResume> | undefined {
  let out: Record<string, ChildResume> | undefined;
  const add = (entry: { toolCallId: string; path?: string[] }, decision: object, by?: Approver) => {
    const parent = parentCallId(entry);
    if (parent === undefined) return;
    out ??= {};
    const resume = Object.hasOwn(out, parent) ? out[parent] : { decisions: {} as Record<string, object>, approver: by ?? approver };
    setOwn(out, parent, resume);
    setOwn(resume.decisions as Record<string, object>, entry.toolCallId.slice(parent.length + 1), decision);
  };
  for (const a of run.approvals) {
    if (Object.hasOwn(run.decisions, a.toolCallId))
      add(a, plainDecision(run.decisions[a.toolCallId]), run.decisions[a.toolCallId].approver);
  }
  for (const i of run.inputs ?? []) {
    const answers = Object.hasOwn(run.answered ?? {}, i.toolCallId) && run.answers && Object.hasOwn(run.answers, i.toolCallId);
    if (answers) add(i, run.answers![i.toolCallId].at(-1)!);
  }
  return out;
}

/** A paused run's decisions without those for its children's calls: what a new pause of the run keeps. */
export function ownDecisions(run: StoredRun): Record<string, StoredDecision> {
  const own: Record<string, StoredDecision> = {};
  for (const [id, decision] of Object.entries(run.decisions)) {
    if (!run.approvals.some((a) => a.toolCallId === id && a.path)) setOwn(own, id, decision);
  }
  return own;
}

/** Whether a waiting call is a child run's (listed with a path). */
export function isNested(entry: { path?: readonly string[] }): boolean {
  return entry.path !== undefined && entry.path.length > 1;
}

function parentCallId(entry: { toolCallId: string; path?: string[] }): string | undefined {
  if (!entry.path || entry.path.length < 2) return undefined;
  const id = entry.path[0].slice(entry.path[0].indexOf('#') + 1);
  return entry.toolCallId.startsWith(`${id}/`) ? id : undefined;
}

function plainDecision(decision: StoredDecision): object {
  if (!decision.approve) return { approve: false, reason: decision.reason };
  return decision.arguments === undefined ? { approve: true } : { approve: true, arguments: decision.arguments };
}
