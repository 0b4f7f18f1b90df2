/**
 * Fixed-window counters for rate limits and quotas, kept where the app's processes share them
 * (`store.rateCounters()` on SQLite, Redis, PostgreSQL; in memory for one process).
 */
export interface RateCounters {
  /**
   * Atomically counts one hit on `key` in the current window of `windowMs` (windows are aligned to
   * the epoch, so every process agrees which window it is) and answers the count so far in that
   * window, this hit included, and the milliseconds until the window ends. Two processes hitting
   * the same key at once get different counts.
   */
  hit(key: string, windowMs: number): Promise<RateHit>;
}

export interface RateHit {
  count: number;
  resetMs: number;
}

/** Counters in this process's memory (the default): expired windows are dropped as keys are hit. */
export class MemoryRateCounters implements RateCounters {
  private readonly windows = new Map<string, { window: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, windowMs: number): Promise<RateHit> {
    const at = this.now();
    const window = Math.floor(at / windowMs);
    const slot = `${windowMs}:${key}`;
    const current = this.windows.get(slot);
    const count = current?.window === window ? current.count + 1 : 1;
    this.windows.set(slot, { window, count });
    if (this.windows.size > 10_000) this.sweep(at);
    return Promise.resolve({ count, resetMs: (window + 1) * windowMs - at });
  }

  /** Drops the windows that ended: the map holds at most the keys hit in their current window. */
  private sweep(at: number): void {
    for (const [slot, { window }] of this.windows) {
      const windowMs = Number(slot.slice(0, slot.indexOf(':')));
      if ((window + 1) * windowMs <= at) this.windows.delete(slot);
    }
  }
}
