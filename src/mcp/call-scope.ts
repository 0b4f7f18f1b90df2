import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import type { SessionStore } from '../stores/store';
import { save } from './call-lifecycle';
import type { McpIdentity, McpServerOptions } from './server-options';
import { mcpSessionKeys } from './session-keys';

/** What one request (a tool call, a resource read, a prompt) reads and writes: the session's state and the user's memory. */
export interface CallScope {
  key: SessionKey;
  memoryKey: MemoryKey;
  identity: McpIdentity;
  snapshot: SessionSnapshot | undefined;
  context: AgentContext;
  memory: AgentMemory;
}

export interface ScopeSource {
  store: SessionStore;
  options: McpServerOptions;
  fallbackSessionId: string;
}

/** Loads state always, memory when the callee declares it reads it; never the history (a request adds to it at most). */
export async function loadScope(
  source: ScopeSource,
  extra: { authInfo?: AuthInfo; sessionId?: string },
  readsMemory: boolean,
): Promise<CallScope> {
  const { key, memoryKey, identity } = mcpSessionKeys(extra, source.options, source.fallbackSessionId);
  const [snapshot, memorySnapshot] = await Promise.all([
    source.store.loadSession(key, { historyLimit: 0 }),
    readsMemory ? source.store.loadMemory(memoryKey) : undefined,
  ]);
  const memory = !readsMemory
    ? AgentMemory.unloaded(memoryKey)
    : memorySnapshot
      ? AgentMemory.fromSnapshot(memorySnapshot)
      : new AgentMemory(memoryKey);
  return { key, memoryKey, identity, snapshot, context: contextOf(snapshot, key, identity), memory };
}

/** What the callee wrote, kept (also after it failed, as in an agent turn). */
export function saveScope(store: SessionStore, scope: CallScope): Promise<void> {
  return save(store, scope.key, scope.memoryKey, scope.context, scope.memory, scope.snapshot, scope.identity.userId);
}

export function contextOf(snapshot: SessionSnapshot | undefined, key: SessionKey, identity: McpIdentity): AgentContext {
  return snapshot
    ? AgentContext.fromSnapshot(snapshot, identity.userId)
    : new AgentContext({ sessionId: key.sessionId, userId: identity.userId, tenantId: identity.tenantId });
}
