import type { Queryable } from './transaction';

/**
 * A history chunk takes messages while it holds fewer than HISTORY_CHUNK messages and
 * HISTORY_CHUNK_CHARS characters: a load reads one row per chunk, and an append rewrites at most
 * one chunk (the last) of bounded size.
 */
const HISTORY_CHUNK = 256;
const HISTORY_CHUNK_CHARS = 64 * 1024;

/**
 * Appends encoded messages to session `pk`'s history, whose last message is number `seq`. `tail`
 * is its last chunk as the save read it ([first, last, chars]), absent when the history was just
 * emptied: the last chunk takes what fits; the rest makes new chunks.
 */
export async function appendHistory(
  db: Queryable,
  s: string,
  pk: string,
  seq: number,
  tail: number[] | undefined,
  messages: readonly string[],
): Promise<void> {
  const open = tail && tail[1] === seq ? tail : undefined;
  const [more, ...rest] = chunkHistory(messages, open ? open[1] - open[0] + 1 : HISTORY_CHUNK, open ? open[2] : 0);
  let fresh = rest;
  let extended = 0;
  if (open && more.length) {
    const res = await db.query(
      `UPDATE ${s}.session_history SET items = items || ',' || $3, last_seq = $4 WHERE session_pk = $1 AND first_seq = $2`,
      [pk, open[0], more.join(','), seq + more.length],
    );
    // The tail was read with this statement's snapshot, taken before it waited for the row lock: a
    // save that emptied the history meanwhile (expired, replaced) deleted it. Then these start a chunk.
    if (res.rowCount === 1) extended = more.length;
    else fresh = [more, ...rest];
  }
  if (fresh.length) {
    const firsts: number[] = [];
    let next = seq + extended;
    for (const chunk of fresh) {
      firsts.push(next + 1);
      next += chunk.length;
    }
    await db.query(
      `INSERT INTO ${s}.session_history (session_pk, first_seq, last_seq, items)
         SELECT $1, f, f + n - 1, items FROM unnest($2::bigint[], $3::int[], $4::text[]) AS t(f, n, items)`,
      [pk, firsts, fresh.map((chunk) => chunk.length), fresh.map((chunk) => chunk.join(','))],
    );
  }
}

/**
 * Splits encoded messages into history chunks (see HISTORY_CHUNK): the first continues a last
 * chunk of `count` messages and `chars` characters (empty if that one is full), the rest are new.
 */
function chunkHistory(messages: readonly string[], count: number, chars: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  for (const m of messages) {
    if (count >= HISTORY_CHUNK || chars >= HISTORY_CHUNK_CHARS) {
      chunks.push(current);
      current = [];
      count = 0;
      chars = 0;
    }
    current.push(m);
    count++;
    chars += m.length + 1;
  }
  chunks.push(current);
  return chunks;
}
