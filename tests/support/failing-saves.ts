/**
 * A store whose next end-of-run save (`saveSession` / `saveTurn`) fails as a store that went away
 * would, before it wrote anything: `failNext()` arms it for one save.
 */
import { StoreUnavailableError } from '../../src/errors/errors';
import type { SessionStore } from '../../src/stores/store';

export function failingSaves<S extends SessionStore>(store: S): { store: S; failNext: () => void } {
  let fail = false;
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'saveSession' && prop !== 'saveTurn') return value.bind(target);
      return async (...args: unknown[]) => {
        if (fail) {
          fail = false;
          throw new StoreUnavailableError('test', new Error('connection reset'));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, failNext: () => (fail = true) };
}
