import type {
  MemoryChanges,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';
import type { LoadSessionOptions, SessionStore } from './store';
import { applyMemoryChanges, applySessionChanges, memoryKeyString, sessionKeyString } from './apply-changes';
import { checkId, checkMemoryKey, checkSessionKey, lastMessages } from './snapshot-rows';

/**
 * Keeps sessions and memories in this process, for tests and demos. Snapshots are copied in
 * and out as JSON, so callers never share objects with the store and values behave as they
 * would in a persistent store (JSON round trips are also cheaper than structuredClone here).
 */
export class InMemoryStore implements SessionStore {
  private readonly sessions = new Map<string, SessionSnapshot>();
  private readonly memories = new Map<string, MemorySnapshot>();

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    checkSessionKey(key);
    const s = this.sessions.get(sessionKeyString(key));
    if (!s) return undefined;
    return copy({ ...s, history: lastMessages(s.history, options.historyLimit) });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    checkSessionKey(key);
    if (changes.userId !== undefined) checkId('userId', changes.userId);
    const k = sessionKeyString(key);
    const next = applySessionChanges(this.sessions.get(k), key, copy(changes));
    this.sessions.set(k, next);
    return next.version;
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    this.sessions.delete(sessionKeyString(key));
  }

  async claimSession(key: SessionKey, userId: string | null): Promise<string | null> {
    checkSessionKey(key);
    if (userId !== null) checkId('userId', userId);
    const k = sessionKeyString(key);
    const current = this.sessions.get(k);
    if (current) return current.userId ?? null;
    const created = applySessionChanges(undefined, key, userId === null ? { set: {}, deleted: [], appended: [] } : { userId, set: {}, deleted: [], appended: [] });
    this.sessions.set(k, { ...created, version: 0 });
    return userId;
  }

  async compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown | null): Promise<boolean> {
    checkSessionKey(key);
    const k = sessionKeyString(key);
    const current = this.sessions.get(k);
    if (!current || JSON.stringify(current.pendingRun ?? null) !== JSON.stringify(expected ?? null)) return false;
    this.sessions.set(k, { ...current, pendingRun: next === null ? null : copy(next), version: current.version + 1 });
    return true;
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    checkMemoryKey(key);
    const m = this.memories.get(memoryKeyString(key));
    return m && copy(m);
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    checkMemoryKey(key);
    const k = memoryKeyString(key);
    const next = applyMemoryChanges(this.memories.get(k), key, copy(changes));
    this.memories.set(k, next);
    return next.version;
  }

  async deleteMemory(key: MemoryKey): Promise<void> {
    this.memories.delete(memoryKeyString(key));
  }

  async close(): Promise<void> {
    this.sessions.clear();
    this.memories.clear();
  }
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}
