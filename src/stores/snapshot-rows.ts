import { StoreCorruptError, StoreUnavailableError, ToolwrightError, ToolwrightConfigError } from '../errors/errors';
import type { Message } from '../session/message';
import type {
  MemoryChanges,
  MemoryEntry,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';

/**
 * Row mapping shared by the persistent stores: they all keep a session as a meta record, state
 * entries (key → JSON text) and history rows (JSON text, in order), and a memory as a meta record
 * and entry rows. Only how those rows are read and written differs per backend.
 */

/** The last `limit` messages (all when `limit` is undefined). */
export function lastMessages<T>(items: T[], limit: number | undefined): T[] {
  const n = checkHistoryLimit(limit);
  return n === undefined ? items : n === 0 ? [] : items.slice(-n);
}

export function checkHistoryLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isInteger(limit) || limit < 0) throw new ToolwrightConfigError(`historyLimit must be a non-negative integer, got ${limit}`);
  return limit;
}

/**
 * Builds a state object from stored entries. defineProperty, not assignment, so a key named
 * `__proto__` stays plain data instead of replacing the object's prototype.
 */
export function stateFromEntries(entries: Iterable<readonly [string, string]>): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const [k, json] of entries) {
    Object.defineProperty(state, k, { value: JSON.parse(json), enumerable: true, writable: true, configurable: true });
  }
  return state;
}

/** A flat [k1, v1, k2, v2, …] list (Redis HGETALL) as entries. */
export function pairs(flat: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}

export interface SessionRow {
  userId: string | null | undefined;
  state: Record<string, unknown>;
  history: readonly string[];
  userInput: string | null | undefined;
  /** JSON text, or null. */
  pendingRun: string | null | undefined;
  version: number;
}

export function toSessionSnapshot(key: SessionKey, row: SessionRow): SessionSnapshot {
  const snapshot: SessionSnapshot = {
    sessionId: key.sessionId,
    state: row.state,
    history: row.history.map((m) => JSON.parse(m) as Message),
    userInput: row.userInput ?? null,
    pendingRun: row.pendingRun == null ? null : JSON.parse(row.pendingRun),
    version: Number(row.version),
  };
  if (row.userId != null) snapshot.userId = row.userId;
  if (key.tenantId !== undefined) snapshot.tenantId = key.tenantId;
  return snapshot;
}

export function toMemorySnapshot(
  key: MemoryKey,
  row: { entries: readonly string[]; summary: string | null | undefined; version: number },
): MemorySnapshot {
  const snapshot: MemorySnapshot = {
    agentName: key.agentName,
    userId: key.userId,
    entries: row.entries.map((e) => JSON.parse(e) as MemoryEntry),
    summary: row.summary ?? null,
    version: Number(row.version),
  };
  if (key.tenantId !== undefined) snapshot.tenantId = key.tenantId;
  return snapshot;
}

/** `undefined` (not changed) stays undefined; null stays null; anything else becomes JSON text. */
export function jsonOrNull(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  return value === null ? null : JSON.stringify(value);
}

/** Tenants are optional; stores key on '' when absent. */
export function tenantOf(key: { tenantId?: string }): string {
  return key.tenantId ?? '';
}

/** Every backend failure (down, timeout, locked, closed, unwritable) surfaces as one typed error. */
export async function guard<T>(store: string, op: () => Promise<T> | T): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof ToolwrightError) throw err;
    const code = (err as { code?: unknown } | null)?.code;
    // A damaged database is not "unavailable": retrying cannot help.
    if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) {
      throw new StoreCorruptError(store, `${store} store data is corrupt (${code}): restore the database from a backup.`, err);
    }
    throw new StoreUnavailableError(store, err);
  }
}

/** A turn's changes as the text rows the stores write; serialized before any I/O starts. */
export interface EncodedSessionChanges {
  userId: string | undefined;
  set: Array<[string, string]>;
  deleted: string[];
  replaced: string[] | undefined;
  appended: string[];
  userInput: string | null | undefined;
  pendingRun: string | null | undefined;
}

export function encodeSessionChanges(changes: SessionChanges): EncodedSessionChanges {
  return {
    userId: changes.userId,
    set: Object.entries(changes.set).map(([k, v]) => [k, JSON.stringify(v ?? null)]),
    deleted: [...changes.deleted],
    replaced: changes.replacedHistory?.map((m) => JSON.stringify(m)),
    appended: changes.appended.map((m) => JSON.stringify(m)),
    userInput: changes.userInput,
    pendingRun: jsonOrNull(changes.pendingRun),
  };
}

export function encodeMemoryChanges(changes: MemoryChanges): { added: string[]; summary: string | null | undefined } {
  return { added: changes.added.map((e) => JSON.stringify(e)), summary: changes.summary };
}
