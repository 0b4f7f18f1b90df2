import type { IdempotencyClaim, IdempotencyClaims } from '../../side-effects/claims';
import type { IdempotencyEntry } from '../../side-effects/idempotency-storage';
import { checkId } from '../snapshot-rows';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: any[]; rowCount: number | null }>;

/**
 * Idempotency claims in the store's schema (table `idempotency`). A claim is one statement: the
 * insert, or the takeover of a lapsed lease, happens only where no live claim or result is.
 */
export class PostgresIdempotencyClaims<T> implements IdempotencyClaims<T> {
  constructor(
    private readonly query: Query,
    private readonly s: string,
    private readonly namespace: string,
  ) {}

  async claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>> {
    checkId('idempotencyKey', key);
    const taken = await this.query(
      `INSERT INTO ${this.s}.idempotency (namespace, key, fingerprint, holder, lease_until)
       VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')
       ON CONFLICT (namespace, key) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder, lease_until = excluded.lease_until
       WHERE ${this.s}.idempotency.result IS NULL AND ${this.s}.idempotency.lease_until <= clock_timestamp()
       RETURNING 1`,
      [this.namespace, key, fingerprint, holder, Math.ceil(leaseMs)],
    );
    if (taken.rowCount === 1) return { state: 'claimed' };
    const { rows } = await this.query(`SELECT fingerprint, result FROM ${this.s}.idempotency WHERE namespace = $1 AND key = $2`, [
      this.namespace,
      key,
    ]);
    const row = rows[0] as { fingerprint: string; result: string | null } | undefined;
    // Released between the two statements: claim again.
    if (!row) return this.claim(key, fingerprint, holder, leaseMs);
    return row.result === null
      ? { state: 'pending', fingerprint: row.fingerprint }
      : { state: 'done', entry: { fingerprint: row.fingerprint, result: JSON.parse(row.result) as T } };
  }

  async renew(key: string, holder: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.query(
      `UPDATE ${this.s}.idempotency SET lease_until = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE namespace = $1 AND key = $2 AND holder = $3 AND result IS NULL`,
      [this.namespace, key, holder, Math.ceil(leaseMs)],
    );
    return rowCount === 1;
  }

  async complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean> {
    const { rowCount } = await this.query(
      `UPDATE ${this.s}.idempotency SET result = $4, holder = NULL, lease_until = NULL
       WHERE namespace = $1 AND key = $2 AND holder = $3 AND result IS NULL`,
      [this.namespace, key, holder, JSON.stringify(entry.result ?? null)],
    );
    return rowCount === 1;
  }

  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length > 0)
      await this.query(`DELETE FROM ${this.s}.idempotency WHERE namespace = $1 AND key = ANY($2::text[])`, [this.namespace, [...keys]]);
  }

  async release(key: string, holder: string): Promise<void> {
    await this.query(`DELETE FROM ${this.s}.idempotency WHERE namespace = $1 AND key = $2 AND holder = $3 AND result IS NULL`, [
      this.namespace,
      key,
      holder,
    ]);
  }
}
