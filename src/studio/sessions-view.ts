/** What the Sessions page shows of a stored session: its history, state and paused run, as plain JSON. */
import type { Agent } from '../agent/agent';
import type { PendingApproval, PendingInput } from '../agent/types';
import type { SessionSnapshot } from '../session/snapshots';

interface PausedRunView {
  runId?: string;
  agentName?: string;
  input?: string;
  /** The calls waiting for a decision, and who may make it: the session's owner (null: anonymous). */
  approvals: PendingApproval[];
  inputs: PendingInput[];
  decider: string | null;
}

/** A stored paused run as the runner keeps it (see agent/run-state.ts); only what the page reads. */
interface StoredRunLike {
  kind?: unknown;
  runId?: unknown;
  agentName?: unknown;
  input?: unknown;
  approvals?: unknown;
  inputs?: unknown;
  decisions?: unknown;
}

export async function sessionView(snapshot: SessionSnapshot, agent: Agent | undefined) {
  return {
    sessionId: snapshot.sessionId,
    tenantId: snapshot.tenantId ?? null,
    userId: snapshot.userId ?? null,
    version: snapshot.version,
    history: snapshot.history,
    state: snapshot.state,
    pausedRun: await pausedRun(snapshot, agent),
  };
}

async function pausedRun(snapshot: SessionSnapshot, agent: Agent | undefined): Promise<PausedRunView | null> {
  const run = snapshot.pendingRun as StoredRunLike | null;
  if (run === null || typeof run !== 'object') return null;
  const decider = snapshot.userId ?? null;
  const key = { sessionId: snapshot.sessionId, tenantId: snapshot.tenantId, userId: snapshot.userId };
  const base = {
    runId: typeof run.runId === 'string' ? run.runId : undefined,
    agentName: typeof run.agentName === 'string' ? run.agentName : undefined,
    input: typeof run.input === 'string' ? run.input : undefined,
    decider,
  };
  // The agent's own reading (what is still undecided) when the run is this agent's; else the stored lists as they are.
  if (agent && run.agentName === agent.name) {
    const [approvals, inputs] = await Promise.all([agent.pendingApprovals(key), agent.pendingInputs(key)]);
    return { ...base, approvals, inputs };
  }
  const decided = run.decisions !== null && typeof run.decisions === 'object' ? (run.decisions as Record<string, unknown>) : {};
  const approvals = (Array.isArray(run.approvals) ? (run.approvals as PendingApproval[]) : []).filter(
    (a) => !Object.hasOwn(decided, a.toolCallId),
  );
  return { ...base, approvals, inputs: Array.isArray(run.inputs) ? (run.inputs as PendingInput[]) : [] };
}
