import type { SqliteConnection, SqliteDriverName } from '../../src/stores/sqlite/driver';
import { sqliteOpener } from '../../src/stores/sqlite/open-driver';
import { nodeSqlite } from '../../src/stores/sqlite/load-node-sqlite';

/**
 * The SQLite drivers the running Node has, for tests that run once per driver: better-sqlite3
 * (a devDependency) everywhere, node:sqlite where Node has it (22.13+, 24). Rows are made only
 * for these, so no test is skipped; tests/stores/sqlite-driver.test.ts checks node:sqlite is
 * among them on the Nodes that must have it.
 */
export const SQLITE_DRIVERS_HERE: SqliteDriverName[] = ['module' in nodeSqlite() ? 'node:sqlite' : undefined, 'better-sqlite3'].filter(
  (d): d is SqliteDriverName => d !== undefined,
);

/** A file-name-safe form of a driver's name. */
export const driverSlug = (driver: SqliteDriverName) => driver.replace(/[^a-z0-9]+/g, '-');

/**
 * A plain connection to a store's file on the store's driver (one process must not mix drivers on
 * one file: two copies of SQLite do not see each other's locks), for a test to look at or damage it.
 */
export const openRaw = (driver: SqliteDriverName, path: string): SqliteConnection => sqliteOpener(driver).open(path, 5000);
