import type { Pool } from 'pg';
import type { SessionKey } from '../../session/snapshots';
import { guard, stateFromEntries, tenantOf } from '../snapshot-rows';
import type { HistoryChunk } from './history-cache';

/**
 * One statement reads one snapshot: meta, state and history (the chunks holding messages after
 * `after`, or the last `limit` messages) cannot come from different turns. History is stored as
 * chunks, each the text of a JSON array's items (each body is a whole JSON value): one row and one
 * JSON.parse per chunk, where rows per message cost a row visit and a sort on the server (joined
 * at load) or a row, fields and strings in node-pg, and a text[] column is parsed per character.
 */
export async function readSession(
  pool: Pool,
  s: string,
  migrated: () => Promise<void>,
  key: SessionKey,
  limit: number | undefined,
  after: number,
) {
  const { rows } = await guard('postgres', async () => {
    await migrated();
    return pool.query<[number, string | null, string | null, string | null, string | null, string | null]>({
      text: `WITH s AS (SELECT id, user_id, user_input, pending_run, version, last_seq FROM ${s}.sessions
                          WHERE tenant = $1 AND session_id = $2 AND (expires_at IS NULL OR expires_at > now()))
               SELECT 0, user_id, user_input, pending_run, version::text, id::text FROM s
               UNION ALL SELECT 3, (SELECT min(first_seq) FROM ${s}.session_history h WHERE h.session_pk = s.id)::text, s.last_seq::text, NULL, NULL, NULL FROM s
               UNION ALL SELECT 1, st.key, st.value, NULL, NULL, NULL FROM ${s}.session_state st, s WHERE st.session_pk = s.id
               UNION ALL SELECT 2, h.items, h.first_seq::text, h.last_seq::text, NULL, NULL FROM ${s}.session_history h, s
                 WHERE h.session_pk = s.id AND h.last_seq > GREATEST($4, s.last_seq - COALESCE($3::bigint, s.last_seq))`,
      values: [tenantOf(key), key.sessionId, limit ?? null, after],
      rowMode: 'array',
    });
  });
  const meta = rows.find((r) => r[0] === 0);
  if (!meta) return undefined;
  const state: Array<[string, string]> = [];
  let chunks: HistoryChunk[] = [];
  let firstSeq: number | null = null;
  let lastSeq = '0';
  for (const r of rows) {
    if (r[0] === 1) state.push([r[1] as string, r[2] as string]);
    else if (r[0] === 2) chunks.push({ items: r[1] as string, first: Number(r[2]), last: Number(r[3]) });
    else if (r[0] === 3) {
      firstSeq = r[1] === null ? null : Number(r[1]);
      lastSeq = r[2] as string;
    }
  }
  chunks = chunks.sort((a, b) => a.first - b.first);
  return {
    pk: meta[5] as string,
    firstSeq,
    chunks,
    row: {
      userId: meta[1],
      state: stateFromEntries(state.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))),
      userInput: meta[2],
      pendingRun: meta[3],
      version: Number(meta[4]),
      // The row id (bigserial, never reused) and the last message number (only grows, also when the history is replaced).
      historyMark: `${meta[5] as string}:${lastSeq}`,
    },
  };
}
