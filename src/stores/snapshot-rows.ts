import {
  InvalidIdError,
  StoreCorruptError,
  StoreLimitError,
  StoreUnavailableError,
  ToolwrightError,
  ToolwrightConfigError,
} from '../errors/errors';
import { SessionForbiddenError } from '../errors/session-forbidden';
import type { Message } from '../session/message';
import { checkStateKey, keyProblem, MAX_KEY_BYTES } from '../session/stored-key';
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
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

export interface SessionRow {
  userId: string | null | undefined;
  state: Record<string, unknown>;
  history: readonly string[];
  /** The history already parsed (a store that parses it in chunks); `history` is then ignored. */
  messages?: Message[];
  /** JSON text (a string), or null. */
  userInput: string | null | undefined;
  /** JSON text, or null. */
  pendingRun: string | null | undefined;
  version: number;
  historyMark?: string;
}

export function toSessionSnapshot(key: SessionKey, row: SessionRow): SessionSnapshot {
  const snapshot: SessionSnapshot = {
    sessionId: key.sessionId,
    state: row.state,
    history: row.messages ?? row.history.map((m) => JSON.parse(m) as Message),
    userInput: row.userInput == null ? null : (JSON.parse(row.userInput) as string | null),
    pendingRun: row.pendingRun == null ? null : JSON.parse(row.pendingRun),
    version: Number(row.version),
  };
  if (row.userId != null) snapshot.userId = row.userId;
  if (key.tenantId !== undefined) snapshot.tenantId = key.tenantId;
  if (row.historyMark !== undefined) snapshot.historyMark = row.historyMark;
  return snapshot;
}

export function toMemorySnapshot(
  key: MemoryKey,
  /** `summary`: JSON text (a string), or null. */
  row: { entries: readonly string[]; summary: string | null | undefined; version: number },
): MemorySnapshot {
  const snapshot: MemorySnapshot = {
    agentName: key.agentName,
    userId: key.userId,
    entries: row.entries.map((e) => JSON.parse(e) as MemoryEntry),
    summary: row.summary == null ? null : (JSON.parse(row.summary) as string | null),
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

/**
 * Every backend failure (down, timeout, locked, closed, unwritable) surfaces as one typed error;
 * a save the backend refuses for its size as StoreLimitError saying what was too large.
 */
/**
 * A save that names the owner it loaded the session with is refused when the stored session has
 * another owner now (deleted and claimed by someone else between the load and the save).
 */
export function checkOwner(key: SessionKey, expected: string | null | undefined, stored: string | null | undefined): void {
  if (expected !== undefined && (stored ?? null) !== expected) throw new SessionForbiddenError(key.sessionId);
}

export async function guard<T>(store: string, op: () => Promise<T> | T, saving?: () => string): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof ToolwrightError) throw err;
    if (saving && tooLarge(err)) throw new StoreLimitError(store, saving(), err);
    const code = (err as { code?: unknown } | null)?.code;
    // A damaged database is not "unavailable": retrying cannot help.
    if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) {
      throw new StoreCorruptError(store, `${store} store data is corrupt (${code}): restore the database from a backup.`, err);
    }
    throw new StoreUnavailableError(store, err);
  }
}

/** Size refusals: JavaScript strings/stack, SQLITE_TOOBIG, PostgreSQL program_limit_exceeded/alloc, Redis bulk/multibulk limits. */
function tooLarge(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (err instanceof RangeError) return true;
  if (e?.code === 'SQLITE_TOOBIG' || e?.code === '54000') return true;
  return /invalid (multi)?bulk length|string exceeds maximum|too large|too big|invalid memory alloc request size|out of memory|Invalid string length/i.test(
    typeof e?.message === 'string' ? e.message : '',
  );
}

/** What a save carries, for StoreLimitError: counts and the largest item. */
export function describeSave(kind: string, groups: Record<string, readonly string[] | undefined>): string {
  const parts: string[] = [];
  for (const [name, rows] of Object.entries(groups)) {
    if (!rows?.length) continue;
    let largest = 0;
    for (const r of rows) if (r.length > largest) largest = r.length;
    parts.push(`${rows.length.toLocaleString('en-US')} ${name} (largest ${bytes(largest)})`);
  }
  return `${kind} of ${parts.join(', ') || 'nothing'}`;
}

const bytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

/** Extra time a save of this many rows and characters may take beyond a store's usual timeout (ms). */
export function saveAllowanceMs(rows: number, chars: number): number {
  return Math.ceil(rows / 10 + chars / 10_000);
}

export function encodedSize(rows: Iterable<string>): { rows: number; chars: number } {
  let n = 0;
  let chars = 0;
  for (const r of rows) {
    n++;
    chars += r.length;
  }
  return { rows: n, chars };
}

/**
 * A turn's changes as the text rows the stores write; serialized before any I/O starts. Every
 * value is JSON text, user input too: JSON escapes NUL and lone surrogates, which stores holding
 * raw UTF-8 text refuse (PostgreSQL) or turn into U+FFFD.
 */
export interface EncodedSessionChanges {
  userId: string | undefined;
  set: Array<[string, string]>;
  deleted: string[];
  replaced: string[] | undefined;
  appended: string[];
  /** JSON text; null clears it. */
  userInput: string | null | undefined;
  pendingRun: string | null | undefined;
}

export function encodeSessionChanges(changes: SessionChanges, store = 'session'): EncodedSessionChanges {
  try {
    return encodeSession(changes);
  } catch (err) {
    if (err instanceof RangeError)
      throw new StoreLimitError(
        store,
        `a session save of ${changes.appended.length + (changes.replacedHistory?.length ?? 0)} messages and ${Object.keys(changes.set).length} state keys: a value is larger than JavaScript can serialize`,
        err,
      );
    throw err;
  }
}

function encodeSession(changes: SessionChanges): EncodedSessionChanges {
  return {
    userId: changes.userId,
    set: Object.entries(changes.set).map(([k, v]) => [k, JSON.stringify(v ?? null)]),
    deleted: [...changes.deleted],
    replaced: changes.replacedHistory?.map((m) => JSON.stringify(m)),
    appended: changes.appended.map((m) => JSON.stringify(m)),
    userInput: jsonOrNull(changes.userInput),
    pendingRun: jsonOrNull(changes.pendingRun),
  };
}

/** A memory save's entries and summary as the JSON text rows the stores write (see EncodedSessionChanges). */
export interface EncodedMemoryChanges {
  added: string[];
  /** JSON text; null clears it. */
  summary: string | null | undefined;
}

export function encodeMemoryChanges(changes: MemoryChanges, store = 'memory'): EncodedMemoryChanges {
  try {
    return { added: changes.added.map((e) => JSON.stringify(e)), summary: jsonOrNull(changes.summary) };
  } catch (err) {
    if (err instanceof RangeError)
      throw new StoreLimitError(
        store,
        `a memory save of ${changes.added.length} entries: an entry is larger than JavaScript can serialize`,
        err,
      );
    throw err;
  }
}

/** What a session save carries, for StoreLimitError. */
export function describeSessionSave(c: EncodedSessionChanges): string {
  return describeSave('a session save', { messages: [...(c.replaced ?? []), ...c.appended], 'state values': c.set.map(([, v]) => v) });
}

/** The longest id (in UTF-8 bytes) every store keeps and indexes (see MAX_KEY_BYTES). */
export const MAX_ID_BYTES = MAX_KEY_BYTES;

/**
 * Throws InvalidIdError for an id a store cannot keep exactly (see keyProblem); '' is the stores'
 * "no tenant", so an empty id is refused too.
 */
export function checkId(field: string, value: unknown): void {
  if (typeof value !== 'string') throw new InvalidIdError(field, `expected a string, got ${value === null ? 'null' : typeof value}`);
  if (value.length === 0) throw new InvalidIdError(field, 'it is empty');
  const problem = keyProblem(value);
  if (problem) throw new InvalidIdError(field, problem);
}

/**
 * The keys a session save writes or deletes, checked before any I/O by every store: the owner it
 * sets and each state key (set or deleted), so no store merges, refuses or mangles one of them.
 */
export function checkSessionChanges(changes: SessionChanges): void {
  if (changes.userId !== undefined) checkId('userId', changes.userId);
  for (const k of Object.keys(changes.set)) checkStateKey(k);
  for (const k of changes.deleted) checkStateKey(k, true);
}

export function checkSessionKey(key: SessionKey): void {
  checkId('sessionId', key.sessionId);
  if (key.tenantId !== undefined) checkId('tenantId', key.tenantId);
}

export function checkMemoryKey(key: MemoryKey): void {
  checkId('agentName', key.agentName);
  checkId('userId', key.userId);
  if (key.tenantId !== undefined) checkId('tenantId', key.tenantId);
}
