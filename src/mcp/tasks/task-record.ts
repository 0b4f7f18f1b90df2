/** The tasks extension's identifier (SEP-2663): in capabilities.extensions, on both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** JSON-RPC code 2026-07-28 gives a request the client did not declare the capability for. */
export const MISSING_CAPABILITY = -32021;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** One question the running tool waits on (an elicitation, an approval, a sampling request). */
export interface TaskInputRequest {
  method: string;
  params?: unknown;
}

/**
 * A task as the store keeps it (a session's `pendingRun`, changed only by compare-and-set): what
 * tasks/get shows, plus the answers tasks/update delivered that the running replica has not taken yet.
 */
export interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Epoch milliseconds after which the task is gone (created + ttlMs). */
  expiresAt: number;
  /** Epoch milliseconds until which the replica running the task is known alive (it renews this); past it, the task is abandoned. */
  leaseUntil?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, TaskInputRequest>;
  answers?: Record<string, unknown>;
}

export function newTask(taskId: string, ttlMs: number, pollIntervalMs: number, now = Date.now()): TaskRecord {
  const at = new Date(now).toISOString();
  return { taskId, status: 'working', createdAt: at, lastUpdatedAt: at, ttlMs, pollIntervalMs, expiresAt: now + ttlMs };
}

/** The task's fields every answer about it carries (SEP-2663's Task), flat. */
function taskFields(record: TaskRecord): Record<string, unknown> {
  const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = record;
  return { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs };
}

/** tools/call's answer when it started a task: CreateTaskResult, the task at the top level. */
export function createTaskResult(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(record) };
}

/** tasks/get's answer (DetailedTask): the result inlined once completed, the error once failed, the open questions while waiting. */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  const detailed: Record<string, unknown> = { resultType: 'complete', ...taskFields(record) };
  if (record.status === 'completed' && record.result) detailed.result = record.result;
  if (record.status === 'failed' && record.error) detailed.error = record.error;
  if (record.status === 'input_required') detailed.inputRequests = record.inputRequests ?? {};
  return detailed;
}

/** The record with its status and the time of the change. */
export function changed(record: TaskRecord, fields: Partial<TaskRecord>, now = Date.now()): TaskRecord {
  return { ...record, ...fields, lastUpdatedAt: new Date(now).toISOString() };
}
