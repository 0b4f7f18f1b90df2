import { InvalidIdError } from '../errors/errors';

/**
 * What every store can keep as a key (an id, a state key): stores hold keys as UTF-8 text under a
 * unique index, so PostgreSQL refuses NUL, every backend turns a lone surrogate into U+FFFD (two
 * different keys becoming one), and PostgreSQL's btree entries cap at ~2.7 KB per key tuple.
 */

/** The longest key (in UTF-8 bytes) every store keeps and indexes. */
export const MAX_KEY_BYTES = 512;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why no store keeps `value` exactly as a key, or undefined. `lengthLimited` false: any length (a lookup, not an index entry). */
export function keyProblem(value: string, lengthLimited = true): string | undefined {
  if (LONE_SURROGATE.test(value)) return 'it contains a lone UTF-16 surrogate';
  if (value.includes('\u0000')) return 'it contains NUL';
  if (lengthLimited && value.length > MAX_KEY_BYTES / 3 && Buffer.byteLength(value, 'utf8') > MAX_KEY_BYTES)
    return `it is longer than ${MAX_KEY_BYTES} UTF-8 bytes`;
  return undefined;
}

const STATE_KEY_RULE = `Use a well-formed string without NUL, at most ${MAX_KEY_BYTES} UTF-8 bytes.`;

/**
 * Throws InvalidIdError for a state key no store keeps exactly, before anything is written: the
 * same verdict on every store. A key to delete may be of any length (a key stored before this
 * limit can still be forgotten); NUL and lone surrogates never name a stored key.
 */
export function checkStateKey(key: string, deleting = false): void {
  const problem = keyProblem(key, !deleting);
  if (problem) throw new InvalidIdError('state key', problem, STATE_KEY_RULE);
}
