import type Database from 'better-sqlite3';
import type { SqliteConnection, SqliteRowMode, SqliteStatement } from './driver';

/**
 * better-sqlite3 behind the driver seam. Its errors already carry SQLite's code names, its
 * statements already have the seam's shape (so they are returned as they are: no wrapper on the
 * hot path), and `timeout` is SQLite's busy timeout.
 */
export function openBetterSqlite3(Sqlite: typeof Database, path: string, busyTimeoutMs: number): SqliteConnection {
  const db = new Sqlite(path, { timeout: busyTimeoutMs });
  return {
    driver: 'better-sqlite3',
    prepare(sql: string, mode: SqliteRowMode = 'object'): SqliteStatement {
      const statement = db.prepare(sql);
      if (mode === 'raw') statement.raw();
      else if (mode === 'pluck') statement.pluck();
      return statement;
    },
    exec: (sql) => void db.exec(sql),
    pragma: (text) => db.pragma(text, { simple: true }),
    transaction: (mode, body) => db.transaction(body)[mode](),
    close: () => void db.close(),
  };
}
