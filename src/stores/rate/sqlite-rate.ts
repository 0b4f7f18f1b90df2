import type { RateCounters, RateHit } from '../../side-effects/rate-counters';
import type { SqliteRowMode, SqliteStatement } from '../sqlite/driver';
import { guard } from '../snapshot-rows';
import { checkHit } from './check-hit';

/** What the counters need of their SqliteStore: its cached statements. */
export interface SqliteRateDb {
  sql(text: string, mode?: SqliteRowMode): SqliteStatement;
}

/**
 * Counts a hit in one statement: the window starts over when the stored one is older than this
 * hit's; a hit whose clock is behind the stored window counts in it (never back to an older one).
 */
const HIT = `INSERT INTO rate_counters (namespace, key, window_ms, window_start, count) VALUES (?, ?, ?, ?, 1)
  ON CONFLICT (namespace, key, window_ms) DO UPDATE SET
    count = CASE WHEN excluded.window_start > rate_counters.window_start THEN 1 ELSE rate_counters.count + 1 END,
    window_start = max(rate_counters.window_start, excluded.window_start)
  RETURNING count, window_start`;

/**
 * Fixed-window counters in the store's file (table `rate_counters`), by this process's clock (the
 * processes sharing a file share a machine). One statement per hit: SQLite's write lock makes it atomic.
 */
export class SqliteRateCounters implements RateCounters {
  constructor(
    private readonly db: () => SqliteRateDb,
    private readonly namespace: string,
  ) {}

  hit(key: string, windowMs: number): Promise<RateHit> {
    return guard('sqlite', () => {
      checkHit(key, windowMs);
      const now = Date.now();
      const row = this.db()
        .sql(HIT)
        .get(this.namespace, key, windowMs, now - (now % windowMs)) as { count: number; window_start: number };
      return { count: Number(row.count), resetMs: Math.max(0, Number(row.window_start) + windowMs - now) };
    });
  }
}
