import { createHash, randomUUID } from 'node:crypto';
import { ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import { GetSetIdempotencyClaims, isClaims, MemoryIdempotencyClaims, whileClaimed, type IdempotencyClaims } from './claims';
import { canonicalJson } from './canonical-json';
import type { IdempotencyStorage } from './idempotency-storage';

export type { IdempotencyEntry, IdempotencyStorage } from './idempotency-storage';

/**
 * An idempotency key came back with a different payload. As payment APIs do, this is refused:
 * answering with the first result would tell the caller that something else happened.
 */
export class IdempotencyConflictError extends ToolwrightError {
  constructor(readonly key: string) {
    super(
      'IDEMPOTENCY_CONFLICT',
      'This idempotency key was already used with different arguments; nothing was done. A new request needs a new key.',
      { captureStack: false },
    );
  }
}

/**
 * A call with this idempotency key is running now, in this process or another (its claim is held),
 * and did not finish within the ledger's `waitMs`: nothing was done. Like a payment API's 409, the
 * caller tries again shortly and then gets the first call's result.
 */
export class IdempotencyInProgressError extends ToolwrightError {
  /** The HTTP status payment APIs (and the IETF Idempotency-Key draft) answer with. */
  readonly status = 409;
  constructor(readonly key: string) {
    super(
      'IDEMPOTENCY_IN_PROGRESS',
      'A call with this idempotency key is still running; nothing was done. Try again shortly to get its result.',
      { captureStack: false },
    );
  }
}

export interface IdempotentOutcome<T> {
  result: T;
  /** The key had been used (with the same payload): `result` is the first one and nothing ran. */
  replayed: boolean;
}

export interface IdempotencyLedgerOptions {
  /**
   * How long a claim holds while nobody renews it (ms). The holder renews it every third of this
   * while its action runs, so it lapses only when the holder's process died. Default 30,000.
   */
  leaseMs?: number;
  /** How long a second call with a running key waits for the first one's result before IdempotencyInProgressError (ms). Default 10,000. */
  waitMs?: number;
}

/**
 * Runs a side effect at most once per idempotency key (`context.idempotencyKey`), and refuses the
 * key with a different payload (IdempotencyConflictError). The key is claimed in the storage
 * before the action runs: a concurrent call with the key, in this process or another sharing the
 * storage, waits for the first one's result (IdempotencyInProgressError after `waitMs`). An action
 * that throws gives its claim back, so a retry runs it. A payload JSON cannot carry is refused
 * before anything runs (IdempotencyPayloadError).
 *
 * ```ts
 * const refunds = new IdempotencyLedger<Refund>(store.idempotency('refunds'));
 * const { result, replayed } = await refunds.once(context.idempotencyKey, { orderId, amountCents }, () => pay(...));
 * ```
 *
 * A process killed after its action but before the result was recorded leaves a pending claim
 * that lapses after `leaseMs`; the next call then runs the action again. Pass the key on to the
 * service that acts (a payment provider's own idempotency key) to close that window too.
 */
export class IdempotencyLedger<T> {
  private readonly running = new Map<string, { fingerprint: string; outcome: Promise<IdempotentOutcome<T>> }>();
  private readonly claims: IdempotencyClaims<T>;
  private readonly leaseMs: number;
  private readonly waitMs: number;

  constructor(
    storage: IdempotencyStorage<T> | IdempotencyClaims<T> = new MemoryIdempotencyClaims<T>(),
    options: IdempotencyLedgerOptions = {},
  ) {
    this.claims = isClaims(storage) ? storage : new GetSetIdempotencyClaims(storage);
    this.leaseMs = positive('leaseMs', options.leaseMs ?? 30_000);
    this.waitMs = positive('waitMs', options.waitMs ?? 10_000, true);
  }

  /** `key` undefined (a call with no tool call id): the action simply runs. */
  async once(key: string | undefined, payload: unknown, action: () => T | Promise<T>): Promise<IdempotentOutcome<T>> {
    if (key === undefined) return { result: await action(), replayed: false };
    const fingerprint = payloadFingerprint(payload);
    const inFlight = this.running.get(key);
    if (inFlight) {
      if (inFlight.fingerprint !== fingerprint) throw new IdempotencyConflictError(key);
      return { result: (await inFlight.outcome).result, replayed: true };
    }
    // Registered before the first await, so a concurrent call in this process joins this run.
    const outcome = this.claimThenRun(key, fingerprint, action);
    this.running.set(key, { fingerprint, outcome });
    try {
      return await outcome;
    } finally {
      this.running.delete(key);
    }
  }

  private async claimThenRun(key: string, fingerprint: string, action: () => T | Promise<T>): Promise<IdempotentOutcome<T>> {
    const deadline = Date.now() + this.waitMs;
    for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
      const holder = randomUUID();
      const found = await this.claims.claim(key, fingerprint, holder, this.leaseMs);
      if (found.state === 'claimed')
        return { result: await whileClaimed(this.claims, key, holder, fingerprint, this.leaseMs, action), replayed: false };
      const stored = found.state === 'done' ? found.entry.fingerprint : found.fingerprint;
      if (stored !== fingerprint) throw new IdempotencyConflictError(key);
      if (found.state === 'done') return { result: found.entry.result, replayed: true };
      const left = deadline - Date.now();
      if (left <= 0) throw new IdempotencyInProgressError(key);
      await new Promise((wake) => setTimeout(wake, Math.min(pause, left)));
    }
  }
}

function positive(name: string, value: number, zero = false): number {
  if (!Number.isFinite(value) || value < (zero ? 0 : 1))
    throw new ToolwrightConfigError(`IdempotencyLedger ${name} must be a positive number of ms, got ${value}`);
  return value;
}

/**
 * A stable digest of a JSON payload: what `JSON.stringify` writes with object keys sorted (so
 * property order does not matter, and a Date counts as its ISO text). A value JSON cannot carry
 * (Map, Set, BigInt, function, symbol, cycle) is refused with IdempotencyPayloadError.
 */
export function payloadFingerprint(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}
