/**
 * The seam between SqliteStore and the SQLite binding under it: only what the store uses.
 * Two drivers implement it, `node:sqlite` (built into Node ≥ 22.13, nothing to install) and
 * better-sqlite3 (a native module); both are synchronous, so the store reads the same either way.
 */

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

export const SQLITE_DRIVERS: readonly SqliteDriverName[] = ['node:sqlite', 'better-sqlite3'];

/** What a statement binds: positional `?` parameters only (the drivers differ on named ones). */
export type SqliteValue = string | number | bigint | null;

/**
 * How a prepared statement returns rows: objects keyed by column name, arrays in column order
 * (`raw`), or the first column's value alone (`pluck`).
 */
export type SqliteRowMode = 'object' | 'raw' | 'pluck';

export interface SqliteStatement {
  run(...params: SqliteValue[]): { changes: number };
  /** The first row in the statement's mode, or undefined when there is none. */
  get(...params: SqliteValue[]): unknown;
  all(...params: SqliteValue[]): unknown[];
}

/**
 * One open database. A failure is thrown as the driver's error with `code` set to SQLite's
 * name for it (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …) whichever driver raised it.
 */
export interface SqliteConnection {
  readonly driver: SqliteDriverName;
  prepare(sql: string, mode?: SqliteRowMode): SqliteStatement;
  /** Runs one or more statements that return nothing. */
  exec(sql: string): void;
  /** `PRAGMA <text>`; returns the first column of the first row (undefined when none). */
  pragma(text: string): unknown;
  /**
   * Runs `body` inside `BEGIN DEFERRED|IMMEDIATE … COMMIT`, rolled back when it throws.
   * Not nested: the store never opens a transaction inside another.
   */
  transaction<T>(mode: 'deferred' | 'immediate', body: () => T): T;
  /** Closes the database; a second close does nothing. */
  close(): void;
}
