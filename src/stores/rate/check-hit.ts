import { ToolwrightConfigError } from '../../errors/errors';
import type { RateCounters, RateHit } from '../../side-effects/rate-counters';
import { checkId } from '../snapshot-rows';

/**
 * What every store checks before a hit, before any I/O: the key as an id (non-empty, well formed,
 * at most 512 UTF-8 bytes: InvalidIdError) and the window a positive integer of ms (ToolwrightConfigError).
 */
export function checkHit(key: string, windowMs: number): void {
  checkId('rateKey', key);
  if (typeof windowMs !== 'number' || !Number.isSafeInteger(windowMs) || windowMs <= 0)
    throw new ToolwrightConfigError(`invalid windowMs ${String(windowMs)}: use a positive integer number of milliseconds`);
}

/** MemoryRateCounters (or any counters) with the stores' checks in front. */
export class CheckedRateCounters implements RateCounters {
  constructor(private readonly counters: RateCounters) {}

  async hit(key: string, windowMs: number): Promise<RateHit> {
    checkHit(key, windowMs);
    return this.counters.hit(key, windowMs);
  }
}
