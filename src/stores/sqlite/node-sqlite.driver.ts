import type { SqliteConnection, SqliteRowMode, SqliteStatement, SqliteValue } from './driver';
import type { NodeDatabaseSync, NodeSqliteModule, NodeSqliteStatement } from './load-node-sqlite';
import { withSqliteCode } from './sqlite-error-code';

/**
 * node:sqlite (`DatabaseSync`) behind the driver seam, behaving as better-sqlite3 does for the
 * store: errors named by SQLite code, `raw`/`pluck` rows, a busy timeout, and transactions as
 * `BEGIN … COMMIT` (node:sqlite has no transaction helper). Integers come back as numbers, as
 * with better-sqlite3 (the store reads none beyond 2^53).
 */
export function openNodeSqlite(sqlite: NodeSqliteModule, path: string, busyTimeoutMs: number): SqliteConnection {
  const db = coded(() => new sqlite.DatabaseSync(path));
  let open = true;
  const exec = (sql: string) => coded(() => db.exec(sql));
  try {
    // better-sqlite3's `timeout`: how long a statement waits for another connection's lock.
    exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    driver: 'node:sqlite',
    prepare: (sql, mode = 'object') => statement(db, sql, mode),
    exec,
    pragma: (text) => statement(db, `PRAGMA ${text}`, 'pluck').get(),
    transaction<T>(mode: 'deferred' | 'immediate', body: () => T): T {
      exec(mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN DEFERRED');
      try {
        const result = body();
        exec('COMMIT');
        return result;
      } catch (error) {
        // SQLite may have rolled back already (a failed COMMIT, a full disk): then there is nothing to undo.
        try {
          db.exec('ROLLBACK');
        } catch {
          /* no transaction is active */
        }
        throw error;
      }
    },
    close() {
      if (open) db.close();
      open = false;
    },
  };
}

function statement(db: NodeDatabaseSync, sql: string, mode: SqliteRowMode): SqliteStatement {
  return new NodeStatement(
    coded(() => db.prepare(sql)),
    mode,
  );
}

/** One prepared statement in one row mode; try/catch inline rather than a closure per call (the hot path). */
class NodeStatement implements SqliteStatement {
  private readonly shape?: (row: unknown) => unknown;

  constructor(
    private readonly s: NodeSqliteStatement,
    mode: SqliteRowMode,
  ) {
    if (mode === 'object') return;
    const arrays = typeof s.setReturnArrays === 'function';
    if (arrays) s.setReturnArrays!(true);
    // Without setReturnArrays (before Node 24), a row's values in column order: the store's SQL names each column once.
    const row = arrays ? (r: unknown) => r as unknown[] : (r: unknown) => Object.values(r as object) as unknown[];
    this.shape = mode === 'pluck' ? (r) => row(r)[0] : row;
  }

  run(...params: SqliteValue[]): { changes: number } {
    try {
      return { changes: Number(this.s.run(...params).changes) };
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  get(...params: SqliteValue[]): unknown {
    let row: unknown;
    try {
      row = this.s.get(...params);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return row === undefined || !this.shape ? row : this.shape(row);
  }

  all(...params: SqliteValue[]): unknown[] {
    let rows: unknown[];
    try {
      rows = this.s.all(...params);
    } catch (error) {
      throw withSqliteCode(error);
    }
    return this.shape ? rows.map(this.shape) : rows;
  }
}

function coded<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw withSqliteCode(error);
  }
}
