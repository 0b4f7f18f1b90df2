import { randomUUID } from 'node:crypto';
import type {
  MemoryChanges,
  MemoryEntry,
  MemoryKey,
  MemorySnapshot,
  SessionChanges,
  SessionKey,
  SessionSnapshot,
} from '../session/snapshots';
import { CachedMemoryIndex } from '../session/cached-memory-index';
import { keptSnapshot } from '../session/kept-memory';
import type { MemoryIndex, MemorySearchResult } from '../session/memory-entry';
import { StoreLimitError } from '../errors/errors';
import { MemoryIdempotencyClaims, type IdempotencyClaims } from '../side-effects/claims';
import { MemoryRateCounters, type RateCounters } from '../side-effects/rate-counters';
import { CheckedRateCounters } from './rate/check-hit';
import type { ListOptions, ListPage, LoadSessionOptions, MemorySummary, SessionStore, SessionSummary, StoreChannels } from './store';
import { checkListOptions, encodeCursor, stringTuple } from './list-page';
import { LocalChannels } from './channels/local-channels';
import { applyMemoryChanges, applySessionChanges, memoryKeyString, sessionKeyString } from './apply-changes';
import { checkId, checkMemoryKey, checkOwner, checkSessionChanges, checkSessionKey, lastMessages } from './snapshot-rows';

/**
 * Keeps sessions and memories in this process, for tests and demos. What a save brings is copied
 * in as JSON (values behave as in a persistent store) and deep-frozen; history messages and
 * memory entries are then shared with loads rather than copied on every load (frozen, so no
 * caller can change what is stored), while state and the paused run, which callers may change
 * in place, are copied out. History and entries are appended in place: a save costs what it
 * brings, not what is stored.
 */
export class InMemoryStore implements SessionStore {
  private readonly sessions = new Map<string, SessionSnapshot>();
  private readonly memories = new Map<string, MemorySnapshot>();
  /** Per session: its generation (new when it is created) and how many messages were ever stored, its `historyMark`. */
  private readonly marks = new Map<string, { gen: string; seq: number }>();
  /**
   * Per memory (its entries array, which a delete drops and a recreation replaces), built on its first
   * search and grown on every save: a snapshot loaded before a delete never searches the memory created after.
   */
  private indexes = new WeakMap<readonly MemoryEntry[], CachedMemoryIndex>();
  /** One process: messages reach this store's own subscribers. */
  readonly channels: StoreChannels = new LocalChannels('in-memory');

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    checkSessionKey(key);
    const s = this.sessions.get(sessionKeyString(key));
    if (!s) return undefined;
    const history = lastMessages(s.history, options.historyLimit);
    const mark = this.marks.get(sessionKeyString(key))!;
    return {
      ...s,
      state: copy(s.state),
      pendingRun: copy(s.pendingRun),
      history: history === s.history ? history.slice() : history,
      historyMark: `${mark.gen}:${mark.seq}`,
    };
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    return this.prepareSession(key, changes)();
  }

  /** One run's session and memory changes: both are checked and copied before either is applied. */
  async saveTurn(key: SessionKey, changes: SessionChanges, memory: { key: MemoryKey; changes: MemoryChanges }): Promise<number> {
    const session = this.prepareSession(key, changes);
    const saveMemory = this.prepareMemory(memory.key, memory.changes);
    const version = session();
    saveMemory();
    return version;
  }

  /** Checks and copies a session save; the returned function applies it (and cannot fail). */
  private prepareSession(key: SessionKey, changes: SessionChanges): () => number {
    checkSessionKey(key);
    checkSessionChanges(changes);
    const k = sessionKeyString(key);
    const c = deepFreeze(
      copyForSave(changes, () => `a session save of ${changes.appended.length} messages and ${Object.keys(changes.set).length} state keys`),
    );
    const current = this.sessions.get(k);
    if (current) checkOwner(key, changes.owner, current.userId);
    return () => {
      // Scalars and state merge as in every store; the history is appended in place below (loads never hand out this array).
      const next = applySessionChanges(current && { ...current, history: [] }, key, { ...c, appended: [], replacedHistory: undefined });
      const history = c.replacedHistory ? c.replacedHistory.slice() : (current?.history ?? []);
      for (const m of c.appended) history.push(m);
      next.history = history;
      this.sessions.set(k, next);
      const mark = current ? this.marks.get(k)! : this.newMark(k);
      mark.seq += (c.replacedHistory?.length ?? 0) + c.appended.length;
      return next.version;
    };
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    this.sessions.delete(sessionKeyString(key));
    this.marks.delete(sessionKeyString(key));
  }

  async claimSession(key: SessionKey, userId: string | null): Promise<string | null> {
    checkSessionKey(key);
    if (userId !== null) checkId('userId', userId);
    const k = sessionKeyString(key);
    const current = this.sessions.get(k);
    if (current) return current.userId ?? null;
    const created = applySessionChanges(
      undefined,
      key,
      userId === null ? { set: {}, deleted: [], appended: [] } : { userId, set: {}, deleted: [], appended: [] },
    );
    this.sessions.set(k, { ...created, version: 0 });
    this.newMark(k);
    return userId;
  }

  private newMark(k: string): { gen: string; seq: number } {
    const mark = { gen: randomUUID(), seq: 0 };
    this.marks.set(k, mark);
    return mark;
  }

  async compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown): Promise<boolean> {
    checkSessionKey(key);
    const k = sessionKeyString(key);
    const current = this.sessions.get(k);
    if (!current || JSON.stringify(current.pendingRun ?? null) !== JSON.stringify(expected ?? null)) return false;
    this.sessions.set(k, { ...current, pendingRun: next === null ? null : copy(next), version: current.version + 1 });
    return true;
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    checkMemoryKey(key);
    const k = memoryKeyString(key);
    const m = this.memories.get(k);
    if (!m) return undefined;
    const index: MemoryIndex = { search: (query, limit) => this.index(m).search(query, limit) };
    const { entries, ...rest } = m;
    return keptSnapshot(rest, entries, index);
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    return this.prepareMemory(key, changes)();
  }

  /** Checks and copies a memory save; the returned function applies it (and cannot fail). */
  private prepareMemory(key: MemoryKey, changes: MemoryChanges): () => number {
    checkMemoryKey(key);
    const k = memoryKeyString(key);
    const c = deepFreeze(copyForSave(changes, () => `a memory save of ${changes.added.length} entries`));
    return () => {
      const current = this.memories.get(k);
      const next = applyMemoryChanges(current && { ...current, entries: [] }, key, { ...c, added: [] });
      const entries = current?.entries ?? [];
      for (const e of c.added) entries.push(e);
      next.entries = entries;
      this.memories.set(k, next);
      this.indexes.get(entries)?.add(c.added);
      return next.version;
    };
  }

  async deleteMemory(key: MemoryKey): Promise<void> {
    this.memories.delete(memoryKeyString(key));
  }

  /** Ranked search over a memory's stored entries, with the scope's cached index. */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    const m = this.memories.get(memoryKeyString(key));
    return m ? this.index(m).search(query, limit) : [];
  }

  /** One page of a tenant's sessions in id order (a scan of the map: this store is for tests and demos). */
  async listSessions(options: ListOptions = {}): Promise<ListPage<SessionSummary>> {
    const o = checkListOptions(options, stringTuple(1));
    const rows = [...this.sessions.values()].filter(
      (s) => (s.tenantId ?? '') === o.tenant && (o.userId === undefined || s.userId === o.userId) && (!o.after || s.sessionId > o.after[0]),
    );
    rows.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
    const items = rows.slice(0, o.limit).map((s) => {
      const summary: SessionSummary = {
        sessionId: s.sessionId,
        version: s.version,
        messages: s.history.length,
        paused: s.pendingRun != null,
      };
      if (s.tenantId !== undefined) summary.tenantId = s.tenantId;
      if (s.userId !== undefined) summary.userId = s.userId;
      return summary;
    });
    return rows.length > o.limit ? { items, next: encodeCursor([items[items.length - 1].sessionId]) } : { items };
  }

  /** One page of a tenant's memories in (agent, user) order. */
  async listMemories(options: ListOptions = {}): Promise<ListPage<MemorySummary>> {
    const o = checkListOptions(options, stringTuple(2));
    const order = (m: MemorySnapshot): [string, string] => [m.agentName, m.userId];
    const before = (a: [string, string], b: [string, string]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
    const rows = [...this.memories.values()].filter(
      (m) =>
        (m.tenantId ?? '') === o.tenant &&
        (o.userId === undefined || m.userId === o.userId) &&
        (!o.after || before(o.after as [string, string], order(m))),
    );
    rows.sort((a, b) => (before(order(a), order(b)) ? -1 : before(order(b), order(a)) ? 1 : 0));
    const items = rows.slice(0, o.limit).map((m) => {
      const summary: MemorySummary = { agentName: m.agentName, userId: m.userId, entries: m.entries.length };
      if (m.tenantId !== undefined) summary.tenantId = m.tenantId;
      return summary;
    });
    const last = items[items.length - 1];
    return rows.length > o.limit ? { items, next: encodeCursor([last.agentName, last.userId]) } : { items };
  }

  private readonly claims = new Map<string, MemoryIdempotencyClaims<unknown>>();

  /** Idempotency claims in this process's memory (one set per namespace), as the other stores keep them in theirs. */
  idempotency<T>(namespace = 'default'): IdempotencyClaims<T> {
    checkId('namespace', namespace);
    let claims = this.claims.get(namespace);
    if (!claims) this.claims.set(namespace, (claims = new MemoryIdempotencyClaims((key) => checkId('idempotencyKey', key))));
    return claims as IdempotencyClaims<T>;
  }

  private readonly rates = new Map<string, RateCounters>();

  /** Fixed-window counters in this process's memory (one MemoryRateCounters per namespace, kept). */
  rateCounters(namespace = 'default'): RateCounters {
    checkId('namespace', namespace);
    let rates = this.rates.get(namespace);
    if (!rates) this.rates.set(namespace, (rates = new CheckedRateCounters(new MemoryRateCounters())));
    return rates;
  }

  async close(): Promise<void> {
    this.sessions.clear();
    this.marks.clear();
    this.memories.clear();
    this.indexes = new WeakMap();
  }

  private index(m: MemorySnapshot): CachedMemoryIndex {
    let index = this.indexes.get(m.entries);
    if (!index) {
      index = new CachedMemoryIndex(m.entries, m.version);
      this.indexes.set(m.entries, index);
    }
    return index;
  }
}

function copy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/** A value too large to serialize is a StoreLimitError saying what the save carried. */
function copyForSave<T>(value: T, saving: () => string): T {
  try {
    return copy(value);
  } catch (err) {
    if (err instanceof RangeError)
      throw new StoreLimitError('in-memory', `${saving()}: a value is larger than JavaScript can serialize`, err);
    throw err;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const k of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}
