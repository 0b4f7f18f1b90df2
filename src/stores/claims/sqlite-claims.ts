import type { IdempotencyClaim, IdempotencyClaims } from '../../side-effects/claims';
import type { IdempotencyEntry } from '../../side-effects/idempotency-storage';
import type { SqliteRowMode, SqliteStatement } from '../sqlite/driver';
import { checkId, guard } from '../snapshot-rows';

/** What the claims need of their SqliteStore: its cached statements and write transactions. */
export interface SqliteClaimsDb {
  sql(text: string, mode?: SqliteRowMode): SqliteStatement;
  immediate<R>(body: () => R): R;
}

interface Row {
  fingerprint: string;
  holder: string | null;
  lease_until: number | null;
  result: string | null;
}

/** Idempotency claims in the store's file (table `idempotency`): one write transaction per claim. */
export class SqliteIdempotencyClaims<T> implements IdempotencyClaims<T> {
  constructor(
    private readonly db: () => SqliteClaimsDb,
    private readonly namespace: string,
  ) {}

  claim(key: string, fingerprint: string, holder: string, leaseMs: number): Promise<IdempotencyClaim<T>> {
    return guard('sqlite', () => {
      checkId('idempotencyKey', key);
      const db = this.db();
      return db.immediate((): IdempotencyClaim<T> => {
        const row = db
          .sql('SELECT fingerprint, holder, lease_until, result FROM idempotency WHERE namespace = ? AND key = ?')
          .get(this.namespace, key) as Row | undefined;
        const now = Date.now();
        if (row?.result != null) return { state: 'done', entry: { fingerprint: row.fingerprint, result: JSON.parse(row.result) as T } };
        if (row && (row.lease_until ?? 0) > now) return { state: 'pending', fingerprint: row.fingerprint };
        db.sql(
          `INSERT INTO idempotency (namespace, key, fingerprint, holder, lease_until) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (namespace, key) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder, lease_until = excluded.lease_until`,
        ).run(this.namespace, key, fingerprint, holder, now + leaseMs);
        return { state: 'claimed' };
      });
    });
  }

  renew(key: string, holder: string, leaseMs: number): Promise<boolean> {
    return guard('sqlite', () => {
      const sql = 'UPDATE idempotency SET lease_until = ? WHERE namespace = ? AND key = ? AND holder = ? AND result IS NULL';
      return (
        this.db()
          .sql(sql)
          .run(Date.now() + leaseMs, this.namespace, key, holder).changes === 1
      );
    });
  }

  complete(key: string, holder: string, entry: IdempotencyEntry<T>): Promise<boolean> {
    return guard('sqlite', () => {
      const sql = `UPDATE idempotency SET result = ?, holder = NULL, lease_until = NULL
                   WHERE namespace = ? AND key = ? AND holder = ? AND result IS NULL`;
      return (
        this.db()
          .sql(sql)
          .run(JSON.stringify(entry.result ?? null), this.namespace, key, holder).changes === 1
      );
    });
  }

  forget(keys: readonly string[]): Promise<void> {
    return guard('sqlite', () => {
      const db = this.db();
      const statement = db.sql('DELETE FROM idempotency WHERE namespace = ? AND key = ?');
      db.immediate(() => keys.forEach((key) => statement.run(this.namespace, key)));
    });
  }

  release(key: string, holder: string): Promise<void> {
    return guard('sqlite', () => {
      this.db()
        .sql('DELETE FROM idempotency WHERE namespace = ? AND key = ? AND holder = ? AND result IS NULL')
        .run(this.namespace, key, holder);
    });
  }
}
