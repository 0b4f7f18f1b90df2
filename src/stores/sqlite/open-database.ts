import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreCorruptError, StoreUnavailableError, ToolwrightError } from '../../errors/errors';
import type { SqliteConnection, SqliteDriverName } from './driver';
import { migrate } from './migrations';
import { claimFile } from './one-driver-per-file';
import { sqliteOpener } from './open-driver';

/**
 * Opens the file at `path` (creating its directory), in WAL mode, migrated; with the claim on the
 * file (see claimFile) to release when the connection closes. Errors say what to do.
 */
export function openDatabase(
  path: string,
  options: { driver?: SqliteDriverName; busyTimeoutMs?: number },
): { db: SqliteConnection; release: () => void } {
  const opener = sqliteOpener(options.driver);
  const release = claimFile(path, opener.driver);
  try {
    if (path !== ':memory:' && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
    const timeoutMs = options.busyTimeoutMs ?? 5000;
    const db = opener.open(path, timeoutMs);
    try {
      retryWhileBusy(timeoutMs, () => {
        if (path !== ':memory:') db.pragma('journal_mode = WAL');
        // WAL + NORMAL: a commit survives a process crash; only an OS crash may lose the last ones.
        db.pragma('synchronous = NORMAL');
        migrate(db);
      });
    } catch (err) {
      db.close();
      throw err;
    }
    return { db, release };
  } catch (err) {
    release();
    throw sqliteOpenError(path, err);
  }
}

const SQLITE_FIXES: Record<string, string> = {
  SQLITE_CANTOPEN: 'check that the directory exists and is writable, and that the path is not a directory',
  SQLITE_READONLY: 'give this process write access to the file and its directory (SQLite also writes -wal and -shm files beside it)',
  SQLITE_PERM: 'give this process write access to the file and its directory',
  SQLITE_BUSY: 'another process holds the write lock; raise busyTimeoutMs or stop the other writer',
  SQLITE_FULL: 'free disk space',
  EACCES: 'give this process write access to the directory',
  ENOTDIR: 'a part of the path is a file, not a directory; choose another path',
  EEXIST: 'a part of the path is a file, not a directory; choose another path',
};

/**
 * An error opening the file, with its absolute path and what to do. A damaged file is not
 * "unavailable" (retrying will not help): it gets STORE_CORRUPT.
 */
function sqliteOpenError(path: string, err: unknown): ToolwrightError {
  if (err instanceof ToolwrightError) return err;
  const where = path === ':memory:' || path.startsWith('file:') ? path : resolve(path);
  const code = sqliteCode(err);
  const reason = err instanceof Error ? err.message : String(err);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StoreCorruptError(
      'sqlite',
      `SQLite file ${where} is not a usable database (${code}: ${reason}). ` +
        'Restore it from a backup, or move it aside to start with an empty store; toolwright creates a new file when none exists.',
      err,
    );
  }
  const fix = SQLITE_FIXES[code] ?? SQLITE_FIXES[code.replace(/_[A-Z]+$/, '')];
  return new StoreUnavailableError(
    'sqlite',
    new Error(`cannot open ${where} (${code || 'error'}: ${reason})${fix ? `; ${fix}` : ''}`, { cause: err }),
  );
}

function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Switching a file to WAL needs it alone for a moment, and SQLite answers SQLITE_BUSY at once
 * (no busy handler) when another process opens it at the same instant: retry until the timeout.
 */
function retryWhileBusy(timeoutMs: number, open: () => void): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return open();
    } catch (err) {
      if (!String((err as { code?: string }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 40); // the drivers are synchronous: so is the wait
    }
  }
}
