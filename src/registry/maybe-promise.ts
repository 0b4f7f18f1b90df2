/**
 * The registry's sync fast paths: a step answers a plain value when it can and a promise only
 * when something asynchronous ran (an async constraint, tool or policy), so the common call costs
 * no extra tick. These helpers keep that check in one place.
 */

/** Is this step's answer a promise (something asynchronous ran)? */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** `next(value)`, after the promise settles when `value` is one; synchronous otherwise. */
export function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

const TICK = Promise.resolve();

/** Awaited before a refusal is thrown: a promise rejected once the caller's handler is attached costs Node less than one already rejected. */
export function oneTick(): Promise<void> {
  return TICK;
}

/** A promise rejecting with `error` one tick from now (see `oneTick`), for a caller that is not an async function. */
export function rejectLater(error: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown (a ToolwrightError from parse or run)
  return new Promise((_, reject) => void TICK.then(() => reject(error)));
}
