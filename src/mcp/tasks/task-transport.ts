import type { SessionKey } from '../../session/snapshots';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { heartbeatMs, leaseEnd } from './task-lease';
import { changed, TERMINAL, type TaskRecord } from './task-record';
import type { TaskStore } from './task-store';
import { keyOf } from '../http/input-round';

/** How often the replica running a task reads it for a cancel or answers (another replica may have written them). */
export const TASK_POLL_MS = 200;

/** The tool-error codes that mean the call produced no result of its own: the task failed, it did not complete. */
const NO_RESULT = new Set(['STORE_UNAVAILABLE', 'STORE_CORRUPT', 'INTERNAL', 'TOOL_TIMEOUT']);

/**
 * The transport of a task's run, detached from any HTTP request. The MCP server's questions to the
 * client (approvals, elicitations, sampling) become the task's `inputRequests` (status
 * `input_required`), answered from the request's own `inputResponses` when the round that started
 * the task brought them; its response becomes the task's result (or error). Every TASK_POLL_MS it
 * reads the task: answers delivered by tasks/update go to the waiting handler, a cancel aborts it;
 * every heartbeatMs() it renews the task's lease, so other replicas can tell it is still alive.
 */
export class TaskTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly done: Promise<void>;
  private settle!: () => void;
  private asked = 0;
  /** Questions sent and not answered yet: input key -> the server's request id. */
  private readonly waiting = new Map<string, string | number>();
  private timer?: NodeJS.Timeout;
  private over = false;
  /** A store that stays down is reported once, not five times a second. */
  private failing = false;
  /** When this replica last renewed the lease (the task was created with one). */
  private renewedAt = Date.now();

  constructor(
    private readonly tasks: TaskStore,
    private readonly key: SessionKey,
    private readonly requestId: string | number,
    private readonly early: Record<string, unknown> | undefined,
    private readonly onError: (error: unknown) => void,
  ) {
    this.done = new Promise<void>((resolve) => (this.settle = resolve));
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => void this.poll().then(() => (this.failing = false), this.failed), TASK_POLL_MS);
    // The tool's own work keeps the process alive while it matters; the polling alone does not.
    this.timer.unref();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) return this.ask(message.id, message.method, message.params);
    if ('result' in message && message.id === this.requestId) return this.finish(outcome(message.result));
    if ('error' in message && message.id === this.requestId) {
      const { code, message: text, data } = message.error;
      return this.finish({ status: 'failed', error: data === undefined ? { code, message: text } : { code, message: text, data } });
    }
    // Progress and logs have no one to go to: a task's client polls.
  }

  private async ask(id: string | number, method: string, asked: unknown): Promise<void> {
    // Named as in a plain request's round (the tool's own key, else the next number), so answers carry over.
    const { key, sent: params } = keyOf(asked, () => `input-${this.asked++}`);
    if (this.early && Object.hasOwn(this.early, key)) {
      const result = this.early[key] as Record<string, unknown>;
      queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id, result }));
      return;
    }
    this.waiting.set(key, id);
    await this.tasks.change(this.key, (record) =>
      TERMINAL.has(record.status)
        ? undefined
        : changed(record, { status: 'input_required', inputRequests: { ...record.inputRequests, [key]: { method, params } } }),
    );
  }

  private readonly failed = (error: unknown): void => {
    if (!this.failing) this.onError(error);
    this.failing = true;
  };

  /**
   * Reads the task: a cancel (or a task gone, or failed as abandoned while this replica stalled)
   * ends the run; answers go to the questions waiting for them. Renews the lease when due.
   */
  private async poll(): Promise<void> {
    if (this.over) return;
    const record = await this.tasks.load(this.key);
    if (!record || TERMINAL.has(record.status)) return this.cancel();
    if (Date.now() - this.renewedAt >= heartbeatMs()) await this.renew();
    const answers = record.answers ?? {};
    const taken = Object.keys(answers).filter((key) => this.waiting.has(key));
    if (taken.length === 0) return;
    await this.tasks.change(this.key, (current) => {
      const left = { ...current.answers };
      for (const key of taken) delete left[key];
      return changed(current, { answers: left });
    });
    for (const key of taken) {
      const id = this.waiting.get(key)!;
      this.waiting.delete(key);
      this.onmessage?.({ jsonrpc: '2.0', id, result: answers[key] as Record<string, unknown> });
    }
  }

  /** Moves the lease on; nothing else of the task changes (not even lastUpdatedAt, which clients read). */
  private async renew(): Promise<void> {
    const at = Date.now();
    await this.tasks.change(this.key, (record) => (TERMINAL.has(record.status) ? undefined : { ...record, leaseUntil: leaseEnd(at) }));
    this.renewedAt = at;
  }

  private async finish(fields: Partial<TaskRecord>): Promise<void> {
    if (this.over) return;
    this.stop();
    try {
      // A task cancelled meanwhile stays cancelled: the first terminal status is the one that counts.
      await this.tasks.change(this.key, (record) =>
        TERMINAL.has(record.status) ? undefined : changed(record, { ...fields, inputRequests: undefined, answers: undefined }),
      );
    } finally {
      this.settle();
    }
  }

  /** Aborts the handler (the SDK's own cancellation path); the task already says how it ended (cancelled, or failed as abandoned). */
  private cancel(): void {
    if (this.over) return;
    this.stop();
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: this.requestId, reason: 'The task has ended (cancelled, or failed as abandoned).' },
    });
    this.settle();
  }

  private stop(): void {
    this.over = true;
    clearInterval(this.timer);
  }

  async close(): Promise<void> {
    this.stop();
    this.settle();
    this.onclose?.();
  }
}

/** A tools/call result as the task's end: completed with it, or failed when the call produced no result of its own. */
function outcome(result: Record<string, unknown>): Partial<TaskRecord> {
  const { _meta: _dropped, ...kept } = result;
  const code = result.isError === true ? errorCode(result) : undefined;
  if (code !== undefined && NO_RESULT.has(code)) {
    const text = errorMessage(result) ?? 'The task produced no result.';
    return { status: 'failed', error: { code: -32603, message: text, data: { code } } };
  }
  return { status: 'completed', result: kept };
}

/** The toolwright error code in an `isError` result's JSON text, if it is one. */
function errorCode(result: Record<string, unknown>): string | undefined {
  const parsed = firstText(result);
  return parsed && typeof parsed.code === 'string' ? parsed.code : undefined;
}

function errorMessage(result: Record<string, unknown>): string | undefined {
  const parsed = firstText(result);
  return parsed && typeof parsed.message === 'string' ? parsed.message : undefined;
}

function firstText(result: Record<string, unknown>): Record<string, unknown> | undefined {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: string; text?: unknown }>) : [];
  const text = content[0]?.type === 'text' && typeof content[0].text === 'string' ? content[0].text : undefined;
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
