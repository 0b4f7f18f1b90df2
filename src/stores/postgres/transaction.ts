import type { Pool, QueryResult } from 'pg';
import { saveAllowanceMs } from '../snapshot-rows';

/** The one thing a save does with its connection. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<QueryResult>;
}

/**
 * Runs `work` in a transaction on one pooled client; a large save (`size`) gets statement and read
 * timeouts grown with its size beyond the pool's `timeoutMs`.
 */
export async function inTransaction<T>(
  pool: Pool,
  timeoutMs: number,
  size: { rows: number; chars: number },
  work: (db: Queryable) => Promise<T>,
): Promise<T> {
  const extra = saveAllowanceMs(size.rows, size.chars);
  const client = await pool.connect();
  const readTimeout = extra < 200 ? undefined : timeoutMs + 1000 + extra;
  const db: Queryable = {
    query: (text, values) =>
      client.query(readTimeout === undefined ? { text, values } : ({ text, values, query_timeout: readTimeout } as never)),
  };
  let broken = false;
  // A checked-out client reports a lost connection on itself, not on the pool.
  const lost = () => (broken = true);
  client.on('error', lost);
  try {
    await db.query('BEGIN');
    if (readTimeout !== undefined) await db.query(`SET LOCAL statement_timeout = ${Math.ceil(timeoutMs + extra)}`);
    const result = await work(db);
    await db.query('COMMIT');
    return result;
  } catch (err) {
    // A failed ROLLBACK means the connection is gone: drop it rather than reuse it.
    await db.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
