import { createHash, randomUUID } from 'node:crypto';
import { whileClaimed, type IdempotencyClaims } from '../side-effects/claims';
import { StepClaimedError } from './errors';
import type { RunState } from './run-state';

const FAILURES = new WeakSet<object>();

/** The store failed under the journal (claiming or recording a step): the run ends without saving (see `fromJournal`). */
function journalFailure(error: unknown): never {
  if (error !== null && typeof error === 'object') FAILURES.add(error);
  throw error;
}

/** Whether a run's failure came from its step journal's store rather than from a step. */
export function fromJournal(error: unknown): boolean {
  return error instanceof StepClaimedError || (error !== null && typeof error === 'object' && FAILURES.has(error));
}

/** The claims namespace the agent's step records live in, in the run's own store. */
export const STEPS_NAMESPACE = 'toolwright.steps';

/**
 * Durable steps: each model turn and each tool call of a run is claimed in the store before it
 * runs and its outcome recorded when it returns (the store's idempotency claims), keyed by what a
 * retry of the run shares (tenant, session, agent, the run's call scope) and the step's place. A
 * process killed mid-run leaves the steps it finished recorded: the run retried (same input, same
 * session) or resumed elsewhere replays them (no second model call, no second execution) and goes
 * on from the first unfinished one. A step whose claim is held by a live process ends the other
 * run with RunClaimedError before it saves anything; a dead holder's claim lapses after `leaseMs`.
 * A run that saved forgets its records.
 */
export class StepJournal {
  constructor(
    private readonly claims: IdempotencyClaims<unknown>,
    private readonly agentName: string,
    private readonly leaseMs: number,
  ) {}

  /** `run` once per step of this logical run: its recorded outcome if one is, else run under a claim and recorded. */
  async step<T>(state: RunState, step: string, run: () => Promise<T>): Promise<T> {
    state.stepBase ??= createHash('sha256')
      .update(`${state.key.tenantId ?? ''}\u0000${state.key.sessionId}\u0000${this.agentName}\u0000${state.callScope}`)
      .digest('base64url');
    const key = `${state.stepBase}:${step}`;
    const holder = randomUUID();
    const found = await this.claims.claim(key, 'step', holder, this.leaseMs).catch(journalFailure);
    if (found.state === 'pending') throw new StepClaimedError(state.key.sessionId, state.runId);
    if (!state.steps.includes(key)) state.steps.push(key);
    if (found.state === 'done') return found.entry.result as T;
    let finished = false;
    const action = async () => {
      const value = await run();
      finished = true;
      return value;
    };
    try {
      return await whileClaimed(this.claims as IdempotencyClaims<T>, key, holder, 'step', this.leaseMs, action);
    } catch (error) {
      // The step's own failure (a model error, a tool that threw) is the run's to handle; a record that could not be written is the journal's.
      if (!finished) throw error;
      return journalFailure(error);
    }
  }

  /** Drops a saved run's records (best effort: a record left behind names a call scope no later run has). */
  async forget(state: RunState): Promise<void> {
    if (state.steps.length === 0 || !this.claims.forget) return;
    await this.claims.forget(state.steps).catch(() => undefined);
    state.steps = [];
  }
}
