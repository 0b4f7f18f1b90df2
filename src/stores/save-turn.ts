import {
  isEmptyMemoryChanges,
  isEmptySessionChanges,
  type MemoryChanges,
  type MemoryKey,
  type SessionChanges,
  type SessionKey,
} from '../session/snapshots';
import type { SessionStore } from './store';

/**
 * Saves one turn's session and memory changes as one unit: through `store.saveTurn` (one
 * transaction or script) when both changed; a store without it gets the memory first, so a memory
 * it refuses never leaves the session advanced. Empty changes cost no write unless `always`.
 */
export async function saveTurn(
  store: SessionStore,
  session: { key: SessionKey; changes: SessionChanges; always?: boolean },
  memory: { key: MemoryKey; changes: MemoryChanges },
): Promise<void> {
  const saveSession = session.always || !isEmptySessionChanges(session.changes);
  if (isEmptyMemoryChanges(memory.changes)) {
    if (saveSession) await store.saveSession(session.key, session.changes);
  } else if (!saveSession) {
    await store.saveMemory(memory.key, memory.changes);
  } else if (store.saveTurn) {
    await store.saveTurn(session.key, session.changes, memory);
  } else {
    await store.saveMemory(memory.key, memory.changes);
    await store.saveSession(session.key, session.changes);
  }
}
