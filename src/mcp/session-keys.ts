import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { MemoryKey, SessionKey } from '../session/snapshots';
import { IDENTITY_KEY, type McpIdentity, type McpServerOptions } from './server-options';

/** The store keys of one MCP session's context and memory, for a call and for cleaning up after it ends. */
export function mcpStoreKeys(
  sessionId: string,
  identity: McpIdentity,
  options: Pick<McpServerOptions, 'agentName' | 'memoryScope'>,
): { key: SessionKey; memoryKey: MemoryKey } {
  const memoryUser = options.memoryScope === 'session' ? `mcp-session:${sessionId}` : identity.userId;
  return {
    key: { sessionId, tenantId: identity.tenantId },
    memoryKey: { agentName: options.agentName ?? 'mcp', userId: memoryUser, tenantId: identity.tenantId },
  };
}

export function mcpSessionKeys(
  extra: { authInfo?: AuthInfo; sessionId?: string },
  options: McpServerOptions,
  fallbackSessionId: string,
): { key: SessionKey; memoryKey: MemoryKey; identity: McpIdentity } {
  const identity = identityOf(extra.authInfo) ?? options.identity ?? { userId: 'anonymous' };
  return { ...mcpStoreKeys(extra.sessionId ?? fallbackSessionId, identity, options), identity };
}

function identityOf(auth: AuthInfo | undefined): McpIdentity | undefined {
  const value = auth?.extra?.[IDENTITY_KEY] as McpIdentity | undefined;
  return value && typeof value.userId === 'string' ? value : undefined;
}
