/**
 * The listener a store puts on its driver's `'error'` events (a pg pool, an ioredis client): the
 * error goes to the app's `onError`, if any, and never further. Such an event with no listener kills
 * the process (pg) or is logged by the driver (ioredis); the calls it affects reject typed anyway.
 */
export function quietListener(onError: ((error: unknown) => void) | undefined): (error: Error) => void {
  return (error) => {
    try {
      onError?.(error);
    } catch {
      // A failing report must not turn into the crash this listener is here to prevent.
    }
  };
}
