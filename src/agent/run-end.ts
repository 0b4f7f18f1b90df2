import { RunAbortedError, RunClaimedError, RunPausedError } from './errors';
import type { RunEvents } from './event-stream';
import type { HookSet } from './hooks';
import type { RunPersistence } from './run-persistence';
import type { RunState, StoredRun } from './run-state';
import { fromJournal, type StepJournal } from './step-journal';
import type { RunResult } from './types';

/** What a run's end uses: where it saves, the hooks that hear of it, the step records it forgets. */
export interface RunEnd {
  runs: RunPersistence;
  hooks: HookSet;
  steps?: StepJournal;
}

/**
 * How the run's loop ended: with its result and, if it paused, the paused run (`written` when its
 * new decisions were already written by compare-and-set, so saving it again could undo a concurrent
 * one); or with an error.
 */
export type RunOutcome =
  { failed: false; result: RunResult<unknown>; stored: StoredRun | undefined; written: boolean } | { failed: true; error: unknown };

/** Why a run that ended failed: what the end hook hears and the caller gets. */
interface Failure {
  error: unknown;
}

/**
 * The run's end, in this order: save what happened (or, when that cannot be, give the claim and
 * the new pause back), then the end hook, then the result or the failure. The caller's span and
 * stream end after it (see `streamEnded`, `streamFailed`).
 */
export async function finish(end: RunEnd, state: RunState, outcome: RunOutcome): Promise<RunResult<unknown>> {
  const failure = outcome.failed ? await saveFailed(end, state, outcome.error) : await saveEnded(end, state, outcome);
  const result = failure || outcome.failed ? undefined : outcome.result;
  if (end.hooks.observed) await end.hooks.emitEnd(state, result ? result.status : 'failed', failure?.error);
  if (result === undefined) throw failure?.error;
  return result;
}

/** A run that failed: what happened is kept (the history is complete: every call has its result); the failure wins over a save error. */
async function saveFailed({ runs, steps }: RunEnd, state: RunState, error: unknown): Promise<Failure> {
  if (fromJournal(error)) {
    // Another live process runs this run, or the store failed under a step: nothing is saved here; its records stay.
    await runs.release(state);
    return { error };
  }
  const failure =
    state.signal?.aborted && !(error instanceof RunAbortedError)
      ? new RunAbortedError(state.key.sessionId, state.context.getConversationHistory(), state.signal.reason)
      : error;
  const saved = await runs.save(state, state.hadPending ? null : undefined, 'failed').then(
    () => true,
    () => runs.release(state).then(() => false),
  );
  if (saved) await steps?.forget(state);
  return { error: failure };
}

/**
 * A run that completed or paused. A new pause is written by compare-and-set first: of two runs of
 * one session pausing at once (or a resume whose claim was taken over), one keeps its paused run;
 * the other fails typed. Undefined once saved.
 */
async function saveEnded(
  { runs, steps }: RunEnd,
  state: RunState,
  { result, stored, written }: { result: RunResult<unknown>; stored: StoredRun | undefined; written: boolean },
): Promise<Failure | undefined> {
  const previous = state.stored ?? null;
  const pausing = stored !== undefined && !written;
  try {
    if (pausing && !(await runs.store.compareAndSetPendingRun(state.key, previous, stored))) {
      const lost = previous
        ? new RunClaimedError(state.key.sessionId, state.runId)
        : new RunPausedError(state.key.sessionId, await runs.pendingIds(state.key));
      await runs.save(state, undefined, 'failed').catch(() => undefined);
      return { error: lost };
    }
    await runs.save(state, written || pausing ? undefined : state.hadPending ? null : undefined, result.status);
    // The run's end is saved: its step records are done with (a paused run keeps them in its stored run).
    if (stored === undefined) await steps?.forget(state);
    return undefined;
  } catch (error) {
    // The turn was not saved: take the new pause back (best effort) and give up the claim, so a retry can run.
    if (pausing) await runs.store.compareAndSetPendingRun(state.key, stored, previous).catch(() => undefined);
    await runs.release(state);
    return { error };
  }
}

/**
 * A streamed run's last events, once it saved and its span ended: approval-required (input-required)
 * per call a pause waits on, then run-end, which ends the stream (its reader's next read is done at once).
 */
export function streamEnded(state: RunState, result: RunResult<unknown>): RunResult<unknown> {
  const events = state.events;
  if (events) {
    for (const approval of result.approvals) events.emit({ type: 'approval-required', runId: state.runId, approval });
    for (const input of result.inputs ?? []) events.emit({ type: 'input-required', runId: state.runId, input });
    events.emit({ type: 'run-end', runId: state.runId, result });
  }
  return result;
}

/** A run's failure: thrown by `run`, handed to the stream (whose reader gets it) when streamed. */
export function streamFailed(events: RunEvents | undefined, error: unknown): RunResult<unknown> {
  if (events === undefined) throw error;
  events.end(true, error);
  return undefined as unknown as RunResult<unknown>; // never read: a streamed run's result reaches its reader as run-end
}
