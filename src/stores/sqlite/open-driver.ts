import type Database from 'better-sqlite3';
import { ToolwrightConfigError } from '../../errors/errors';
import { requirePeer } from '../../errors/optional-peer';
import { openBetterSqlite3 } from './better-sqlite3.driver';
import { SQLITE_DRIVERS, type SqliteConnection, type SqliteDriverName } from './driver';
import { nodeSqlite } from './load-node-sqlite';
import { openNodeSqlite } from './node-sqlite.driver';

/**
 * The driver a SqliteStore without a `driver` option runs on: the built-in node:sqlite where this
 * Node has it unflagged with FTS5 (Node 22.13+, 24), so nothing native is installed or built;
 * better-sqlite3 elsewhere (Node 20).
 */
export function defaultSqliteDriver(): SqliteDriverName {
  return 'module' in nodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

/** The `driver` option, checked when the store is made. */
export function checkSqliteDriver(driver: unknown): SqliteDriverName | undefined {
  if (driver === undefined || SQLITE_DRIVERS.includes(driver as SqliteDriverName)) return driver as SqliteDriverName | undefined;
  throw new ToolwrightConfigError(
    `SqliteStore driver must be ${SQLITE_DRIVERS.map((d) => `'${d}'`).join(' or ')} (or unset for this Node's default), got ${JSON.stringify(driver)}`,
  );
}

/**
 * How to open a database on the chosen driver (this Node's default when none): the driver is
 * loaded here, so a missing one fails typed, saying what to install or change, before anything
 * touches the file system.
 */
export interface SqliteOpener {
  driver: SqliteDriverName;
  open(path: string, busyTimeoutMs: number): SqliteConnection;
}

export function sqliteOpener(driver: SqliteDriverName | undefined): SqliteOpener {
  const name = driver ?? defaultSqliteDriver();
  if (name === 'node:sqlite') {
    const probe = nodeSqlite();
    if ('missing' in probe) {
      throw new ToolwrightConfigError(
        `SqliteStore driver 'node:sqlite' is not available: ${probe.missing}. ` +
          `Use driver: 'better-sqlite3' (${betterSqlite3Install()}), or leave driver unset.`,
      );
    }
    return { driver: name, open: (path, busyTimeoutMs) => openNodeSqlite(probe.module, path, busyTimeoutMs) };
  }
  const Sqlite = loadBetterSqlite3(driver !== undefined);
  return { driver: name, open: (path, busyTimeoutMs) => openBetterSqlite3(Sqlite, path, busyTimeoutMs) };
}

function loadBetterSqlite3(chosen: boolean): typeof Database {
  const probe = nodeSqlite();
  const builtin = 'module' in probe;
  return requirePeer<typeof Database>(
    'better-sqlite3',
    betterSqlite3Install(),
    chosen ? "SqliteStore with driver: 'better-sqlite3'" : 'SqliteStore (the default store)',
    [
      builtin
        ? 'Or leave driver unset: on this Node the store runs on the built-in node:sqlite, with nothing to install.'
        : `${probe.missing}; there the default store needs nothing installed.`,
      'Or pass another store: new InMemoryStore() (one process, nothing kept), RedisStore or PostgresStore.',
    ].join(' '),
  );
}

/** better-sqlite3 13 needs Node 22 or later; 12 runs on Node 20. */
function betterSqlite3Install(): string {
  return Number(process.versions.node.split('.')[0]) < 22 ? 'npm install better-sqlite3@12' : 'npm install better-sqlite3';
}
