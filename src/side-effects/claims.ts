import type { IdempotencyEntry, IdempotencyStorage } from './idempotency-storage';

/** What claiming a key found: the key is now this holder's, another holder runs it, or it is done. */
export type IdempotencyClaim<T> =
  { state: 'claimed' } | { state: 'pending'; fingerprint: string } | { state: 'done'; entry: IdempotencyEntry<T> };

/**
 * A storage that claims a key before the side effect runs (a pending marker with a lease), so that
 * of two processes calling `once` with one key at once exactly one runs the action. Shipped for
 * every store (`store.idempotency(namespace)`): SQLite, Redis, PostgreSQL and in memory.
 */
export interface IdempotencyClaims<T> {
  /**
   * Atomically: a key that is absent, or pending under an expired lease (its holder died), becomes
   * pending for `holder` until `leaseMs` from now; otherwise the key's current state is returned.
   */
  claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>>;
  /** Extends the holder's lease; false when the key is no longer pending for this holder. */
  renew(key: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Records the result, ending the holder's claim; false when the key is no longer pending for this holder. */
  complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean>;
  /** Drops the holder's pending marker (the action failed), so a retry runs it. */
  release(key: string, holder: string): Promise<void>;
  /** Removes the keys, done or pending (a finished run's step records). */
  forget?(keys: readonly string[]): Promise<void>;
}

/**
 * Runs `action` under the holder's claim: renewed every third of `leaseMs` while it runs, given back
 * if it throws (so a retry runs it), its result recorded when it returns. The one place both the
 * idempotency ledger and the agent's step journal act under a claim.
 */
export async function whileClaimed<T>(
  claims: IdempotencyClaims<T>,
  key: string,
  holder: string,
  fingerprint: string,
  leaseMs: number,
  action: () => T | Promise<T>,
): Promise<T> {
  const renewal = setInterval(() => void claims.renew(key, holder, leaseMs).catch(() => undefined), leaseMs / 3);
  renewal.unref();
  let result: T;
  try {
    result = await action();
  } catch (error) {
    clearInterval(renewal);
    await claims.release(key, holder).catch(() => undefined);
    throw error;
  }
  clearInterval(renewal);
  // The effect happened: a store that fails to record it fails this call (the claim lapses after leaseMs).
  await claims.complete(key, holder, { fingerprint, result });
  return result;
}

export function isClaims<T>(storage: IdempotencyStorage<T> | IdempotencyClaims<T>): storage is IdempotencyClaims<T> {
  return typeof (storage as Partial<IdempotencyClaims<T>>).claim === 'function';
}

type Slot<T> = { fingerprint: string; holder: string; until: number } | { fingerprint: string; entry: IdempotencyEntry<T> };

/** Claims in this process's memory: the ledger's default, and what `InMemoryStore.idempotency` returns. */
export class MemoryIdempotencyClaims<T> implements IdempotencyClaims<T> {
  private readonly slots = new Map<string, Slot<T>>();

  /** `checkKey` refuses a key before it is claimed (InMemoryStore checks them as every store does). */
  constructor(private readonly checkKey?: (key: string) => void) {}

  async claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>> {
    this.checkKey?.(key);
    const slot = this.slots.get(key);
    if (slot && 'entry' in slot) return { state: 'done', entry: slot.entry };
    if (slot && slot.until > Date.now()) return { state: 'pending', fingerprint: slot.fingerprint };
    this.slots.set(key, { fingerprint, holder, until: Date.now() + leaseMs });
    return { state: 'claimed' };
  }

  async renew(key: string, holder: string, leaseMs: number): Promise<boolean> {
    const slot = this.held(key, holder);
    if (slot) slot.until = Date.now() + leaseMs;
    return slot !== undefined;
  }

  async complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean> {
    if (!this.held(key, holder)) return false;
    this.slots.set(key, { fingerprint: entry.fingerprint, entry });
    return true;
  }

  async release(key: string, holder: string): Promise<void> {
    if (this.held(key, holder)) this.slots.delete(key);
  }

  async forget(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.slots.delete(key);
  }

  private held(key: string, holder: string): { holder: string; until: number } | undefined {
    const slot = this.slots.get(key);
    return slot && !('entry' in slot) && slot.holder === holder ? slot : undefined;
  }
}

/**
 * A get/set storage (a `Map`, or an app's own) under the claim protocol: pending markers live in this
 * process only, so it is at-most-once within one process. Across processes use a store's claims.
 */
export class GetSetIdempotencyClaims<T> implements IdempotencyClaims<T> {
  private readonly pending = new MemoryIdempotencyClaims<T>();

  constructor(private readonly storage: IdempotencyStorage<T>) {}

  async claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>> {
    const entry = await this.storage.get(key);
    if (entry) return { state: 'done', entry };
    return this.pending.claim(key, fingerprint, holder, leaseMs);
  }

  renew(key: string, holder: string, leaseMs: number): Promise<boolean> {
    return this.pending.renew(key, holder, leaseMs);
  }

  async complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean> {
    await this.storage.set(key, entry);
    await this.pending.release(key, holder);
    return true;
  }

  release(key: string, holder: string): Promise<void> {
    return this.pending.release(key, holder);
  }
}
