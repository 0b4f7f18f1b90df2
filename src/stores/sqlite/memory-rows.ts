import { StoreUnavailableError } from '../../errors/errors';
import type { MemoryEntry, MemorySearchResult } from '../../session/memory-entry';
import { fuzzyDistance, fuzzyMatches, MEMORY_QUERY_LIMITS, queryTerms } from '../../session/memory-search';
import type { MemoryChanges, MemoryKey } from '../../session/snapshots';
import { tenantOf, type EncodedMemoryChanges } from '../snapshot-rows';
import { indexEntry, SCOPE } from './migrations';
import type { Sql } from './session-rows';

/** An FTS5 string literal: the term in double quotes (doubled inside). */
const ftsTerm = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** A memory save's writes, inside the caller's transaction. */
export function writeMemory(sql: Sql, key: MemoryKey, changes: MemoryChanges, c: EncodedMemoryChanges): number {
  const row = sql(
    `INSERT INTO memories (tenant, agent, user_id) VALUES (?, ?, ?)
       ON CONFLICT (tenant, agent, user_id) DO UPDATE SET version = version RETURNING id, last_seq`,
  ).get(tenantOf(key), key.agentName, key.userId) as { id: number; last_seq: number };
  let seq = row.last_seq;
  const insert = sql('INSERT INTO memory_entries (memory_pk, seq, body) VALUES (?, ?, ?)');
  const fts = sql('INSERT INTO memory_fts (rowid, words) VALUES (?, ?)');
  const term = sql('INSERT OR IGNORE INTO memory_terms (memory_pk, term) VALUES (?, ?)');
  for (let i = 0; i < c.added.length; i++) {
    insert.run(row.id, ++seq, c.added[i]);
    indexEntry(fts, term, row.id, seq, changes.added[i]);
  }
  return sql(
    `UPDATE memories SET summary = CASE WHEN ? THEN ? ELSE summary END, last_seq = ?, version = version + 1
       WHERE id = ? RETURNING version`,
    'pluck',
  ).get(c.summary !== undefined ? 1 : 0, c.summary ?? null, seq, row.id) as number;
}

/** Deletes memory `id` with its entries and its index rows. */
export function deleteMemoryRows(sql: Sql, id: number): void {
  // Its words go too: nothing of a deleted memory is found again.
  sql('DELETE FROM memory_fts WHERE rowid BETWEEN ? AND ?').run(BigInt(id) * SCOPE, BigInt(id) * SCOPE + SCOPE - 1n);
  sql('DELETE FROM memory_terms WHERE memory_pk = ?').run(id);
  sql('DELETE FROM memory_entries WHERE memory_pk = ?').run(id);
  sql('DELETE FROM memories WHERE id = ?').run(id);
}

/**
 * Each query term matches as a prefix (`"term"*`); a term that is no word's prefix in this
 * memory is replaced by the memory's words within its typo distance (as AgentMemory's fuzzy
 * 0.2). Ranked by FTS5's bm25, best first. Synchronous, like both drivers, so the query is
 * bounded (MEMORY_QUERY_LIMITS): at most 32 terms, 8 typo words each, 256 alternatives.
 */
export function searchScope(sql: Sql, pk: number, query: string, limit: number): MemorySearchResult[] {
  if (!query.trim() || limit <= 0) return [];
  try {
    const alternatives: string[] = [];
    for (const t of queryTerms(query)) {
      const next = sql('SELECT term FROM memory_terms WHERE memory_pk = ? AND term >= ? ORDER BY term LIMIT 1', 'pluck').get(pk, t) as
        string | undefined;
      if (next?.startsWith(t)) {
        alternatives.push(`${ftsTerm(t)}*`);
        continue;
      }
      const d = fuzzyDistance(t);
      if (d === 0) continue;
      const vocabulary = sql('SELECT term FROM memory_terms WHERE memory_pk = ? AND length(term) BETWEEN ? AND ?', 'pluck').all(
        pk,
        t.length - d,
        t.length + d,
      ) as string[];
      for (const w of fuzzyMatches(t, vocabulary)) alternatives.push(ftsTerm(w));
    }
    if (alternatives.length === 0) return [];
    // Already bounded (terms × expansions); the cut keeps it so whatever those limits become.
    alternatives.length = Math.min(alternatives.length, MEMORY_QUERY_LIMITS.operands);
    const base = BigInt(pk) * SCOPE;
    const rows = sql(
      // Rank in the index first; only the top rows' bodies are read.
      `SELECT e.body, f.rank FROM (
           SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rank LIMIT ?
         ) f JOIN memory_entries e ON e.memory_pk = ? AND e.seq = f.rowid - ? ORDER BY f.rank`,
      'raw',
    ).all(alternatives.join(' OR '), base, base + SCOPE - 1n, limit, pk, base) as Array<[string, number]>;
    return rows.map(([body, rank]) => ({ ...(JSON.parse(body) as MemoryEntry), score: -rank }));
  } catch (error) {
    throw new StoreUnavailableError('sqlite', error);
  }
}
