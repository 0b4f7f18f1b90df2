import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { EmptyResultSchema, type CallToolResult, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { encodeToolError, StoreUnavailableError, ToolwrightError } from '../errors/errors';
import type { AgentContext, ToolProgress } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import { logLevelAtLeast, type LogLevel, type ToolLog } from '../session/tool-log';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import { saveTurn } from '../stores/save-turn';
import type { SessionStore } from '../stores/store';
import { storeUnavailableResult } from './store-unavailable';

/**
 * `notifications/progress` for one request whose client sent `_meta.progressToken`. MCP wants
 * `progress` to increase with each notification: a value that does not (or is not a finite
 * number) is dropped, as is anything reported after the call ended.
 */
export function progressSender(
  token: string | number | undefined,
  sendNotification: (notification: ServerNotification) => Promise<void>,
): { send: (progress: ToolProgress) => void; stop: () => void; readonly sent: boolean } | undefined {
  if (token === undefined) return undefined;
  let last = -Infinity;
  let open = true;
  return {
    get sent() {
      return last !== -Infinity;
    },
    send: ({ progress, total, message }) => {
      if (!open || typeof progress !== 'number' || !Number.isFinite(progress) || progress <= last) return;
      last = progress;
      const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
        progressToken: token,
        progress,
      };
      if (typeof total === 'number' && Number.isFinite(total)) params.total = total;
      if (typeof message === 'string') params.message = message;
      // Sent on the request's own stream; a connection gone meanwhile is not the tool's failure.
      sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
    },
    stop: () => {
      open = false;
    },
  };
}

/**
 * `notifications/message` for one call's `context.log`, at or above the session's level (none while
 * the client set none); nothing after the call ended. The logger is the tool's name.
 */
export function logSender(
  level: LogLevel | undefined,
  logger: string,
  sendNotification: (notification: ServerNotification) => Promise<void>,
): { send: (log: ToolLog) => void; stop: () => void } | undefined {
  if (level === undefined) return undefined;
  let open = true;
  return {
    send: ({ level: at, message, data }) => {
      if (!open || !logLevelAtLeast(at, level)) return;
      const params = { level: at, logger, data: data === undefined ? message : { message, data } };
      // As progress: on the request's own stream, and a connection gone meanwhile is not the tool's failure.
      sendNotification({ method: 'notifications/message', params }).catch(() => undefined);
    },
    stop: () => {
      open = false;
    },
  };
}

/** Streamable HTTP: each request has its own SSE stream, which the client reads one event at a time. */
export function hasRequestStreams(server: Server): boolean {
  return typeof (server.transport as { closeSSEStream?: unknown } | undefined)?.closeSSEStream === 'function';
}

/**
 * The SDK client handles a notification a microtask later but a response at once, and forgets a
 * request's progress handler with its response: progress read in the same chunk as the response
 * (stdio, a loaded client) is dropped (modelcontextprotocol/typescript-sdk#2580). A ping answered
 * before the response goes out means the client has handled every notification sent before it.
 * Bounded, and only for calls that sent progress.
 */
export async function settleProgress(
  sendRequest: (request: { method: 'ping' }, schema: typeof EmptyResultSchema, options?: { timeout?: number }) => Promise<unknown>,
): Promise<void> {
  await sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: 2_000 }).catch(() => undefined);
}

/**
 * A cancelled request gets no response (MCP), so on Streamable HTTP its SSE stream would stay
 * open, and the HTTP request with it, until the session ends: close it. Other transports have
 * nothing to close.
 */
export function endCancelled(server: Server, requestId: string | number): void {
  const transport = server.transport as { closeSSEStream?: (id: string | number) => void } | undefined;
  try {
    transport?.closeSSEStream?.(requestId);
  } catch {
    // Closed already.
  }
}

export async function save(
  store: SessionStore,
  key: SessionKey,
  memoryKey: MemoryKey,
  context: AgentContext,
  memory: AgentMemory,
  loaded: SessionSnapshot | undefined,
  userId: string | undefined,
): Promise<void> {
  const changes = context.takeChanges();
  // A call that changed nothing costs no write (the userId is only news for a new session).
  if (changes.userId === loaded?.userId) delete changes.userId;
  // Written only while the session still has the owner this call loaded it with (or, new, this caller).
  const owner = loaded ? (loaded.userId ?? null) : (userId ?? null);
  // One unit: a call whose save fails leaves neither the session nor the memory written.
  await saveTurn(store, { key, changes: { ...changes, owner } }, { key: memoryKey, changes: memory.takeChanges() });
}

/** Call errors go back as `isError` results carrying the same compact JSON the agent runner shows a model. */
export function errorResult(error: unknown, onError: (error: unknown) => void): CallToolResult {
  let text: string;
  if (error instanceof StoreUnavailableError) {
    onError(error);
    return storeUnavailableResult();
  } else if (error instanceof ToolwrightError) {
    if (error.code === 'TOOL_FAILED' || error.code === 'INVALID_OUTPUT') onError(error);
    text = error.toToolResult();
  } else {
    onError(error);
    text = encodeToolError('INTERNAL', 'The tool server failed unexpectedly.');
  }
  return { content: [{ type: 'text', text }], isError: true };
}
