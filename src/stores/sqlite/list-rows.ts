import type { ListPage, MemorySummary, SessionSummary } from '../store';
import { encodeCursor, type CheckedList } from '../list-page';
import type { Sql } from './session-rows';

/*
 * Pages of a tenant's sessions and memories, read-only, in id order: each page is one index range
 * (UNIQUE (tenant, session_id), or sessions_by_user with a user) after the last row of the page
 * before, so a row stored throughout the paging is listed once. Counts come from the owner row and
 * the first stored message (history numbers are consecutive: a replace deletes them all and goes on).
 */

const SESSION_COLUMNS = `SELECT s.session_id, s.user_id, s.version, s.pending_run IS NOT NULL AND s.pending_run <> 'null' AS paused,
    COALESCE(s.last_seq - (SELECT min(seq) FROM session_messages m WHERE m.session_pk = s.id) + 1, 0) AS messages
  FROM sessions s`;
const LIVE = '(s.expires_at IS NULL OR s.expires_at > ?)';

interface SessionListRow {
  session_id: string;
  user_id: string | null;
  version: number;
  paused: number;
  messages: number;
}

export function listSessionRows(sql: Sql, now: number, o: CheckedList<string[]>): ListPage<SessionSummary> {
  const after = o.after?.[0] ?? '';
  const rows = (
    o.userId === undefined
      ? sql(`${SESSION_COLUMNS} WHERE s.tenant = ? AND s.session_id > ? AND ${LIVE} ORDER BY s.session_id LIMIT ?`).all(
          o.tenant,
          after,
          now,
          o.limit + 1,
        )
      : sql(`${SESSION_COLUMNS} WHERE s.tenant = ? AND s.user_id = ? AND s.session_id > ? AND ${LIVE} ORDER BY s.session_id LIMIT ?`).all(
          o.tenant,
          o.userId,
          after,
          now,
          o.limit + 1,
        )
  ) as SessionListRow[];
  const items = rows.slice(0, o.limit).map((r) => {
    const summary: SessionSummary = {
      sessionId: r.session_id,
      version: Number(r.version),
      messages: Number(r.messages),
      paused: r.paused === 1,
    };
    if (o.tenantId !== undefined) summary.tenantId = o.tenantId;
    if (r.user_id !== null) summary.userId = r.user_id;
    return summary;
  });
  return rows.length > o.limit ? { items, next: encodeCursor([items[items.length - 1].sessionId]) } : { items };
}

export function listMemoryRows(sql: Sql, o: CheckedList<string[]>): ListPage<MemorySummary> {
  const [agent, user] = o.after ?? ['', ''];
  // Entries are only appended (a memory is deleted whole): its last entry number is its count.
  const rows = (
    o.userId === undefined
      ? sql(
          `SELECT agent, user_id, last_seq FROM memories WHERE tenant = ? AND (agent, user_id) > (?, ?) ORDER BY agent, user_id LIMIT ?`,
          'raw',
        ).all(o.tenant, agent, user, o.limit + 1)
      : sql(
          `SELECT agent, user_id, last_seq FROM memories WHERE tenant = ? AND user_id = ? AND agent > ? ORDER BY agent LIMIT ?`,
          'raw',
        ).all(o.tenant, o.userId, agent, o.limit + 1)
  ) as Array<[string, string, number]>;
  const items = rows.slice(0, o.limit).map(([agentName, userId, entries]) => {
    const summary: MemorySummary = { agentName, userId, entries: Number(entries) };
    if (o.tenantId !== undefined) summary.tenantId = o.tenantId;
    return summary;
  });
  const last = items[items.length - 1];
  return rows.length > o.limit ? { items, next: encodeCursor([last.agentName, last.userId]) } : { items };
}
