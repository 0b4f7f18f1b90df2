import type { TaskRecord } from './task-record';
import { abandoned } from './task-lease';
import { changed, detailedTask, TERMINAL } from './task-record';
import type { TaskOwner, TaskStore } from './task-store';

/** The methods of the tasks extension this server answers; tasks/result and tasks/list are gone from it (-32601). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** A tasks/* answer: a result, or a JSON-RPC error to send with its HTTP status. */
export type TaskAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string }; status: number };

const INVALID_TASK: TaskAnswer = {
  status: 200,
  error: { code: -32602, message: 'Invalid params: no such task (unknown, expired, or not yours).' },
};

/**
 * tasks/get, tasks/update and tasks/cancel, read and changed in the store: any replica answers them.
 * A task is its owner's alone: another identity's taskId is as unknown as one never minted (-32602).
 */
export async function answerTaskMethod(
  tasks: TaskStore,
  owner: TaskOwner,
  method: string,
  params: Record<string, unknown>,
): Promise<TaskAnswer> {
  const { taskId } = params;
  if (typeof taskId !== 'string' || taskId.length === 0)
    return { status: 200, error: { code: -32602, message: 'Invalid params: taskId must be a non-empty string.' } };
  const responses = params.inputResponses;
  if (method === 'tasks/update' && !isObject(responses))
    return { status: 200, error: { code: -32602, message: 'Invalid params: tasks/update needs inputResponses, an object.' } };
  const key = tasks.key(owner, taskId);
  if (!key) return INVALID_TASK;
  // Whoever asks about a task whose runner died fails it first, so the client sees an end, not `working` until the ttl.
  if (method === 'tasks/get') {
    const record = await tasks.change(key, (current) => abandoned(current));
    return record ? { result: detailedTask(record) } : INVALID_TASK;
  }
  const change = method === 'tasks/update' ? (record: TaskRecord) => answered(record, responses as Record<string, unknown>) : cancelled;
  const record = await tasks.change(key, (current) => abandoned(current) ?? change(current));
  // An ack and nothing else: the task's state is what the next tasks/get says.
  return record ? { result: { resultType: 'complete' } } : INVALID_TASK;
}

/**
 * tasks/update: each answer to an open question moves from `inputRequests` to `answers` (for the
 * replica running the task to take); unknown or already answered keys are ignored. The task works
 * again once no question is left.
 */
function answered(record: TaskRecord, responses: Record<string, unknown>): TaskRecord | undefined {
  if (record.status !== 'input_required' || !record.inputRequests) return undefined;
  const open = { ...record.inputRequests };
  const answers = { ...record.answers };
  let taken = false;
  for (const key of Object.keys(responses)) {
    if (!Object.hasOwn(open, key)) continue;
    delete open[key];
    answers[key] = responses[key];
    taken = true;
  }
  if (!taken) return undefined;
  const left = Object.keys(open).length > 0;
  return changed(record, { status: left ? 'input_required' : 'working', inputRequests: left ? open : undefined, answers });
}

/** tasks/cancel: a running task is cancelled (its replica aborts the tool); a finished one stays as it ended. */
function cancelled(record: TaskRecord): TaskRecord | undefined {
  if (TERMINAL.has(record.status)) return undefined;
  return changed(record, { status: 'cancelled', inputRequests: undefined, answers: undefined });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
