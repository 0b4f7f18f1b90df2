import { resolve } from 'node:path';
import { ToolwrightConfigError } from '../../errors/errors';
import type { SqliteDriverName } from './driver';

/** The files this process's stores have open, by absolute path: on which driver, by how many stores. */
const held = new Map<string, { driver: SqliteDriverName; stores: number }>();

/**
 * Records that a store opens `path` on `driver`, refusing another driver for a file already open
 * here: node:sqlite and better-sqlite3 each carry their own copy of SQLite, and two copies in one
 * process do not see each other's POSIX locks (closing one's descriptor even drops the other's),
 * so their writes can corrupt the file (https://sqlite.org/howtocorrupt.html, 2.2.1). Separate
 * processes are safe: locks work between them. Returns the release, for close; calling it twice
 * releases once.
 */
export function claimFile(path: string, driver: SqliteDriverName): () => void {
  if (path === ':memory:') return () => undefined;
  const key = path.startsWith('file:') ? path : resolve(path);
  const entry = held.get(key);
  if (entry && entry.driver !== driver) {
    throw new ToolwrightConfigError(
      `SqliteStore: ${key} is already open in this process on driver '${entry.driver}', and this store uses '${driver}'. ` +
        'Two copies of SQLite in one process do not see each other’s locks and can corrupt the file: ' +
        `give both stores the same driver (driver: '${entry.driver}', or leave driver unset on both).`,
    );
  }
  if (entry) entry.stores++;
  else held.set(key, { driver, stores: 1 });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const e = held.get(key)!;
    if (--e.stores === 0) held.delete(key);
  };
}
