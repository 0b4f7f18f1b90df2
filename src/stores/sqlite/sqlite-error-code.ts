/**
 * SQLite's result codes by number (https://sqlite.org/rescode.html), for node:sqlite, whose errors
 * carry the number (`errcode`) under `code: 'ERR_SQLITE_ERROR'`, while the store (and
 * better-sqlite3) speak the names: `SQLITE_BUSY`, `SQLITE_CORRUPT`, ….
 */
const PRIMARY = [
  'SQLITE_OK',
  'SQLITE_ERROR',
  'SQLITE_INTERNAL',
  'SQLITE_PERM',
  'SQLITE_ABORT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_READONLY',
  'SQLITE_INTERRUPT',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTFOUND',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_EMPTY',
  'SQLITE_SCHEMA',
  'SQLITE_TOOBIG',
  'SQLITE_CONSTRAINT',
  'SQLITE_MISMATCH',
  'SQLITE_MISUSE',
  'SQLITE_NOLFS',
  'SQLITE_AUTH',
  'SQLITE_FORMAT',
  'SQLITE_RANGE',
  'SQLITE_NOTADB',
  'SQLITE_NOTICE',
  'SQLITE_WARNING',
];

/** The extended codes the store's messages tell apart; any other reads as its primary code. */
const EXTENDED: Record<number, string> = {
  261: 'SQLITE_BUSY_RECOVERY',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
  267: 'SQLITE_CORRUPT_VTAB',
  523: 'SQLITE_CORRUPT_SEQUENCE',
  779: 'SQLITE_CORRUPT_INDEX',
  526: 'SQLITE_CANTOPEN_ISDIR',
  782: 'SQLITE_CANTOPEN_FULLPATH',
  1544: 'SQLITE_READONLY_DIRECTORY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
};

export function sqliteCodeName(errcode: number): string {
  return EXTENDED[errcode] ?? PRIMARY[errcode & 0xff] ?? `SQLITE_${errcode}`;
}

/**
 * Gives a node:sqlite error SQLite's name for it as `code` (the same object, so its message and
 * stack stay); any other error is returned as it is.
 */
export function withSqliteCode(error: unknown): unknown {
  const e = error as { code?: unknown; errcode?: unknown } | null;
  if (e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') e.code = sqliteCodeName(e.errcode);
  return error;
}
