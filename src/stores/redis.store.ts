import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { CachedMemoryIndex } from '../session/cached-memory-index';
import { growCachedEntries, keptSnapshot, setRecent, type CachedEntries } from '../session/kept-memory';
import type { MemorySearchResult } from '../session/memory-entry';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';
import { SessionForbiddenError } from '../errors/session-forbidden';
import type { IdempotencyClaims } from '../side-effects/claims';
import { defineClaimScripts, RedisIdempotencyClaims } from './claims/redis-claims';
import type { RateCounters } from '../side-effects/rate-counters';
import { defineRateScripts, RedisRateCounters } from './rate/redis-rate';
import { memoryKeyString, sessionKeyString } from './apply-changes';
import type { ListOptions, LoadSessionOptions, SessionStore, StoreChannels } from './store';
import { listMemoryKeys, listSessionKeys } from './redis/list-keys';
import { RedisChannels } from './channels/redis-channels';
import { requirePeer } from '../errors/optional-peer';
import { quietListener } from './driver-errors';
import {
  defineStoreScripts,
  memoryArgs,
  SAVE_MEMORY,
  SAVE_SESSION,
  SAVE_TURN,
  sessionArgs,
  sessionRows,
  type ScriptedClient,
} from './redis/scripts';
import {
  checkHistoryLimit,
  checkId,
  checkMemoryKey,
  checkSessionChanges,
  checkSessionKey,
  describeSave,
  describeSessionSave,
  encodedSize,
  saveAllowanceMs,
  encodeMemoryChanges,
  encodeSessionChanges,
  guard,
  pairs,
  stateFromEntries,
  toMemorySnapshot,
  toSessionSnapshot,
} from './snapshot-rows';

/**
 * The part of an `ioredis` client the store needs to accept one. Declared structurally so that
 * toolwright's types need no ioredis install; a `Redis` instance fits.
 */
export interface RedisClientLike {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
  quit(): Promise<unknown>;
  /** A `Redis` has both: the store listens for connection errors (see `onError`) and stops on close. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

export interface RedisStoreOptions {
  /** A client you own (not closed by `close()`); otherwise one is created from url/host/port. */
  client?: RedisClientLike;
  url?: string;
  host?: string;
  port?: number;
  keyPrefix?: string;
  /** Every key of a session expires this long after its last save. Memories never expire. */
  sessionTtlSeconds?: number;
  /** A command that gets no answer in this time fails with StoreUnavailableError. Default 2000. */
  commandTimeoutMs?: number;
  /** Memory scopes whose entries and search index this process keeps between loads (least recently used dropped). Default 256. */
  memoryCacheSize?: number;
  /**
   * Called with each connection error ioredis reports (a lost connection, every failed reconnect
   * while the server is down); calls it affects reject with StoreUnavailableError. Default: ignored.
   */
  onError?: (error: unknown) => void;
}

/** A memory scope as this process last loaded it: entries are only ever appended, so the next load reads only the tail. */
type CachedMemory = CachedEntries;

/** Redis's smallest and default `proto-max-bulk-len` (bytes). */
const MIN_BULK_LIMIT = 1024 * 1024;
const DEFAULT_BULK_LIMIT = 512 * 1024 * 1024;

/**
 * Sessions in Redis, for many app instances sharing them: per session a meta hash (userId,
 * userInput, pendingRun, version), a state hash (key → JSON) and a history list (JSON per
 * message). Each save is one Lua script, so it applies atomically as a merge and concurrent
 * turns from any number of processes lose nothing. Keys of one session share a hash tag
 * (`{…}`), so the scripts also work on Redis Cluster.
 */
export class RedisStore implements SessionStore {
  private readonly client: Redis;
  private readonly owned: boolean;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly memoryCache: Map<string, CachedMemory>;
  private readonly memoryCacheSize: number;
  private readonly commandTimeoutMs: number;
  private bulkLimit?: Promise<number>;
  private readonly clientError: (error: Error) => void;

  constructor(options: RedisStoreOptions = {}) {
    this.memoryCache = new Map();
    this.memoryCacheSize = options.memoryCacheSize ?? 256;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2000;
    this.prefix = options.keyPrefix ?? 'toolwright:';
    this.ttlMs = options.sessionTtlSeconds ? Math.round(options.sessionTtlSeconds * 1000) : 0;
    this.owned = !options.client;
    // Fail fast rather than queue forever: with maxRetriesPerRequest 0 a command waiting for a
    // (re)connection fails at the next failed attempt, and attempts are at most 500 ms apart.
    // A command sent but not answered is never replayed after a reconnect (it may have run).
    const failFast = {
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 500),
      // ioredis arms this timer on disconnect() even when the socket is already closed (a refused
      // connection): at its default 2 s it keeps the process alive after close().
      disconnectTimeout: 200,
    };
    this.client =
      (options.client as Redis | undefined) ??
      (options.url
        ? new (ioredis())(options.url, failFast)
        : new (ioredis())({ host: options.host ?? '127.0.0.1', port: options.port ?? 6379, ...failFast }));
    // Errors reach callers as StoreUnavailableError; without a listener ioredis logs each one to the
    // console ("Unhandled error event"): listened to on a client passed in too (beside the app's own), until close.
    this.clientError = quietListener(options.onError);
    (this.client as RedisClientLike).on?.('error', this.clientError);
    defineStoreScripts(this.client);
    defineClaimScripts(this.client);
    defineRateScripts(this.client);
  }

  /** The keys of one session: meta, state, history. */
  sessionKeys(key: SessionKey): [string, string, string] {
    const base = `${this.prefix}session:{${sessionKeyString(key)}}`;
    return [`${base}:meta`, `${base}:state`, `${base}:history`];
  }

  private memoryKeys(key: MemoryKey): [string, string] {
    const base = `${this.prefix}memory:{${memoryKeyString(key)}}`;
    return [`${base}:meta`, `${base}:entries`];
  }

  private get scripts(): ScriptedClient {
    return this.client as unknown as ScriptedClient;
  }

  async loadSession(key: SessionKey, options: LoadSessionOptions = {}): Promise<SessionSnapshot | undefined> {
    checkSessionKey(key);
    const limit = checkHistoryLimit(options.historyLimit);
    const reply = (await guard('redis', () => this.scripts.toolwrightLoadSession(...this.sessionKeys(key), limit ?? -1))) as
      [string[], string[], string[], number] | null;
    if (!reply) return undefined;
    const meta = Object.fromEntries(pairs(reply[0])) as Partial<Record<string, string>>;
    return toSessionSnapshot(key, {
      userId: meta.userId,
      state: stateFromEntries(pairs(reply[1])),
      history: reply[2],
      userInput: meta.userInput,
      pendingRun: meta.pendingRun,
      version: Number(meta.version ?? 0),
      // A session stored before generations and message counts has neither until its next save.
      historyMark: `${meta.gen ?? ''}:${meta.seq ?? reply[3]}`,
    });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    checkSessionKey(key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'redis');
    const version = Number(
      await guard(
        'redis',
        () =>
          this.runScript(
            'toolwrightSaveSession',
            SAVE_SESSION,
            3,
            [...this.sessionKeys(key), ...sessionArgs(changes, c, this.ttlMs)],
            sessionRows(c),
          ),
        () => describeSessionSave(c),
      ),
    );
    if (version < 0) throw new SessionForbiddenError(key.sessionId);
    return version;
  }

  /** One run's session and memory changes in one script: both are written or neither. */
  async saveTurn(key: SessionKey, changes: SessionChanges, memory: { key: MemoryKey; changes: MemoryChanges }): Promise<number> {
    checkSessionKey(key);
    checkMemoryKey(memory.key);
    checkSessionChanges(changes);
    const c = encodeSessionChanges(changes, 'redis');
    const m = encodeMemoryChanges(memory.changes, 'redis');
    const keys = [...this.sessionKeys(key), ...this.memoryKeys(memory.key)];
    const rows = [...sessionRows(c), ...memoryArgs(m), ...m.added];
    const version = Number(
      await guard(
        'redis',
        () => this.runScript('toolwrightSaveTurn', SAVE_TURN, 5, [...keys, ...sessionArgs(changes, c, this.ttlMs)], rows),
        () => `${describeSessionSave(c)} with ${describeSave('a memory save', { entries: m.added })}`,
      ),
    );
    if (version < 0) throw new SessionForbiddenError(key.sessionId);
    return version;
  }

  async deleteSession(key: SessionKey): Promise<void> {
    checkSessionKey(key);
    await guard('redis', () => this.client.del(...this.sessionKeys(key)));
  }

  async claimSession(key: SessionKey, userId: string | null): Promise<string | null> {
    checkSessionKey(key);
    if (userId !== null) checkId('userId', userId);
    const owner = (await guard('redis', () =>
      this.scripts.toolwrightClaimSession(...this.sessionKeys(key), this.ttlMs, userId === null ? '0' : '1', userId ?? '', randomUUID()),
    )) as string;
    return owner === 'n' ? null : owner.slice(1);
  }

  async compareAndSetPendingRun(key: SessionKey, expected: unknown, next: unknown): Promise<boolean> {
    checkSessionKey(key);
    const [meta] = this.sessionKeys(key);
    const args = [meta, JSON.stringify(expected ?? null), JSON.stringify(next ?? null)];
    return Number(await guard('redis', () => this.scripts.toolwrightSwapPendingRun(...args))) === 1;
  }

  async deleteMemory(key: MemoryKey): Promise<void> {
    checkMemoryKey(key);
    this.memoryCache.delete(memoryKeyString(key));
    await guard('redis', () => this.client.del(...this.memoryKeys(key)));
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    checkMemoryKey(key);
    const loaded = await this.loadCachedMemory(key);
    if (!loaded) return undefined;
    const { cached, snapshot, count } = loaded;
    const { entries: _tail, ...rest } = snapshot;
    return keptSnapshot(rest, cached.entries, { search: (query, limit) => this.indexOf(cached).search(query, limit) }, count);
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    checkMemoryKey(key);
    const c = encodeMemoryChanges(changes, 'redis');
    const args = [...this.memoryKeys(key), ...memoryArgs(c)];
    return Number(
      await guard(
        'redis',
        () => this.runScript('toolwrightSaveMemory', SAVE_MEMORY, 2, args, c.added),
        () => describeSave('a memory save', { entries: c.added }),
      ),
    );
  }

  /**
   * Redis refuses any one value over `proto-max-bulk-len` and then drops the connection, so whether
   * the caller sees the refusal or a closed connection is a race. Values that could be over the
   * smallest allowed limit (1 MB) are measured against the server's limit before anything is sent.
   */
  private async checkBulkLimit(args: ReadonlyArray<string | number>, rows: readonly string[]): Promise<void> {
    const suspect = (v: unknown): v is string => typeof v === 'string' && v.length * 3 > MIN_BULK_LIMIT;
    if (!args.some(suspect) && !rows.some(suspect)) return;
    this.bulkLimit ??= this.client.config('GET', 'proto-max-bulk-len').then(
      (reply) => Number(reply[1]) || DEFAULT_BULK_LIMIT,
      () => DEFAULT_BULK_LIMIT, // CONFIG may be disabled (managed Redis): assume the default
    );
    const limit = await this.bulkLimit;
    for (const v of [...args, ...rows]) {
      if (suspect(v) && Buffer.byteLength(v, 'utf8') > limit)
        throw new RangeError(`a value is too large for Redis (proto-max-bulk-len ${limit} bytes)`);
    }
  }

  /**
   * Runs a save script with its rows as one array argument (ioredis flattens it; spreading 100k+
   * values into a call overflows the stack). A large save gets a command timeout grown with its
   * size, so it is not reported as a store that is down.
   */
  private async runScript(
    name: keyof ScriptedClient,
    lua: string,
    numberOfKeys: number,
    args: Array<string | number>,
    rows: readonly string[],
  ): Promise<unknown> {
    await this.checkBulkLimit(args, rows);
    const size = encodedSize(rows);
    const extra = saveAllowanceMs(size.rows, size.chars);
    if (extra < 200) return this.scripts[name](...args, rows);
    const command = new (ioredisCommand())('eval', [lua, numberOfKeys, ...args, rows as string[]], { replyEncoding: 'utf8' });
    command.setTimeout(this.commandTimeoutMs + extra); // set first: ioredis then keeps it rather than its default
    return this.client.sendCommand(command);
  }

  /** Ranked search over a memory's entries with the scope's index, cached in this process and grown from the stored list's tail. */
  async searchMemory(key: MemoryKey, query: string, limit = 10): Promise<MemorySearchResult[]> {
    const loaded = await this.loadCachedMemory(key);
    return loaded ? this.indexOf(loaded.cached).search(query, limit) : [];
  }

  /**
   * Reads only the entries this process has not seen yet of the memory's current generation (the
   * whole memory when another process deleted and created it again); the cache holds frozen
   * entries, shared by loads.
   */
  private async loadCachedMemory(key: MemoryKey): Promise<{ cached: CachedMemory; snapshot: MemorySnapshot; count: number } | undefined> {
    const scope = memoryKeyString(key);
    const known = this.memoryCache.get(scope);
    const reply = (await guard('redis', () =>
      this.scripts.toolwrightLoadMemory(...this.memoryKeys(key), known?.entries.length ?? 0, known?.generation ?? ''),
    )) as [string[], string[], number] | null;
    if (!reply) {
      this.memoryCache.delete(scope);
      return undefined;
    }
    const meta = Object.fromEntries(pairs(reply[0])) as Partial<Record<string, string>>;
    const tail = toMemorySnapshot(key, {
      entries: reply[1],
      summary: meta.summary,
      version: Number(meta.version ?? 0),
    });
    for (const e of tail.entries) deepFreeze(e);
    const { cached, count } = growCachedEntries(known, meta.gen ?? '', Number(reply[2]), tail.entries);
    // A memory saved before generations existed is read whole until its next save gives it one.
    if (cached.generation) setRecent(this.memoryCache, scope, cached, this.memoryCacheSize);
    else this.memoryCache.delete(scope);
    return { cached, snapshot: tail, count };
  }

  private indexOf(cached: CachedMemory): CachedMemoryIndex {
    return (cached.index ??= new CachedMemoryIndex(cached.entries, 0));
  }

  listSessions(options: ListOptions = {}) {
    return listSessionKeys(this.client, this.prefix, (k) => this.sessionKeys(k), options);
  }
  listMemories(options: ListOptions = {}) {
    return listMemoryKeys(this.client, this.prefix, (k) => this.memoryKeys(k), options);
  }
  private pubsub?: RedisChannels;

  /** PUBLISH on the store's connection, SUBSCRIBE on one more while anything is subscribed (see StoreChannels). */
  get channels(): StoreChannels {
    return (this.pubsub ??= new RedisChannels(this.client, this.prefix));
  }

  /**
   * Idempotency claims kept in this store's Redis, for `new IdempotencyLedger(store.idempotency('refunds'))`:
   * processes sharing the server run each key's side effect once.
   */
  idempotency<T>(namespace = 'default'): IdempotencyClaims<T> {
    checkId('namespace', namespace);
    return new RedisIdempotencyClaims<T>(this.client, `${this.prefix}idempotency:{${namespace}}:`);
  }

  /** Fixed-window counters kept in this store's Redis, by its clock (see RedisRateCounters). */
  rateCounters(namespace = 'default'): RateCounters {
    checkId('namespace', namespace);
    return new RedisRateCounters(this.client, `${this.prefix}rate:{${namespace}}:`);
  }

  /** Closes the connection this store created; a client passed in stays open (its owner closes it). */
  async close(): Promise<void> {
    await this.pubsub?.close();
    // The app's client is the app's again: only this store's listener goes.
    if (!this.owned) {
      (this.client as RedisClientLike).off?.('error', this.clientError);
      return;
    }
    // QUIT needs a live connection; otherwise stop reconnecting at once.
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client.disconnect());
    else this.client.disconnect();
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const k of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}

function ioredisCommand(): typeof import('ioredis').Command {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('ioredis').Command;
}

/** ioredis is an optional peer dependency: loaded only when a RedisStore makes its own client. */
function ioredis(): typeof Redis {
  return requirePeer('ioredis', 'npm install ioredis@6', 'RedisStore without a client');
}
