import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';

/** The merge every store applies on save: state per key, history appended in order. Pure. */
export function applySessionChanges(current: SessionSnapshot | undefined, key: SessionKey, changes: SessionChanges): SessionSnapshot {
  const base: SessionSnapshot = current ?? {
    sessionId: key.sessionId,
    tenantId: key.tenantId,
    state: {},
    history: [],
    userInput: null,
    pendingRun: null,
    version: 0,
  };
  const state: Record<string, unknown> = { ...base.state };
  for (const k of changes.deleted) delete state[k];
  for (const k in changes.set) {
    // `__proto__` is data here: define it rather than assign it (assignment would set the prototype).
    if (k === '__proto__') Object.defineProperty(state, k, { value: changes.set[k], enumerable: true, writable: true, configurable: true });
    else state[k] = changes.set[k];
  }
  return {
    ...base,
    userId: changes.userId ?? base.userId,
    state,
    history: [...(changes.replacedHistory ?? base.history), ...changes.appended],
    userInput: changes.userInput !== undefined ? changes.userInput : base.userInput,
    pendingRun: changes.pendingRun !== undefined ? changes.pendingRun : base.pendingRun,
    version: base.version + 1,
  };
}

export function applyMemoryChanges(current: MemorySnapshot | undefined, key: MemoryKey, changes: MemoryChanges): MemorySnapshot {
  const base: MemorySnapshot = current ?? {
    agentName: key.agentName,
    userId: key.userId,
    tenantId: key.tenantId,
    entries: [],
    summary: null,
    version: 0,
  };
  return {
    ...base,
    entries: [...base.entries, ...changes.added],
    summary: changes.summary !== undefined ? changes.summary : base.summary,
    version: base.version + 1,
  };
}

/** One string per scope; JSON keeps ids containing separators from colliding. */
export function sessionKeyString(key: SessionKey): string {
  return JSON.stringify([key.tenantId ?? '', key.sessionId]);
}

export function memoryKeyString(key: MemoryKey): string {
  return JSON.stringify([key.tenantId ?? '', key.agentName, key.userId]);
}
