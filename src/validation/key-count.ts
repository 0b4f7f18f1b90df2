import { TW } from '../metadata/schema-keywords';
import { scalarText } from './arguments';

/**
 * What one Ajv instance's counting keywords add up as a value is validated: `n`, how many times
 * `x-tw-count` ran; `keys`, `len`, what `x-tw-keys` counted. Each instance has its own, and
 * validation is synchronous: read them before and after one call.
 */
export interface Tally {
  n: number;
  keys: number;
  len: number;
}

export const newTally = (): Tally => ({ n: 0, keys: 0, len: 0 });

/**
 * The fewest characters a JSON text of `value` takes (see scalarText), for what `x-tw-keys` does
 * not count itself: an object is 0, its own `x-tw-keys` counts it.
 */
export function shortestText(value: unknown): number {
  if (!Array.isArray(value)) return scalarText(value);
  let n = 1; // `[]`, and a comma after every item but the last
  for (const item of value) n += 1 + shortestText(item);
  return n;
}

/** The shortest property name declared anywhere in a schema. */
export function shortestKey(schema: unknown): number {
  let min = Infinity;
  if (schema === null || typeof schema !== 'object') return min;
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' && value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) min = Math.min(min, key.length);
    }
    min = Math.min(min, shortestKey(value));
  }
  return min;
}

/**
 * Whether `x-tw-keys` counts each object of a valid value once: it appears only where the validator
 * goes once per object (through `properties`, `items` and `x-tw-nullable` around an optional property),
 * never under a branch Ajv may try and drop (`anyOf`, `not`…) nor behind a `$ref`, and no property
 * is named like a prototype-polluting key (those the key walk must see).
 */
export function countsEveryKey(schema: unknown, once: boolean): boolean {
  if (schema === null || typeof schema !== 'object') return true;
  if (Array.isArray(schema)) return schema.every((s) => countsEveryKey(s, false));
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$ref' || (keyword === TW.keys && !once)) return false;
    if (keyword === 'properties' && value !== null && typeof value === 'object') {
      if (Object.keys(value).some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype')) return false;
      if (!Object.values(value).every((s) => countsEveryKey(s, once))) return false;
    } else if (keyword === 'items' || keyword === TW.items || keyword === 'else' || keyword === TW.nullable) {
      if (!countsEveryKey(value, once)) return false;
    } else if (value !== null && typeof value === 'object' && !countsEveryKey(value, false)) {
      return false;
    }
  }
  return true;
}
