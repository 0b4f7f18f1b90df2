import { changed, TERMINAL, type TaskRecord } from './task-record';

/** How often the replica running a task renews its lease: often enough to notice a dead one soon, rarely enough to keep store writes low. */
const DEFAULT_HEARTBEAT_MS = 5_000;

/** Missed renewals before a task counts as abandoned: one slow store write or GC pause is not a death. */
const LEASE_PERIODS = 3;

/** The renewal interval; TOOLWRIGHT_TASK_HEARTBEAT_MS overrides it (tests use a short one). Read at each use, after startup code set it. */
export function heartbeatMs(): number {
  const configured = Number(process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_HEARTBEAT_MS;
}

/** When a lease taken or renewed at `now` runs out. */
export function leaseEnd(now = Date.now()): number {
  return now + LEASE_PERIODS * heartbeatMs();
}

/**
 * A change for TaskStore.change: a task still running whose runner stopped renewing its lease
 * (the process died) fails, so its client stops polling. Applied by compare-and-set, so two
 * replicas that see it at once fail it once; a task that ended, or has no lease, stays as it is.
 */
export function abandoned(record: TaskRecord, now = Date.now()): TaskRecord | undefined {
  if (TERMINAL.has(record.status) || record.leaseUntil === undefined || record.leaseUntil > now) return undefined;
  const error = {
    code: -32603,
    message: 'The server running this task stopped before it finished; the task will not complete.',
    data: { code: 'TASK_ABANDONED' },
  };
  return changed(record, { status: 'failed', error, inputRequests: undefined, answers: undefined }, now);
}
