import type { SessionChanges, SessionKey } from '../../session/snapshots';
import { checkOwner, tenantOf, type EncodedSessionChanges } from '../snapshot-rows';
import { appendHistory } from './history-chunks';
import type { Queryable } from './transaction';

/** A session save's statements, inside the caller's transaction. */
export async function writeSession(
  db: Queryable,
  s: string,
  ttlSeconds: number | undefined,
  key: SessionKey,
  changes: SessionChanges,
  c: EncodedSessionChanges,
): Promise<number> {
  // Upsert-and-lock: ON CONFLICT DO UPDATE locks the row until commit, so concurrent saves of
  // this session queue here and each sees the previous one's last_seq.
  const locked = await db.query(
    `INSERT INTO ${s}.sessions AS t (tenant, session_id) VALUES ($1, $2)
         ON CONFLICT (tenant, session_id) DO UPDATE SET tenant = EXCLUDED.tenant
         RETURNING id, last_seq, user_id, (expires_at IS NOT NULL AND expires_at <= now()) AS expired, (xmax = 0) AS inserted,
           (SELECT ARRAY[first_seq, last_seq, length(items)]::text[] FROM ${s}.session_history h
             WHERE h.session_pk = t.id ORDER BY first_seq DESC LIMIT 1) AS tail`,
    [tenantOf(key), key.sessionId],
  );
  const row = locked.rows[0] as {
    id: string;
    last_seq: string;
    user_id: string | null;
    expired: boolean;
    inserted: boolean;
    tail: string[] | null;
  };
  // Rolled back with the transaction: the upsert above leaves nothing when the owner changed.
  if (!row.inserted && !row.expired) checkOwner(key, changes.owner, row.user_id);
  let seq = Number(row.last_seq);
  if (row.expired) {
    // Expired: the session starts over, as if it had been deleted.
    await clearSessionRows(db, s, row.id);
    await db.query(`UPDATE ${s}.sessions SET user_id = NULL, user_input = NULL, pending_run = NULL, version = 0 WHERE id = $1`, [row.id]);
  }
  if (c.deleted.length) {
    await db.query(`DELETE FROM ${s}.session_state WHERE session_pk = $1 AND key = ANY($2::text[])`, [row.id, c.deleted]);
  }
  if (c.set.length) {
    await db.query(
      `INSERT INTO ${s}.session_state (session_pk, key, value)
           SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS t(k, v)
           ON CONFLICT (session_pk, key) DO UPDATE SET value = EXCLUDED.value`,
      [row.id, c.set.map(([k]) => k), c.set.map(([, v]) => v)],
    );
  }
  if (c.replaced) await db.query(`DELETE FROM ${s}.session_history WHERE session_pk = $1`, [row.id]);
  const messages = [...(c.replaced ?? []), ...c.appended];
  if (messages.length) {
    const tail = row.tail && !row.expired && !c.replaced ? row.tail.map(Number) : undefined;
    await appendHistory(db, s, row.id, seq, tail, messages);
    seq += messages.length;
  }
  const updated = await db.query(
    `UPDATE ${s}.sessions SET
           user_id = COALESCE($2, user_id),
           user_input = CASE WHEN $3 THEN $4 ELSE user_input END,
           pending_run = CASE WHEN $5 THEN $6 ELSE pending_run END,
           last_seq = $7, version = version + 1,
           expires_at = CASE WHEN $8::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $8::float8) END
         WHERE id = $1 RETURNING version`,
    [
      row.id,
      c.userId ?? null,
      c.userInput !== undefined,
      c.userInput ?? null,
      c.pendingRun !== undefined,
      c.pendingRun ?? null,
      seq,
      ttlSeconds ?? null,
    ],
  );
  return Number((updated.rows[0] as { version: string }).version);
}

/** Claims session `key` for `userId` unless it has an owner (returned); an expired one starts over. */
export async function claimSessionRow(
  db: Queryable,
  s: string,
  ttlSeconds: number | undefined,
  key: SessionKey,
  userId: string | null,
): Promise<string | null> {
  // Insert-if-absent; on conflict the row is locked until commit, so a concurrent claim waits and then sees the owner.
  const { rows } = await db.query(
    `INSERT INTO ${s}.sessions (tenant, session_id, user_id, expires_at)
         VALUES ($1, $2, $3, CASE WHEN $4::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $4::float8) END)
         ON CONFLICT (tenant, session_id) DO UPDATE SET tenant = EXCLUDED.tenant
         RETURNING id, user_id, (expires_at IS NOT NULL AND expires_at <= now()) AS expired`,
    [tenantOf(key), key.sessionId, userId, ttlSeconds ?? null],
  );
  const row = rows[0] as { id: string; user_id: string | null; expired: boolean };
  if (!row.expired) return row.user_id;
  // Expired: the session starts over, owned by the claimant.
  await clearSessionRows(db, s, row.id);
  await db.query(
    `UPDATE ${s}.sessions SET user_id = $2, user_input = NULL, pending_run = NULL, version = 0,
           expires_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $3::float8) END
         WHERE id = $1`,
    [row.id, userId, ttlSeconds ?? null],
  );
  return userId;
}

/** Empties a session's state and history (it expired: it starts over). */
async function clearSessionRows(db: Queryable, s: string, pk: string): Promise<void> {
  await db.query(`DELETE FROM ${s}.session_state WHERE session_pk = $1`, [pk]);
  await db.query(`DELETE FROM ${s}.session_history WHERE session_pk = $1`, [pk]);
}
