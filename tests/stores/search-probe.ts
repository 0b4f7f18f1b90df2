import Database from 'better-sqlite3';
import { Client } from 'pg';
import { nodeSqlite } from '../../src/stores/sqlite/load-node-sqlite';

/** What one search asked of its backend: the distinct terms it looked up and the operands of each query it sent. */
export interface SearchWork {
  terms: number;
  operands: number[];
}

/**
 * Watches the search of every store at its backend's boundary while `run` runs: SQLite's per-term
 * vocabulary lookups and FTS5 MATCH expressions, PostgreSQL's terms parameter and re-ranking
 * tsquery, and the in-process index's prefix lookups (one per term, in-memory and Redis).
 */
export async function watchSearch(run: () => Promise<unknown>): Promise<SearchWork> {
  const work: SearchWork = { terms: 0, operands: [] };
  const { statements, map } = prototypes();
  const original = { atPrefix: map.atPrefix, query: Client.prototype.query as Method };
  const spies = [
    // Each SQLite driver's statements: better-sqlite3 names the SQL `source`, node:sqlite `sourceSQL`.
    ...statements.flatMap((statement) => {
      const get = statement.get;
      const all = statement.all;
      const sql = (s: { source?: string; sourceSQL?: string }) => s.source ?? s.sourceSQL ?? '';
      return [
        jest.spyOn(statement, 'get').mockImplementation(function (this: { source?: string; sourceSQL?: string }, ...args: unknown[]) {
          if (sql(this).includes('FROM memory_terms') && sql(this).includes('LIMIT 1')) work.terms++;
          return get.apply(this, args);
        }),
        jest.spyOn(statement, 'all').mockImplementation(function (this: { source?: string; sourceSQL?: string }, ...args: unknown[]) {
          if (sql(this).includes('MATCH')) work.operands.push(String(args[0]).split(' OR ').length);
          return all.apply(this, args);
        }),
      ];
    }),
    jest.spyOn(map, 'atPrefix').mockImplementation(function (this: unknown, ...args: unknown[]) {
      work.terms++;
      return original.atPrefix.apply(this, args);
    }),
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const [text, values] = args as [unknown, unknown[] | undefined];
      if (typeof text === 'string' && text.includes('unnest($4::text[])')) work.terms += (values![3] as string[]).length;
      if (typeof text === 'string' && text.startsWith("SELECT 'hit'")) work.operands.push(String(values![1]).split(' | ').length);
      return original.query.apply(this, args) as never;
    }),
  ];
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return work;
}

type Method = (...args: unknown[]) => unknown;

function prototypes(): { statements: Array<{ get: Method; all: Method }>; map: { atPrefix: Method } } {
  const db = new Database(':memory:');
  const statements = [Object.getPrototypeOf(db.prepare('SELECT 1')) as { get: Method; all: Method }];
  db.close();
  const node = nodeSqlite();
  if ('module' in node) {
    const nodeDb = new node.module.DatabaseSync(':memory:');
    statements.push(Object.getPrototypeOf(nodeDb.prepare('SELECT 1')) as { get: Method; all: Method });
    nodeDb.close();
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const SearchableMap = require('minisearch/SearchableMap') as { prototype: { atPrefix: Method } };
  return { statements, map: SearchableMap.prototype };
}
