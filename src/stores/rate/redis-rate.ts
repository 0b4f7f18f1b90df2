import type { RateCounters, RateHit } from '../../side-effects/rate-counters';
import { guard } from '../snapshot-rows';
import { checkHit } from './check-hit';

/**
 * KEYS: the counter's key without its window. ARGV: windowMs. By Redis's clock (TIME): INCR of
 * `<key>:<window>`, expiring with its window's length from the first hit. Returns {count, ms left}.
 */
const HIT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = tonumber(ARGV[1])
local window = math.floor(now / w)
local k = KEYS[1] .. ':' .. string.format('%d', window)
local count = redis.call('INCR', k)
if count == 1 then redis.call('PEXPIRE', k, w) end
return {count, (window + 1) * w - now}`;

interface RateClient {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
  toolwrightRateHit(key: string, windowMs: number): Promise<[number, number]>;
}

/** Defines the hit script on a client, once (RedisStore's constructor, beside its own scripts). */
export function defineRateScripts(client: Pick<RateClient, 'defineCommand'>): void {
  client.defineCommand('toolwrightRateHit', { numberOfKeys: 1, lua: HIT });
}

/** Fixed-window counters in the store's Redis, under `<keyPrefix>rate:{<namespace>}:<windowMs>:<key>:<window>`. */
export class RedisRateCounters implements RateCounters {
  private readonly client: RateClient;

  constructor(
    client: unknown,
    private readonly prefix: string,
  ) {
    this.client = client as RateClient;
  }

  hit(key: string, windowMs: number): Promise<RateHit> {
    return guard('redis', async () => {
      checkHit(key, windowMs);
      const [count, resetMs] = await this.client.toolwrightRateHit(`${this.prefix}${windowMs}:${key}`, windowMs);
      return { count: Number(count), resetMs: Number(resetMs) };
    });
  }
}
