import type Redis from 'ioredis';
import type { ListOptions, ListPage, MemorySummary, SessionSummary } from '../store';
import { checkListOptions, encodeCursor, type CheckedList } from '../list-page';
import { guard } from '../snapshot-rows';

/*
 * Pages of a tenant's sessions and memories, read-only, by SCAN with a MATCH on the tenant's key
 * pattern: no index for the save scripts to keep (an index key would sit in another hash slot than
 * the session's, which Redis Cluster refuses in one script). A page runs at most MAX_SCANS SCAN calls
 * of SCAN_COUNT keys, and one small read script per key found; matches past the page's limit travel in
 * the cursor and open the next page, so none is skipped. SCAN returns every key stored throughout an
 * iteration at least once; a key may come twice when the server shrinks its table meanwhile.
 */

/** The page's place: the SCAN cursor to go on from ('0' once the iteration ended) and the ids found but not yet listed. */
export type ScanCursor = [string, string[][]];

const MAX_SCANS = 10;
const SCAN_COUNT = 200;

/** KEYS: meta, history. {userId or false, version, paused 0/1, messages} or false when the session is gone. */
const SESSION_SUMMARY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local m = redis.call('HMGET', KEYS[1], 'userId', 'version', 'pendingRun')
local paused = 0
if m[3] and m[3] ~= 'null' then paused = 1 end
return {m[1] or false, m[2] or '0', paused, redis.call('LLEN', KEYS[2])}
`;

/** KEYS: meta, entries. The number of entries, or false when the memory is gone. */
const MEMORY_SUMMARY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('LLEN', KEYS[2])
`;

interface ListClient {
  toolwrightSessionSummary(meta: string, history: string): Promise<[string | null, string, number, number] | null>;
  toolwrightMemorySummary(meta: string, entries: string): Promise<number | null>;
}

/** Defined on first use: listing is for tools such as the studio, not every app's client. */
function listScripts(client: Redis): ListClient {
  const scripts = client as unknown as Partial<ListClient>;
  if (scripts.toolwrightSessionSummary && scripts.toolwrightMemorySummary) return scripts as ListClient;
  client.defineCommand('toolwrightSessionSummary', { numberOfKeys: 2, lua: SESSION_SUMMARY });
  client.defineCommand('toolwrightMemorySummary', { numberOfKeys: 2, lua: MEMORY_SUMMARY });
  return client as unknown as ListClient;
}

const scanCursor = (value: unknown): ScanCursor | undefined =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === 'string' &&
  /^\d{1,20}$/.test(value[0]) &&
  Array.isArray(value[1]) &&
  (value[1] as unknown[]).every((id) => Array.isArray(id) && id.every((part) => typeof part === 'string'))
    ? (value as ScanCursor)
    : undefined;

/** A glob matching `text` literally (Redis MATCH: `*?[]\` escaped). */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * The ids (after the tenant) of the keys `${prefix}${kind}:{[tenant, ...ids]}:meta` found from the
 * cursor on: the cursor's leftovers first, then SCAN until `limit` are found, the budget is spent or
 * the iteration ends. Returns them with the SCAN cursor to go on from.
 */
async function scanIds(client: Redis, prefix: string, kind: string, o: CheckedList<ScanCursor>, size: number) {
  const head = `${prefix}${kind}:{`;
  const tenantJson = JSON.stringify(o.tenant);
  const pattern = `${literal(`${head}[${tenantJson},`)}*]}:meta`;
  const seen = new Set<string>();
  const ids: string[][] = [];
  const add = (id: string[]) => {
    const k = JSON.stringify(id);
    if (seen.has(k)) return;
    seen.add(k);
    ids.push(id);
  };
  for (const id of o.after?.[1] ?? []) if (id.length === size) add(id);
  let cursor = o.after?.[0] ?? '0';
  let ended = o.after !== undefined && cursor === '0';
  for (let calls = 0; !ended && ids.length < o.limit && calls < MAX_SCANS; calls++) {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
    cursor = next;
    ended = next === '0';
    for (const key of keys) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(key.slice(head.length, -'}:meta'.length));
      } catch {
        continue; // not a key this store wrote
      }
      if (Array.isArray(parsed) && parsed.length === size + 1 && parsed[0] === o.tenant && parsed.every((p) => typeof p === 'string'))
        add(parsed.slice(1));
    }
  }
  return { ids, cursor, ended };
}

/** One page: the first `limit` of `found` (which exist and pass the filter), and the cursor holding the rest. */
function page<T>(
  found: Array<{ id: string[]; item: T | undefined }>,
  scan: { cursor: string; ended: boolean },
  limit: number,
): ListPage<T> {
  const live = found.filter((f) => f.item !== undefined);
  const items = live.slice(0, limit).map((f) => f.item as T);
  const rest = live.slice(limit).map((f) => f.id);
  return scan.ended && rest.length === 0 ? { items } : { items, next: encodeCursor([scan.ended ? '0' : scan.cursor, rest]) };
}

const byId = (a: { id: string[] }, b: { id: string[] }) => {
  const x = JSON.stringify(a.id);
  const y = JSON.stringify(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
};

export async function listSessionKeys(
  client: Redis,
  prefix: string,
  keysOf: (key: { sessionId: string; tenantId?: string }) => [string, string, string],
  options: ListOptions,
): Promise<ListPage<SessionSummary>> {
  const o = checkListOptions(options, scanCursor);
  return guard('redis', async () => {
    const scripts = listScripts(client);
    const scan = await scanIds(client, prefix, 'session', o, 1);
    const found = await Promise.all(
      scan.ids.map(async (id) => {
        const [meta, , history] = keysOf({ sessionId: id[0], tenantId: o.tenantId });
        const r = await scripts.toolwrightSessionSummary(meta, history);
        if (!r || (o.userId !== undefined && r[0] !== o.userId)) return { id, item: undefined };
        const item: SessionSummary = { sessionId: id[0], version: Number(r[1]), messages: Number(r[3]), paused: Number(r[2]) === 1 };
        if (o.tenantId !== undefined) item.tenantId = o.tenantId;
        if (r[0] !== null) item.userId = r[0];
        return { id, item };
      }),
    );
    return page(found.sort(byId), scan, o.limit);
  });
}

export async function listMemoryKeys(
  client: Redis,
  prefix: string,
  keysOf: (key: { agentName: string; userId: string; tenantId?: string }) => [string, string],
  options: ListOptions,
): Promise<ListPage<MemorySummary>> {
  const o = checkListOptions(options, scanCursor);
  return guard('redis', async () => {
    const scripts = listScripts(client);
    const scan = await scanIds(client, prefix, 'memory', o, 2);
    const found = await Promise.all(
      scan.ids.map(async (id) => {
        if (o.userId !== undefined && id[1] !== o.userId) return { id, item: undefined };
        const [meta, entries] = keysOf({ agentName: id[0], userId: id[1], tenantId: o.tenantId });
        const n = await scripts.toolwrightMemorySummary(meta, entries);
        if (n === null) return { id, item: undefined };
        const item: MemorySummary = { agentName: id[0], userId: id[1], entries: Number(n) };
        if (o.tenantId !== undefined) item.tenantId = o.tenantId;
        return { id, item };
      }),
    );
    return page(found.sort(byId), scan, o.limit);
  });
}
