import type { RateCounters, RateHit } from '../../side-effects/rate-counters';
import { checkHit } from './check-hit';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: any[]; rowCount: number | null }>;

/**
 * Fixed-window counters in the store's schema (table `rate_counters`), by the database's clock
 * (`clock_timestamp()`), so app instances with skewed clocks agree on the window. One statement per
 * hit; a hit whose transaction read the clock before the stored window began counts in that window.
 */
export class PostgresRateCounters implements RateCounters {
  constructor(
    private readonly query: Query,
    private readonly s: string,
    private readonly namespace: string,
  ) {}

  async hit(key: string, windowMs: number): Promise<RateHit> {
    checkHit(key, windowMs);
    const { rows } = await this.query(
      `WITH t AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now)
       INSERT INTO ${this.s}.rate_counters AS r (namespace, key, window_ms, window_start, count)
         SELECT $1, $2, $3::bigint, t.now - t.now % $3::bigint, 1 FROM t
       ON CONFLICT (namespace, key, window_ms) DO UPDATE SET
         count = CASE WHEN excluded.window_start > r.window_start THEN 1 ELSE r.count + 1 END,
         window_start = GREATEST(r.window_start, excluded.window_start)
       RETURNING r.count, GREATEST(0, r.window_start + r.window_ms - (SELECT now FROM t)) AS reset_ms`,
      [this.namespace, key, windowMs],
    );
    const row = rows[0] as { count: number; reset_ms: string };
    return { count: Number(row.count), resetMs: Number(row.reset_ms) };
  }
}
