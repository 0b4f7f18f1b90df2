import { randomUUID } from 'node:crypto';
import type { SessionChanges, SessionKey } from '../../session/snapshots';
import { checkOwner, tenantOf, type EncodedSessionChanges } from '../snapshot-rows';
import type { SqliteRowMode, SqliteStatement } from './driver';

/** The store's prepared statement for a SQL text (cached per text and mode). */
export type Sql = (text: string, mode?: SqliteRowMode) => SqliteStatement;
/** The time in ms for TTLs. */
export type Clock = () => number;

export interface SessionMetaRow {
  id: number;
  user_id: string | null;
  user_input: string | null;
  pending_run: string | null;
  version: number;
  last_seq: number;
  expires_at: number | null;
  gen: string | null;
}

/** The row's generation (its id for a row created before generations) and its last message number, which only grows. */
export function historyMark(row: SessionMetaRow): string {
  return `${row.gen ?? `#${row.id}`}:${row.last_seq}`;
}

export function isExpired(row: SessionMetaRow, now: number): boolean {
  return row.expires_at !== null && row.expires_at <= now;
}

/** A session save's writes, inside the caller's transaction. */
export function writeSession(
  sql: Sql,
  clock: Clock,
  ttl: number | undefined,
  key: SessionKey,
  changes: SessionChanges,
  c: EncodedSessionChanges,
): number {
  const tenant = tenantOf(key);
  let row = sql('SELECT * FROM sessions WHERE tenant = ? AND session_id = ?').get(tenant, key.sessionId) as SessionMetaRow | undefined;
  if (row && isExpired(row, clock())) {
    deleteSessionRows(sql, row.id);
    row = undefined;
  }
  if (row) checkOwner(key, changes.owner, row.user_id);
  row ??= sql('INSERT INTO sessions (tenant, session_id, gen) VALUES (?, ?, ?) RETURNING *').get(
    tenant,
    key.sessionId,
    randomUUID(),
  ) as SessionMetaRow;
  const id = row.id;
  const del = sql('DELETE FROM session_state WHERE session_pk = ? AND key = ?');
  for (const k of c.deleted) del.run(id, k);
  const upsert = sql(
    'INSERT INTO session_state (session_pk, key, value) VALUES (?, ?, ?) ON CONFLICT (session_pk, key) DO UPDATE SET value = excluded.value',
  );
  for (const [k, v] of c.set) upsert.run(id, k, v);
  let seq = row.last_seq;
  if (c.replaced) sql('DELETE FROM session_messages WHERE session_pk = ?').run(id);
  const insert = sql('INSERT INTO session_messages (session_pk, seq, body) VALUES (?, ?, ?)');
  for (const body of [...(c.replaced ?? []), ...c.appended]) insert.run(id, ++seq, body);
  const updated = sql(
    `UPDATE sessions SET
         user_id = COALESCE(?, user_id),
         user_input = CASE WHEN ? THEN ? ELSE user_input END,
         pending_run = CASE WHEN ? THEN ? ELSE pending_run END,
         last_seq = ?, version = version + 1, expires_at = ?
       WHERE id = ? RETURNING version`,
    'pluck',
  ).get(
    c.userId ?? null,
    c.userInput !== undefined ? 1 : 0,
    c.userInput ?? null,
    c.pendingRun !== undefined ? 1 : 0,
    c.pendingRun ?? null,
    seq,
    ttl === undefined ? null : clock() + ttl * 1000,
    id,
  );
  return updated as number;
}

/** Deletes a session's rows: its state, its history, itself. */
export function deleteSessionRows(sql: Sql, id: number): void {
  sql('DELETE FROM session_state WHERE session_pk = ?').run(id);
  sql('DELETE FROM session_messages WHERE session_pk = ?').run(id);
  sql('DELETE FROM sessions WHERE id = ?').run(id);
}
