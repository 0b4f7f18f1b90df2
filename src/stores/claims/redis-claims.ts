import type { IdempotencyClaim, IdempotencyClaims } from '../../side-effects/claims';
import type { IdempotencyEntry } from '../../side-effects/idempotency-storage';
import { checkId, guard } from '../snapshot-rows';

/**
 * One hash per key: `f` fingerprint, `h` holder while pending (the key expiring with the lease, by
 * Redis's clock), `r` the result once done (kept without expiry). Each step is one script.
 */
const CLAIM = `
local v = redis.call('HMGET', KEYS[1], 'f', 'r')
if v[1] then
  if v[2] then return {'done', v[1], v[2]} end
  return {'pending', v[1]}
end
redis.call('HSET', KEYS[1], 'f', ARGV[1], 'h', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'claimed'}`;
const HELD = `local v = redis.call('HMGET', KEYS[1], 'h', 'r')
if v[1] ~= ARGV[1] or v[2] then return 0 end
`;
const RENEW = `${HELD}redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1`;
const COMPLETE = `${HELD}redis.call('HSET', KEYS[1], 'r', ARGV[2]) redis.call('HDEL', KEYS[1], 'h') redis.call('PERSIST', KEYS[1]) return 1`;
const RELEASE = `${HELD}redis.call('DEL', KEYS[1]) return 1`;

interface ClaimsClient {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
  toolwrightClaimKey(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<string[]>;
  toolwrightRenewKey(key: string, holder: string, leaseMs: number): Promise<number>;
  toolwrightCompleteKey(key: string, holder: string, result: string): Promise<number>;
  toolwrightReleaseKey(key: string, holder: string): Promise<number>;
  del(...keys: string[]): Promise<number>;
}

/** Defines the claim scripts on a client, once (RedisStore's constructor, beside its own scripts). */
export function defineClaimScripts(client: Pick<ClaimsClient, 'defineCommand'>): void {
  client.defineCommand('toolwrightClaimKey', { numberOfKeys: 1, lua: CLAIM });
  client.defineCommand('toolwrightRenewKey', { numberOfKeys: 1, lua: RENEW });
  client.defineCommand('toolwrightCompleteKey', { numberOfKeys: 1, lua: COMPLETE });
  client.defineCommand('toolwrightReleaseKey', { numberOfKeys: 1, lua: RELEASE });
}

/** Idempotency claims in the store's Redis, under `<keyPrefix>idempotency:{<namespace>}:<key>` (scripts from defineClaimScripts). */
export class RedisIdempotencyClaims<T> implements IdempotencyClaims<T> {
  private readonly client: ClaimsClient;

  constructor(
    client: unknown,
    private readonly prefix: string,
  ) {
    this.client = client as ClaimsClient;
  }

  claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>> {
    return guard('redis', async (): Promise<IdempotencyClaim<T>> => {
      checkId('idempotencyKey', key);
      const [state, stored, result] = await this.client.toolwrightClaimKey(this.prefix + key, fingerprint, holder, Math.ceil(leaseMs));
      if (state === 'done') return { state, entry: { fingerprint: stored, result: JSON.parse(result) as T } };
      return state === 'pending' ? { state, fingerprint: stored } : { state: 'claimed' };
    });
  }

  renew(key: string, holder: string, leaseMs: number): Promise<boolean> {
    return guard('redis', async () => (await this.client.toolwrightRenewKey(this.prefix + key, holder, Math.ceil(leaseMs))) === 1);
  }

  complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean> {
    const result = JSON.stringify(entry.result ?? null);
    return guard('redis', async () => (await this.client.toolwrightCompleteKey(this.prefix + key, holder, result)) === 1);
  }

  forget(keys: readonly string[]): Promise<void> {
    return guard('redis', async () => {
      if (keys.length > 0) await this.client.del(...keys.map((key) => this.prefix + key));
    });
  }

  release(key: string, holder: string): Promise<void> {
    return guard('redis', async () => {
      await this.client.toolwrightReleaseKey(this.prefix + key, holder);
    });
  }
}
