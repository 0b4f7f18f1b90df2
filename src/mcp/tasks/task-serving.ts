import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ToolRegistry } from '../../registry/tool-registry';
import type { SessionStore } from '../../stores/store';
import { META, type ModernMessage } from '../http/era';
import type { Admitted } from '../http/guard';
import { sendError } from '../http/respond';
import { declaresTasks, servesTasks, TaskCalls } from './task-calls';
import { answerTaskMethod, TASK_METHODS } from './task-methods';
import { MISSING_CAPABILITY, TASKS_EXTENSION } from './task-record';
import { TaskStore, type TaskOwner } from './task-store';

type Finish = (method: string, result: Record<string, unknown>) => Record<string, unknown>;

/** What the serving layer lends a tools/call that may become a task. */
export interface TaskCallHooks {
  /** The MCP server the call runs on (the request's identity and declared capabilities). */
  openServer: () => Server;
  finish: Finish;
  /** May the caller see this tool (the registry's gate)? */
  permits: (name: string) => Promise<boolean>;
  /** The answers this round brought (its requestState's and its inputResponses). */
  answers: Record<string, unknown>;
}

/**
 * The tasks extension (SEP-2663) on the 2026-07-28 path: what server/discover advertises, the
 * tasks/* methods, and tools/call for a tool declared with `@Tool({ task })`. Its state lives in
 * the session store, so every replica sharing the store serves the same tasks.
 */
export class TaskServing {
  private readonly tasks: TaskStore;
  private readonly calls: TaskCalls;

  constructor(
    private readonly registry: ToolRegistry,
    store: SessionStore,
    private readonly onError: (error: unknown) => void,
  ) {
    this.tasks = new TaskStore(store);
    this.calls = new TaskCalls(registry, this.tasks, onError);
  }

  /** The server's `capabilities.extensions` entry, when any tool runs as a task. */
  extensions(): Record<string, object> | undefined {
    return servesTasks(this.registry) ? { [TASKS_EXTENSION]: {} } : undefined;
  }

  handles(method: string): boolean {
    return TASK_METHODS.has(method) && this.extensions() !== undefined;
  }

  /** tasks/get, tasks/update, tasks/cancel: for a client that declared the extension, on its own tasks. */
  async method(res: ServerResponse, { identity, owner }: Admitted, message: ModernMessage, finish: Finish): Promise<void> {
    const params = message.params!;
    const meta = params._meta as Record<string, unknown>;
    if (!declaresTasks(meta[META.clientCapabilities]))
      return missingCapability(
        res,
        message.id!,
        `${message.method} needs the ${TASKS_EXTENSION} extension declared in clientCapabilities.`,
      );
    try {
      const answer = await answerTaskMethod(this.tasks, ownerOf(owner, identity.tenantId), message.method, params);
      if ('error' in answer) return sendError(res, answer.status, answer.error.code, answer.error.message, undefined, message.id);
      sendResult(res, message.id!, finish(message.method, answer.result));
    } catch (error) {
      this.onError(error);
      sendError(res, 503, -32603, 'The task store is unavailable; try again.', undefined, message.id);
    }
  }

  /**
   * tools/call: answered here (a task started, or refused) and true, or false for the caller to run
   * it as a plain call.
   */
  async call(req: IncomingMessage, res: ServerResponse, admitted: Admitted, message: ModernMessage, how: TaskCallHooks): Promise<boolean> {
    const params = message.params!;
    const meta = params._meta as Record<string, unknown>;
    const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
    let decision;
    try {
      decision = await this.calls.decide(
        {
          owner: ownerOf(admitted.owner, admitted.identity.tenantId),
          message: { jsonrpc: '2.0', id: message.id!, method: message.method, params },
          capabilities: meta[META.clientCapabilities] as Record<string, unknown>,
          extra: { authInfo, requestInfo: { headers: req.headers } },
          answers: how.answers,
        },
        how.openServer,
        how.permits,
      );
    } catch (error) {
      this.onError(error);
      sendError(res, 503, -32603, 'The task store is unavailable; try again.', undefined, message.id);
      return true;
    }
    if (decision.kind === 'plain') return false;
    if (decision.kind === 'refused') sendError(res, 400, decision.code, decision.message, decision.data, message.id);
    else sendResult(res, message.id!, how.finish(message.method, decision.result));
    return true;
  }
}

function ownerOf(owner: string, tenantId: string | undefined): TaskOwner {
  return tenantId === undefined ? { owner } : { owner, tenantId };
}

function missingCapability(res: ServerResponse, id: string | number, message: string): void {
  sendError(
    res,
    400,
    MISSING_CAPABILITY,
    `Missing required client capability: ${message}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    id,
  );
}

function sendResult(res: ServerResponse, id: string | number, result: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}
