import { entryWords } from '../../session/memory-search';
import type { MemoryChanges, MemoryKey } from '../../session/snapshots';
import { tenantOf, type EncodedMemoryChanges } from '../snapshot-rows';
import { SCOPE_LEXEME } from './migrations';
import type { Queryable } from './transaction';

/** A memory save's statements, inside the caller's transaction. */
export async function writeMemory(
  db: Queryable,
  s: string,
  key: MemoryKey,
  changes: MemoryChanges,
  c: EncodedMemoryChanges,
): Promise<number> {
  const locked = await db.query(
    `INSERT INTO ${s}.memories (tenant, agent, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (tenant, agent, user_id) DO UPDATE SET tenant = EXCLUDED.tenant RETURNING id, last_seq`,
    [tenantOf(key), key.agentName, key.userId],
  );
  const row = locked.rows[0] as { id: string; last_seq: string };
  if (c.added.length) {
    const words = changes.added.map((e) => entryWords(e));
    await db.query(
      `INSERT INTO ${s}.memory_entries (memory_pk, seq, body, words)
           SELECT $1, $2::bigint + ord, body, to_tsvector('simple', w) || array_to_tsvector(ARRAY[${SCOPE_LEXEME('$1::bigint')}])
           FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(body, w, ord)`,
      [row.id, row.last_seq, c.added, words.map((w) => w.join(' '))],
    );
    await db.query(
      `INSERT INTO ${s}.memory_terms (memory_pk, term) SELECT DISTINCT $1::bigint, term FROM unnest($2::text[]) AS t(term)
           ON CONFLICT DO NOTHING`,
      [row.id, [...new Set(words.flat())]],
    );
  }
  const updated = await db.query(
    `UPDATE ${s}.memories SET summary = CASE WHEN $2 THEN $3 ELSE summary END,
           last_seq = last_seq + $4, version = version + 1 WHERE id = $1 RETURNING version`,
    [row.id, c.summary !== undefined, c.summary ?? null, c.added.length],
  );
  return Number((updated.rows[0] as { version: string }).version);
}
