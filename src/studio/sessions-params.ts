/** The Sessions page's query parameters, checked: each at most once, only those a route takes, ids as every store keeps them. */
import { ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import { checkId } from '../stores/snapshot-rows';
import type { SessionStore } from '../stores/store';

/** A request the Sessions API cannot serve as asked (an unknown or repeated parameter, a missing query): 400. */
export class SessionsRequestError extends ToolwrightError {
  constructor(message: string) {
    super('INVALID_REQUEST', message, { captureStack: false });
  }
}

/** A session or memory the store does not hold: 404. */
export class StoredItemNotFoundError extends ToolwrightError {
  constructor(what: string) {
    super('RESOURCE_NOT_FOUND', `No ${what} is stored.`, { captureStack: false });
  }
}

/** The named parameters (undefined when absent or empty); refuses any other, or one given twice. */
export function readParams<K extends string>(query: URLSearchParams, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of new Set(query.keys())) {
    if (!(names as readonly string[]).includes(name))
      throw new SessionsRequestError(`Unknown parameter "${name}": this route takes ${names.map((n) => `"${n}"`).join(', ')}.`);
    const values = query.getAll(name);
    if (values.length > 1) throw new SessionsRequestError(`Parameter "${name}" is given ${values.length} times; give it once.`);
    if (values[0] !== '') out[name as K] = values[0];
  }
  return out;
}

/** An id parameter as every store keeps it (InvalidIdError otherwise), or undefined. */
export function idParam(field: string, value: string | undefined): string | undefined {
  if (value !== undefined) checkId(field, value);
  return value;
}

/** The studio's store; a typed error when it was given none, which the page shows. */
export function storeOf(store: SessionStore | undefined): SessionStore {
  if (!store)
    throw new ToolwrightConfigError(
      'The studio has no store to browse: start it with an agent (its store) or pass `store` to createStudio.',
    );
  return store;
}

/** The store's listing method, or a typed error for a custom store without it. */
export function listing<K extends 'listSessions' | 'listMemories'>(store: SessionStore, method: K): NonNullable<SessionStore[K]> {
  const fn = store[method];
  if (typeof fn !== 'function')
    throw new ToolwrightConfigError(`This store (${store.constructor.name}) cannot list what it holds: it has no ${method}().`);
  return fn.bind(store) as NonNullable<SessionStore[K]>;
}
