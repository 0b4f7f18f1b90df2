import type { SqliteValue } from './driver';

/** The parts of `node:sqlite` the driver uses (the project's @types/node, for Node 20, has none of it). */
export interface NodeSqliteStatement {
  run(...params: SqliteValue[]): { changes: number | bigint };
  get(...params: SqliteValue[]): unknown;
  all(...params: SqliteValue[]): unknown[];
  /** Node ≥ 24; without it, rows come as objects and the driver takes their values. */
  setReturnArrays?(enabled: boolean): void;
}

export interface NodeDatabaseSync {
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
  readonly isOpen?: boolean;
}

export interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeDatabaseSync;
}

/** node:sqlite ready to use, or why this Node cannot (for the error a user meets). */
export type NodeSqliteProbe = { module: NodeSqliteModule } | { missing: string };

let probe: NodeSqliteProbe | undefined;

/**
 * node:sqlite when this Node has it without a flag (22.13+, 23.4+, 24) and its SQLite has what the
 * store's schema needs (FTS5 with contentless_delete); probed once, on first use, so a Node
 * without it (20) never loads or warns about it.
 */
export function nodeSqlite(): NodeSqliteProbe {
  return (probe ??= probeNodeSqlite());
}

function probeNodeSqlite(): NodeSqliteProbe {
  const module = withoutSqliteWarning(loadBuiltin);
  if (!module?.DatabaseSync) return { missing: `Node ${process.version} has no node:sqlite without a flag (Node 22.13+ or 24 has it)` };
  let db: NodeDatabaseSync | undefined;
  try {
    db = new module.DatabaseSync(':memory:');
    db.exec("CREATE VIRTUAL TABLE probe USING fts5(words, content = '', contentless_delete = 1)");
    return { module };
  } catch (error) {
    return {
      missing: `the SQLite in Node ${process.version}'s node:sqlite lacks FTS5 with contentless_delete (${(error as Error).message})`,
    };
  } finally {
    db?.close();
  }
}

function loadBuiltin(): NodeSqliteModule | undefined {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  // getBuiltinModule answers undefined where the module is missing or flagged (Node 20.16+, 22.3+).
  if (typeof getBuiltin === 'function') return getBuiltin('node:sqlite') as NodeSqliteModule | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite') as NodeSqliteModule;
  } catch {
    return undefined;
  }
}

/**
 * Runs `load` with Node's one-time "SQLite is an experimental feature" ExperimentalWarning
 * dropped (Node 22 and early 24 print it on stderr when node:sqlite loads; the user did not ask
 * for node:sqlite, the default store did). Every other warning passes through.
 */
export function withoutSqliteWarning<T>(load: () => T): T {
  // Called on process and put back as it was (the same function), not a bound copy.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const original = process.emitWarning;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const name = typeof warning === 'string' ? type : warning.name;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (name === 'ExperimentalWarning' && /\bSQLite\b/.test(text)) return;
    Reflect.apply(original, process, [warning, ...rest]);
  };
  try {
    return load();
  } finally {
    process.emitWarning = original;
  }
}
