import { AgentContext } from '../../src/session/agent-context';
import type { SessionKey } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';

/** One agent turn as the runner does it: load, state key `turn-<n>`, messages `<n>:a` and `<n>:b`, save. */
export async function writeTurn(store: SessionStore, key: SessionKey, n: string): Promise<number> {
  const snap = await store.loadSession(key);
  const ctx = snap ? AgentContext.fromSnapshot(snap) : new AgentContext({ sessionId: key.sessionId, tenantId: key.tenantId });
  ctx.setState(`turn-${n}`, n);
  ctx.addMessage({ role: 'user', content: `${n}:a` });
  ctx.addMessage({ role: 'assistant', content: `${n}:b` });
  return store.saveSession(key, ctx.takeChanges());
}
