import { createHash } from 'node:crypto';
import { ToolwrightError } from '../errors/errors';
import { canonicalJson } from './canonical-json';

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

/** What is kept per key: the payload's fingerprint and the first result. */
export interface IdempotencyEntry<T> {
  fingerprint: string;
  result: T;
}

/**
 * Where entries live; a `Map` will do in one process. A shared one (a table with a unique key,
 * Redis `SET NX`) keeps replays safe across processes.
 */
export interface IdempotencyStorage<T> {
  get(key: string): IdempotencyEntry<T> | undefined | Promise<IdempotencyEntry<T> | undefined>;
  set(key: string, entry: IdempotencyEntry<T>): unknown;
}

export interface IdempotentOutcome<T> {
  result: T;
  /** The key had been used (with the same payload): `result` is the first one and nothing ran. */
  replayed: boolean;
}

/**
 * Runs a side effect at most once per idempotency key (`context.idempotencyKey`), and refuses the
 * key with a different payload (IdempotencyConflictError). Concurrent calls with one key share
 * one run. A payload JSON cannot carry is refused before anything runs (IdempotencyPayloadError).
 *
 * ```ts
 * const refunds = new IdempotencyLedger<Refund>();
 * const { result, replayed } = await refunds.once(context.idempotencyKey, { orderId, amountCents }, () => pay(...));
 * ```
 */
export class IdempotencyLedger<T> {
  private readonly running = new Map<string, { fingerprint: string; outcome: Promise<IdempotentOutcome<T>> }>();

  constructor(private readonly storage: IdempotencyStorage<T> = new Map<string, IdempotencyEntry<T>>()) {}

  /** `key` undefined (a call with no tool call id): the action simply runs. */
  async once(key: string | undefined, payload: unknown, action: () => T | Promise<T>): Promise<IdempotentOutcome<T>> {
    if (key === undefined) return { result: await action(), replayed: false };
    const fingerprint = payloadFingerprint(payload);
    const inFlight = this.running.get(key);
    if (inFlight) {
      if (inFlight.fingerprint !== fingerprint) throw new IdempotencyConflictError(key);
      return { result: (await inFlight.outcome).result, replayed: true };
    }
    // Registered before the first await, so a concurrent call with the same key joins this run.
    const outcome = (async (): Promise<IdempotentOutcome<T>> => {
      const earlier = await this.storage.get(key);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) throw new IdempotencyConflictError(key);
        return { result: earlier.result, replayed: true };
      }
      const result = await action();
      await this.storage.set(key, { fingerprint, result });
      return { result, replayed: false };
    })();
    this.running.set(key, { fingerprint, outcome });
    try {
      return await outcome;
    } finally {
      this.running.delete(key);
    }
  }
}

/**
 * A stable digest of a JSON payload: what `JSON.stringify` writes with object keys sorted (so
 * property order does not matter, and a Date counts as its ISO text). A value JSON cannot carry
 * (Map, Set, BigInt, function, symbol, cycle) is refused with IdempotencyPayloadError.
 */
export function payloadFingerprint(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}
