import type { ListPage, MemorySummary, SessionSummary } from '../store';
import { encodeCursor, type CheckedList } from '../list-page';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/*
 * Pages of a tenant's sessions and memories, read-only, in id order: each page is one index range
 * (UNIQUE (tenant, session_id), or sessions_by_user with a user) after the last row of the page
 * before, so a row stored throughout the paging is listed once. The message count comes from the
 * session row and its first history chunk (numbers are consecutive: a replace deletes them and goes on).
 */

export async function listSessionRows(query: Query, s: string, o: CheckedList<string[]>): Promise<ListPage<SessionSummary>> {
  const params: unknown[] = [o.tenant, o.after?.[0] ?? '', o.limit + 1];
  if (o.userId !== undefined) params.push(o.userId);
  const { rows } = await query(
    `SELECT s.session_id, s.user_id, s.version::text AS version, s.pending_run IS NOT NULL AND s.pending_run <> 'null' AS paused,
       COALESCE(s.last_seq - (SELECT min(first_seq) FROM ${s}.session_history h WHERE h.session_pk = s.id) + 1, 0)::text AS messages
     FROM ${s}.sessions s
     WHERE s.tenant = $1 ${o.userId === undefined ? '' : 'AND s.user_id = $4'} AND s.session_id > $2
       AND (s.expires_at IS NULL OR s.expires_at > now())
     ORDER BY s.session_id LIMIT $3`,
    params,
  );
  const items = (rows as Array<{ session_id: string; user_id: string | null; version: string; paused: boolean; messages: string }>)
    .slice(0, o.limit)
    .map((r) => {
      const summary: SessionSummary = {
        sessionId: r.session_id,
        version: Number(r.version),
        messages: Number(r.messages),
        paused: r.paused,
      };
      if (o.tenantId !== undefined) summary.tenantId = o.tenantId;
      if (r.user_id !== null) summary.userId = r.user_id;
      return summary;
    });
  return rows.length > o.limit ? { items, next: encodeCursor([items[items.length - 1].sessionId]) } : { items };
}

export async function listMemoryRows(query: Query, s: string, o: CheckedList<string[]>): Promise<ListPage<MemorySummary>> {
  const [agent, user] = o.after ?? ['', ''];
  // Entries are only appended (a memory is deleted whole): its last entry number is its count.
  const { rows } =
    o.userId === undefined
      ? await query(
          `SELECT agent, user_id, last_seq::text AS entries FROM ${s}.memories
           WHERE tenant = $1 AND (agent, user_id) > ($2, $3) ORDER BY agent, user_id LIMIT $4`,
          [o.tenant, agent, user, o.limit + 1],
        )
      : await query(
          `SELECT agent, user_id, last_seq::text AS entries FROM ${s}.memories
           WHERE tenant = $1 AND user_id = $2 AND agent > $3 ORDER BY agent LIMIT $4`,
          [o.tenant, o.userId, agent, o.limit + 1],
        );
  const items = (rows as Array<{ agent: string; user_id: string; entries: string }>).slice(0, o.limit).map((r) => {
    const summary: MemorySummary = { agentName: r.agent, userId: r.user_id, entries: Number(r.entries) };
    if (o.tenantId !== undefined) summary.tenantId = o.tenantId;
    return summary;
  });
  const last = items[items.length - 1];
  return rows.length > o.limit ? { items, next: encodeCursor([last.agentName, last.userId]) } : { items };
}
