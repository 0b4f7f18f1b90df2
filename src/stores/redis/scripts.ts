import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { SessionChanges } from '../../session/snapshots';
import type { EncodedMemoryChanges, EncodedSessionChanges } from '../snapshot-rows';

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
export const SAVE_SESSION = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_SESSION}
if sessionTypesWrong(KEYS[1], KEYS[2], KEYS[3]) then ${WRONG_TYPE} end
return (saveSession(KEYS[1], KEYS[2], KEYS[3], 0))
`;

/**
 * One run's save: KEYS: session meta, state, history, memory meta, entries. ARGV: the session
 * save's, then the memory save's. Both are written or neither (nothing is written before every
 * check passed). Its keys span two hash slots: on Redis Cluster it needs the session and the
 * memory on one node (see docs/persistence.md).
 */
export const SAVE_TURN = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_SESSION}${LUA_SAVE_MEMORY}
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
export const SAVE_MEMORY = `${LUA_BATCH}${LUA_TYPES}${LUA_SAVE_MEMORY}
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

type ScriptFn = (...args: Array<string | number | readonly string[]>) => Promise<unknown>;
export interface ScriptedClient {
  toolwrightSaveSession: ScriptFn;
  toolwrightLoadSession: ScriptFn;
  toolwrightSaveMemory: ScriptFn;
  toolwrightSaveTurn: ScriptFn;
  toolwrightLoadMemory: ScriptFn;
  toolwrightClaimSession: ScriptFn;
  toolwrightSwapPendingRun: ScriptFn;
}

/** Defines the store's scripts as commands of `client` (ioredis runs them by hash, loading them when missing). */
export function defineStoreScripts(client: Redis): void {
  client.defineCommand('toolwrightSaveSession', { numberOfKeys: 3, lua: SAVE_SESSION });
  client.defineCommand('toolwrightLoadSession', { numberOfKeys: 3, lua: LOAD_SESSION });
  client.defineCommand('toolwrightSaveMemory', { numberOfKeys: 2, lua: SAVE_MEMORY });
  client.defineCommand('toolwrightSaveTurn', { numberOfKeys: 5, lua: SAVE_TURN });
  client.defineCommand('toolwrightLoadMemory', { numberOfKeys: 2, lua: LOAD_MEMORY });
  client.defineCommand('toolwrightClaimSession', { numberOfKeys: 3, lua: CLAIM_SESSION });
  client.defineCommand('toolwrightSwapPendingRun', { numberOfKeys: 1, lua: SWAP_PENDING_RUN });
}

/** A session save's fixed arguments (see LUA_SAVE_SESSION). */
export function sessionArgs(changes: SessionChanges, c: EncodedSessionChanges, ttlMs: number): Array<string | number> {
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
export function sessionRows(c: EncodedSessionChanges): string[] {
  return [...c.set.flat(), ...c.deleted, ...(c.replaced ?? []), ...c.appended];
}

/** A memory save's fixed arguments (see LUA_SAVE_MEMORY): a new generation id on every save, kept only by the one creating the memory. */
export function memoryArgs(c: EncodedMemoryChanges): string[] {
  return [c.summary !== undefined ? '1' : '0', c.summary ?? 'null', randomUUID(), String(c.added.length)];
}
