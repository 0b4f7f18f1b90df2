import { createHash } from 'node:crypto';
import { ToolwrightError } from '../../errors/errors';
import type { SessionKey } from '../../session/snapshots';
import type { SessionStore } from '../../stores/store';
import type { TaskRecord } from './task-record';

/** Who may see a task: the identity that created it (tenant and user; '' when the server knows no one). */
export interface TaskOwner {
  owner: string;
  tenantId?: string;
}

/** A task id as this server mints them (a UUID); anything else names no task. */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A change lost to a concurrent one is tried again on what won, this many times. */
const CHANGE_ATTEMPTS = 20;

/**
 * Tasks in the configured session store, one session per task keyed by its owner and id
 * (`mcp-task:<sha256(owner)>:<taskId>`), the record in the session's `pendingRun`: created by
 * `claimSession` + a compare-and-set from nothing, changed only by compare-and-set, so every replica
 * sharing the store reads and changes the same task and two changes at once never lose one.
 */
export class TaskStore {
  constructor(private readonly store: SessionStore) {}

  key(owner: TaskOwner, taskId: string): SessionKey | undefined {
    if (!TASK_ID.test(taskId)) return undefined;
    const hash = createHash('sha256').update(owner.owner, 'utf8').digest('hex');
    const key: SessionKey = { sessionId: `mcp-task:${hash}:${taskId}` };
    if (owner.tenantId !== undefined) key.tenantId = owner.tenantId;
    return key;
  }

  /** Writes a new task; resolves once it is durable (a tasks/get on any replica finds it). */
  async create(key: SessionKey, record: TaskRecord): Promise<void> {
    await this.store.claimSession(key, null);
    if (!(await this.store.compareAndSetPendingRun(key, null, record)))
      throw new ToolwrightError('STORE_UNAVAILABLE', `Task ${record.taskId} exists already.`);
  }

  /** The task, or undefined when there is none (or it outlived its ttl: then it is removed). */
  async load(key: SessionKey): Promise<TaskRecord | undefined> {
    const snapshot = await this.store.loadSession(key, { historyLimit: 0 });
    const record = snapshot?.pendingRun as TaskRecord | null | undefined;
    if (!record) return undefined;
    if (record.expiresAt <= Date.now()) {
      await this.store.deleteSession(key);
      return undefined;
    }
    return record;
  }

  /**
   * Applies `change` to the task as stored, by compare-and-set, again on the newer record when
   * another change won. `change` returns undefined to leave the task as it is. Resolves to the
   * record as stored afterwards (undefined: no such task).
   */
  async change(key: SessionKey, change: (record: TaskRecord) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const current = await this.load(key);
      if (!current) return undefined;
      const next = change(current);
      if (!next) return current;
      if (await this.store.compareAndSetPendingRun(key, current, next)) return next;
    }
    // Served as a 503 like an outage: the change did not happen and the client may try again.
    throw new ToolwrightError('STORE_UNAVAILABLE', `Task ${key.sessionId} kept changing under ${CHANGE_ATTEMPTS} attempts to change it.`);
  }
}
