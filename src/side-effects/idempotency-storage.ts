/** What is kept per key: the payload's fingerprint and the first result. */
export interface IdempotencyEntry<T> {
  fingerprint: string;
  result: T;
}

/**
 * A plain get/set storage (a `Map` will do): replays are safe in one process only, since two
 * processes can both read "absent" before either writes. Across processes pass a store's claims
 * (`store.idempotency(namespace)`, see IdempotencyClaims), which claim the key before acting.
 */
export interface IdempotencyStorage<T> {
  get(key: string): IdempotencyEntry<T> | undefined | Promise<IdempotencyEntry<T> | undefined>;
  set(key: string, entry: IdempotencyEntry<T>): unknown;
}
