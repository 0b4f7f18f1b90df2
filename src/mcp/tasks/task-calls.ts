import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RegisteredTool } from '../../registry/registered-tool';
import type { ToolRegistry } from '../../registry/tool-registry';
import { leaseEnd } from './task-lease';
import { createTaskResult, MISSING_CAPABILITY, newTask, TASKS_EXTENSION } from './task-record';
import type { TaskOwner, TaskStore } from './task-store';
import { TASK_POLL_MS, TaskTransport } from './task-transport';

/** A task keeps its record this long unless the tool says otherwise (`@Tool({ task: { ttlMs } })`). */
const DEFAULT_TTL_MS = 60 * 60 * 1000;

/** What the tools/call request carried that the detached run needs again. */
type MessageExtra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'authInfo' | 'requestInfo'>;

/** How the serving layer hands a tools/call to the tasks extension. */
export interface TaskCall {
  owner: TaskOwner;
  message: { jsonrpc: '2.0'; id: string | number; method: string; params: Record<string, unknown> };
  /** What the client declared for this request (`_meta` clientCapabilities). */
  capabilities: Record<string, unknown>;
  extra: MessageExtra;
  /** The answers the request brought (the signed requestState's and inputResponses), by input key. */
  answers: Record<string, unknown>;
}

/** What a tools/call comes to: run as usual, refused, or a task started (answer it with `result`). */
export type TaskDecision =
  | { kind: 'plain' }
  | { kind: 'refused'; code: number; message: string; data: object }
  | { kind: 'started'; result: Record<string, unknown> };

/** Did the client declare the tasks extension for this request? */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  return isObject(extensions) && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** Does any tool of the registry run as a task (then server/discover advertises the extension)? */
export function servesTasks(registry: ToolRegistry): boolean {
  return registry.tools().some((tool) => tool.task !== undefined);
}

/**
 * Decides whether a tools/call becomes a task, and starts it: the record is written (durably, in the
 * store every replica reads) before the answer goes out, then the call runs detached on an MCP
 * server of its own, through the same handler and the registry's one gate as any call, its
 * questions waiting on the task and its cancel read from the store.
 */
export class TaskCalls {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly tasks: TaskStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * `openServer` makes the MCP server the call runs on (the request's identity and declared
   * capabilities); `permits` asks the registry's gate whether the caller may see the tool.
   */
  async decide(call: TaskCall, openServer: () => Server, permits: (name: string) => Promise<boolean>): Promise<TaskDecision> {
    const tool = this.taskTool(call.message.params.name);
    // A tool the caller may not see is answered as a plain call (TOOL_NOT_FOUND), never as a task id that shows it exists.
    if (!tool?.task || !(await permits(tool.name))) return { kind: 'plain' };
    if (!declaresTasks(call.capabilities)) {
      if (tool.task.support === 'optional') return { kind: 'plain' };
      return {
        kind: 'refused',
        code: MISSING_CAPABILITY,
        message: `Missing required client capability: tool "${tool.name}" runs only as a task (the ${TASKS_EXTENSION} extension).`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      };
    }
    const early = Object.keys(call.answers).length > 0 ? call.answers : undefined;
    // A tool that asks first does so on the request (multi-round-trip); the round that brings the answers becomes the task.
    if (tool.task.inputFirst && !early) return { kind: 'plain' };
    // The lease starts with the task: this replica runs it and renews the lease while it does.
    const record = { ...newTask(randomUUID(), tool.task.ttlMs ?? DEFAULT_TTL_MS, TASK_POLL_MS), leaseUntil: leaseEnd() };
    const key = this.tasks.key(call.owner, record.taskId)!;
    await this.tasks.create(key, record);
    const transport = new TaskTransport(this.tasks, key, call.message.id, early, this.onError);
    void this.run(openServer(), transport, call).catch(this.onError);
    return { kind: 'started', result: createTaskResult(record) };
  }

  private async run(server: Server, transport: TaskTransport, call: TaskCall): Promise<void> {
    try {
      await server.connect(transport);
      transport.onmessage?.(call.message, call.extra);
      await transport.done;
    } finally {
      await server.close().catch(this.onError);
    }
  }

  private taskTool(name: unknown): RegisteredTool | undefined {
    return typeof name === 'string' && this.registry.has(name) ? this.registry.describe(name) : undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
