import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { CachedMemoryIndex } from '../session/cached-memory-index';
import { growCachedEntries, keptSnapshot, type CachedEntries } from '../session/kept-memory';
import type { MemorySearchResult } from '../session/memory-entry';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';
import { SessionForbiddenError } from '../errors/session-forbidden';
import type { IdempotencyClaims } from '../side-effects/claims';
import { defineClaimScripts, RedisIdempotencyClaims } from './claims/redis-claims';
import { memoryKeyString, sessionKeyString } from './apply-changes';
import type { LoadSessionOptions, SessionStore, StoreChannels } from './store';
import { RedisChannels } from './channels/redis-channels';
import { requirePeer } from '../errors/optional-peer';
import { quietListener } from './driver-errors';
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
  type EncodedMemoryChanges,
  type EncodedSessionChanges,
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

/** Pushes ARGV[from..to] onto a list (or a hash delete) in chunks: Lua's unpack has a stack limit. */
const LUA_BATCH = `
local function batch(cmd, key, from, to)
  local i = from
  while i <= to do
    local j = math.min(i + 999, to)
    redis.call(cmd, key, unpack(ARGV, i, j))
    i = j + 1
  end
end
`;

/**
 * Checks, before anything is written, that each existing key has the type a save writes (a script
 * is atomic but not rolled back: a command failing half-way would leave the writes before it).
 */
const LUA_TYPES = `
local function wrongType(key, want)
  local t = redis.call('TYPE', key).ok
  return t ~= 'none' and t ~= want
end
`;

/**
 * A session save. Keys: meta, state, history. Its ARGV start after `b`: ttlMs, hasUserId, userId,
 * hasUserInput, userInput, hasPendingRun, pendingRun, replace, nSet, nDeleted, nReplaced, nAppended,
 * expected owner ('': any; 'n': anonymous; 'u' .. id), generation (kept only by the save creating
 * the session), then the set pairs, deleted keys, replaced and appended messages. Returns the new
 * version (-1, having written nothing: another owner) and the ARGV index after its own.
 */
const LUA_SAVE_SESSION = `
local function sessionTypesWrong(m, st, h)
  if wrongType(m, 'hash') then return true end
  return redis.call('EXISTS', m) == 1 and (wrongType(st, 'hash') or wrongType(h, 'list'))
end

local function saveSession(m, st, h, b)
  -- A session whose meta is gone (deleted, expired) starts empty, even if a sibling key lingers.
  if redis.call('EXISTS', m) == 0 then
    redis.call('DEL', st, h)
    redis.call('HSET', m, 'gen', ARGV[b + 14])
  elseif ARGV[b + 13] ~= '' then
    -- The owner the writer loaded ('u' .. id, or 'n' for anonymous): another owner now means no write.
    local owner = redis.call('HGET', m, 'userId')
    if (owner and ('u' .. owner) or 'n') ~= ARGV[b + 13] then return -1, 0 end
  end
  local nSet, nDel, nRep, nApp = tonumber(ARGV[b + 9]), tonumber(ARGV[b + 10]), tonumber(ARGV[b + 11]), tonumber(ARGV[b + 12])
  -- Messages ever stored (a replace does not lower it): with gen, the session's historyMark.
  local seq = tonumber(redis.call('HGET', m, 'seq') or redis.call('LLEN', h))
  redis.call('HSET', m, 'seq', seq + nRep + nApp)
  local p = b + 15
  -- Deletes first, then sets, as every store merges: a key both deleted and set is kept.
  batch('HDEL', st, p + 2 * nSet, p + 2 * nSet + nDel - 1)
  for i = 0, nSet - 1 do redis.call('HSET', st, ARGV[p + 2 * i], ARGV[p + 2 * i + 1]) end
  p = p + 2 * nSet + nDel
  if ARGV[b + 8] == '1' then redis.call('DEL', h) end
  batch('RPUSH', h, p, p + nRep + nApp - 1)
  p = p + nRep + nApp
  if ARGV[b + 2] == '1' then redis.call('HSET', m, 'userId', ARGV[b + 3]) end
  if ARGV[b + 4] == '1' then redis.call('HSET', m, 'userInput', ARGV[b + 5]) end
  if ARGV[b + 6] == '1' then redis.call('HSET', m, 'pendingRun', ARGV[b + 7]) end
  local version = redis.call('HINCRBY', m, 'version', 1)
  local ttl = tonumber(ARGV[b + 1])
  if ttl > 0 then
    for _, k in ipairs({m, st, h}) do redis.call('PEXPIRE', k, ttl) end
  end
  return version, p
end
`;

/**
 * A memory save. Keys: meta, entries. Its ARGV start after `b`: hasSummary, summary, generation,
 * nEntries, then the entries. The generation is kept from the save that creates the memory
 * (HSETNX), so a memory deleted and created again has a new one. Returns the new version.
 */
const LUA_SAVE_MEMORY = `
local function memoryTypesWrong(m, e)
  return wrongType(m, 'hash') or wrongType(e, 'list')
end

local function saveMemory(m, e, b)
  redis.call('HSETNX', m, 'gen', ARGV[b + 3])
  local n = tonumber(ARGV[b + 4])
  batch('RPUSH', e, b + 5, b + 4 + n)
  if ARGV[b + 1] == '1' then redis.call('HSET', m, 'summary', ARGV[b + 2]) end
  return redis.call('HINCRBY', m, 'version', 1)
end
`;

const WRONG_TYPE = `return redis.error_reply('WRONGTYPE a key of this save holds another kind of value; nothing was written')`;

/** KEYS: session meta, state, history. ARGV: the session save's. One script = one atomic merge. */
const SAVE_SESSION = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_SESSION}
if sessionTypesWrong(KEYS[1], KEYS[2], KEYS[3]) then ${WRONG_TYPE} end
return (saveSession(KEYS[1], KEYS[2], KEYS[3], 0))
`;

/**
 * One run's save: KEYS: session meta, state, history, memory meta, entries. ARGV: the session
 * save's, then the memory save's. Both are written or neither (nothing is written before every
 * check passed). Its keys span two hash slots: on Redis Cluster it needs the session and the
 * memory on one node (see docs/persistence.md).
 */
const SAVE_TURN = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_SESSION}${LUA_SAVE_MEMORY}
if sessionTypesWrong(KEYS[1], KEYS[2], KEYS[3]) or memoryTypesWrong(KEYS[4], KEYS[5]) then ${WRONG_TYPE} end
local version, p = saveSession(KEYS[1], KEYS[2], KEYS[3], 0)
if version < 0 then return version end
saveMemory(KEYS[4], KEYS[5], p - 1)
return version
`;

/** KEYS: meta, state, history. ARGV: history limit (-1: all). Returns {meta, state, history, history length} or nil. */
const LOAD_SESSION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local limit = tonumber(ARGV[1])
local history = {}
if limit < 0 then history = redis.call('LRANGE', KEYS[3], 0, -1)
elseif limit > 0 then history = redis.call('LRANGE', KEYS[3], -limit, -1) end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), history, redis.call('LLEN', KEYS[3])}
`;

/** KEYS: memory meta, entries. ARGV: the memory save's. */
const SAVE_MEMORY = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_MEMORY}
if memoryTypesWrong(KEYS[1], KEYS[2]) then ${WRONG_TYPE} end
return saveMemory(KEYS[1], KEYS[2], 0)
`;

/**
 * KEYS: meta, entries. ARGV: the number of entries the caller has cached, and their generation.
 * Returns {meta, entries from there, from} or nil; from 0 (the whole memory) when the memory is
 * of another generation (deleted and created again since), or has none (saved before generations).
 */
const LOAD_MEMORY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local from = tonumber(ARGV[1] or '0')
local gen = redis.call('HGET', KEYS[1], 'gen')
if not gen or gen ~= ARGV[2] or redis.call('LLEN', KEYS[2]) < from then from = 0 end
return {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], from, -1), from}
`;

/**
 * KEYS: meta, state, history. ARGV: ttlMs, hasUserId, userId, generation. Creates the session owned by the
 * claimant when its meta is missing; returns the owner afterwards: 'u' .. userId, or 'n' (anonymous).
 */
const CLAIM_SESSION = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  local owner = redis.call('HGET', KEYS[1], 'userId')
  if owner then return 'u' .. owner end
  return 'n'
end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'version', 0, 'gen', ARGV[4])
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'userId', ARGV[3]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if ARGV[2] == '1' then return 'u' .. ARGV[3] end
return 'n'
`;

/** KEYS: meta. ARGV: expected pendingRun JSON, next JSON. 1 when swapped. */
const SWAP_PENDING_RUN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[1], 'pendingRun') or 'null'
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'pendingRun', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 1
`;

/** A memory scope as this process last loaded it: entries are only ever appended, so the next load reads only the tail. */
type CachedMemory = CachedEntries;

/** Redis's smallest and default `proto-max-bulk-len` (bytes). */
const MIN_BULK_LIMIT = 1024 * 1024;
const DEFAULT_BULK_LIMIT = 512 * 1024 * 1024;

type ScriptFn = (...args: Array<string | number | readonly string[]>) => Promise<unknown>;
interface ScriptedClient {
  toolwrightSaveSession: ScriptFn;
  toolwrightLoadSession: ScriptFn;
  toolwrightSaveMemory: ScriptFn;
  toolwrightSaveTurn: ScriptFn;
  toolwrightLoadMemory: ScriptFn;
  toolwrightClaimSession: ScriptFn;
  toolwrightSwapPendingRun: ScriptFn;
}

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
      // connection), which kept the process alive for its default 2 s after close().
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
    this.client.defineCommand('toolwrightSaveSession', { numberOfKeys: 3, lua: SAVE_SESSION });
    this.client.defineCommand('toolwrightLoadSession', { numberOfKeys: 3, lua: LOAD_SESSION });
    this.client.defineCommand('toolwrightSaveMemory', { numberOfKeys: 2, lua: SAVE_MEMORY });
    this.client.defineCommand('toolwrightSaveTurn', { numberOfKeys: 5, lua: SAVE_TURN });
    this.client.defineCommand('toolwrightLoadMemory', { numberOfKeys: 2, lua: LOAD_MEMORY });
    this.client.defineCommand('toolwrightClaimSession', { numberOfKeys: 3, lua: CLAIM_SESSION });
    this.client.defineCommand('toolwrightSwapPendingRun', { numberOfKeys: 1, lua: SWAP_PENDING_RUN });
    defineClaimScripts(this.client);
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
    this.memoryCache.delete(scope);
    // A memory saved before generations existed is read whole until its next save gives it one.
    if (cached.generation) this.memoryCache.set(scope, cached);
    while (this.memoryCache.size > this.memoryCacheSize) this.memoryCache.delete(this.memoryCache.keys().next().value as string);
    return { cached, snapshot: tail, count };
  }

  private indexOf(cached: CachedMemory): CachedMemoryIndex {
    return (cached.index ??= new CachedMemoryIndex(cached.entries, 0));
  }

  private pubsub?: RedisChannels;

  /** PUBLISH on the store's connection, SUBSCRIBE on one more while anything is subscribed (see StoreChannels). */
  get channels(): StoreChannels {
    return (this.pubsub ??= new RedisChannels(this.client, this.prefix));
  }

  /** Closes the connection this store created; a client passed in stays open (its owner closes it). */
  /**
   * Idempotency claims kept in this store's Redis, for `new IdempotencyLedger(store.idempotency('refunds'))`:
   * processes sharing the server run each key's side effect once.
   */
  idempotency<T>(namespace = 'default'): IdempotencyClaims<T> {
    checkId('namespace', namespace);
    return new RedisIdempotencyClaims<T>(this.client, `${this.prefix}idempotency:{${namespace}}:`);
  }

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

/** A session save's fixed arguments (see LUA_SAVE_SESSION). */
function sessionArgs(changes: SessionChanges, c: EncodedSessionChanges, ttlMs: number): Array<string | number> {
  return [
    ttlMs,
    c.userId !== undefined ? '1' : '0',
    c.userId ?? '',
    c.userInput !== undefined ? '1' : '0',
    c.userInput ?? 'null',
    c.pendingRun !== undefined ? '1' : '0',
    c.pendingRun ?? 'null',
    c.replaced ? '1' : '0',
    c.set.length,
    c.deleted.length,
    c.replaced?.length ?? 0,
    c.appended.length,
    changes.owner === undefined ? '' : changes.owner === null ? 'n' : `u${changes.owner}`,
    randomUUID(),
  ];
}

/** A session save's rows, one array argument (ioredis flattens it): spreading 100k+ values into a call overflows the stack. */
function sessionRows(c: EncodedSessionChanges): string[] {
  return [...c.set.flat(), ...c.deleted, ...(c.replaced ?? []), ...c.appended];
}

/** A memory save's fixed arguments (see LUA_SAVE_MEMORY): a new generation id on every save, kept only by the one creating the memory. */
function memoryArgs(c: EncodedMemoryChanges): string[] {
  return [c.summary !== undefined ? '1' : '0', c.summary ?? 'null', randomUUID(), String(c.added.length)];
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
