import type { ToolRegistry } from '../../registry/tool-registry';
import type { SessionKey } from '../../session/snapshots';
import type { LogLevel } from '../../session/tool-log';
import type { SessionStore } from '../../stores/store';
import { mcpStoreKeys, type McpIdentity, type McpServerOptions } from '../mcp-server';

/** What the parts of serveHttp share. */
export interface ServeContext {
  readonly registry: ToolRegistry;
  readonly store: SessionStore;
  /** What each MCP server is created with: the serveHttp options, store and memoryScope settled. */
  readonly serverOptions: McpServerOptions & { memoryScope: 'user' | 'session' };
  /** Who calls when no auth hook says so. */
  readonly fallbackIdentity: McpIdentity;
  readonly stateless: boolean;
  /** Signs MCP 2026-07-28 requestStates (a random one per process when unset). */
  readonly requestStateSecret?: string | Uint8Array;
  readonly onError: (error: unknown) => void;
}

/** What a stateless server keeps of an MCP session, in the store under `mcp-session:<id>`. */
export interface SessionRecord {
  owner: string;
  /** The level the client set with `logging/setLevel` (each request has a server of its own). */
  logLevel?: LogLevel;
}

const RECORD_PREFIX = 'mcp-session:';

export function recordKey(id: string, identity: McpIdentity): SessionKey {
  return { sessionId: `${RECORD_PREFIX}${id}`, tenantId: identity.tenantId };
}

/** Removes what an ended session stored: its AgentContext, its memory when scoped to it, its record when stateless. */
export async function forgetSession(ctx: ServeContext, id: string, identity: McpIdentity): Promise<void> {
  const { store, serverOptions } = ctx;
  const { key, memoryKey } = mcpStoreKeys(id, identity, serverOptions);
  try {
    await Promise.all([
      store.deleteSession(key),
      serverOptions.memoryScope === 'session' ? store.deleteMemory(memoryKey) : undefined,
      ctx.stateless ? store.deleteSession(recordKey(id, identity)) : undefined,
    ]);
  } catch (error) {
    ctx.onError(error);
  }
}
