import type Redis from 'ioredis';
import type { MemoryChanges, MemoryKey, MemorySnapshot, SessionChanges, SessionKey, SessionSnapshot } from '../session/snapshots';
import { memoryKeyString, sessionKeyString } from './apply-changes';
import type { LoadSessionOptions, SessionStore } from './store';
import { requirePeer } from '../errors/optional-peer';
import {
  checkHistoryLimit,
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
 * KEYS: meta, state, history. ARGV: ttlMs, hasUserId, userId, hasUserInput, userInput,
 * hasPendingRun, pendingRun, replace, nSet, nDeleted, nReplaced, nAppended, then the set pairs,
 * deleted keys, replaced and appended messages. One script = one atomic merge.
 */
const SAVE_SESSION = `${LUA_BATCH}
-- A session whose meta is gone (deleted, expired) starts empty, even if a sibling key lingers.
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('DEL', KEYS[2], KEYS[3]) end
local nSet, nDel, nRep, nApp = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local p = 13
for i = 0, nSet - 1 do redis.call('HSET', KEYS[2], ARGV[p + 2 * i], ARGV[p + 2 * i + 1]) end
p = p + 2 * nSet
batch('HDEL', KEYS[2], p, p + nDel - 1)
p = p + nDel
if ARGV[8] == '1' then redis.call('DEL', KEYS[3]) end
batch('RPUSH', KEYS[3], p, p + nRep + nApp - 1)
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'userId', ARGV[3]) end
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'userInput', ARGV[5]) end
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'pendingRun', ARGV[7]) end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
local ttl = tonumber(ARGV[1])
if ttl > 0 then
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
return version
`;

/** KEYS: meta, state, history. ARGV: history limit (-1: all). Returns {meta, state, history} or nil. */
const LOAD_SESSION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local limit = tonumber(ARGV[1])
local history = {}
if limit < 0 then history = redis.call('LRANGE', KEYS[3], 0, -1)
elseif limit > 0 then history = redis.call('LRANGE', KEYS[3], -limit, -1) end
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), history}
`;

/** KEYS: meta, entries. ARGV: hasSummary, summary, entries… */
const SAVE_MEMORY = `${LUA_BATCH}
batch('RPUSH', KEYS[2], 3, #ARGV)
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'summary', ARGV[2]) end
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`;

const LOAD_MEMORY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
`;

type ScriptFn = (...args: Array<string | number>) => Promise<unknown>;
interface ScriptedClient {
  toolwrightSaveSession: ScriptFn;
  toolwrightLoadSession: ScriptFn;
  toolwrightSaveMemory: ScriptFn;
  toolwrightLoadMemory: ScriptFn;
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

  constructor(options: RedisStoreOptions = {}) {
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
    // Errors reach callers as StoreUnavailableError; without a listener ioredis would also log them.
    if (this.owned) this.client.on('error', () => undefined);
    this.client.defineCommand('toolwrightSaveSession', { numberOfKeys: 3, lua: SAVE_SESSION });
    this.client.defineCommand('toolwrightLoadSession', { numberOfKeys: 3, lua: LOAD_SESSION });
    this.client.defineCommand('toolwrightSaveMemory', { numberOfKeys: 2, lua: SAVE_MEMORY });
    this.client.defineCommand('toolwrightLoadMemory', { numberOfKeys: 2, lua: LOAD_MEMORY });
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
    const limit = checkHistoryLimit(options.historyLimit);
    const reply = (await guard('redis', () => this.scripts.toolwrightLoadSession(...this.sessionKeys(key), limit ?? -1))) as
      | [string[], string[], string[]]
      | null;
    if (!reply) return undefined;
    const meta = Object.fromEntries(pairs(reply[0])) as Partial<Record<string, string>>;
    return toSessionSnapshot(key, {
      userId: meta.userId,
      state: stateFromEntries(pairs(reply[1])),
      history: reply[2],
      userInput: meta.userInput === undefined ? null : (JSON.parse(meta.userInput) as string | null),
      pendingRun: meta.pendingRun,
      version: Number(meta.version ?? 0),
    });
  }

  async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    const c = encodeSessionChanges(changes);
    const args: Array<string | number> = [
      ...this.sessionKeys(key),
      this.ttlMs,
      c.userId !== undefined ? '1' : '0',
      c.userId ?? '',
      c.userInput !== undefined ? '1' : '0',
      JSON.stringify(c.userInput ?? null),
      c.pendingRun !== undefined ? '1' : '0',
      c.pendingRun ?? 'null',
      c.replaced ? '1' : '0',
      c.set.length,
      c.deleted.length,
      c.replaced?.length ?? 0,
      c.appended.length,
      ...c.set.flat(),
      ...c.deleted,
      ...(c.replaced ?? []),
      ...c.appended,
    ];
    return Number(await guard('redis', () => this.scripts.toolwrightSaveSession(...args)));
  }

  async deleteSession(key: SessionKey): Promise<void> {
    await guard('redis', () => this.client.del(...this.sessionKeys(key)));
  }

  async loadMemory(key: MemoryKey): Promise<MemorySnapshot | undefined> {
    const reply = (await guard('redis', () => this.scripts.toolwrightLoadMemory(...this.memoryKeys(key)))) as [string[], string[]] | null;
    if (!reply) return undefined;
    const meta = Object.fromEntries(pairs(reply[0])) as Partial<Record<string, string>>;
    return toMemorySnapshot(key, {
      entries: reply[1],
      summary: meta.summary === undefined ? null : (JSON.parse(meta.summary) as string | null),
      version: Number(meta.version ?? 0),
    });
  }

  async saveMemory(key: MemoryKey, changes: MemoryChanges): Promise<number> {
    const c = encodeMemoryChanges(changes);
    const args = [...this.memoryKeys(key), c.summary !== undefined ? '1' : '0', JSON.stringify(c.summary ?? null), ...c.added];
    return Number(await guard('redis', () => this.scripts.toolwrightSaveMemory(...args)));
  }

  /** Closes the connection this store created; a client passed in stays open (its owner closes it). */
  async close(): Promise<void> {
    if (!this.owned) return;
    // QUIT needs a live connection; otherwise stop reconnecting at once.
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client.disconnect());
    else this.client.disconnect();
  }
}

/** ioredis is an optional peer dependency: loaded only when a RedisStore makes its own client. */
function ioredis(): typeof Redis {
  return requirePeer('ioredis', 'npm install ioredis@6', 'RedisStore without a client');
}
