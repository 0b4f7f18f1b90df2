import * as sjson from 'secure-json-parse';
import { ToolInputError, type FieldError } from '../errors/errors';

export interface ArgumentLimits {
  /** Longest argument string accepted, in characters (default 1,000,000). */
  maxLength: number;
  /** Deepest nesting of objects and arrays accepted (default 64). */
  maxDepth: number;
}

export const DEFAULT_LIMITS: ArgumentLimits = { maxLength: 1_000_000, maxDepth: 64 };

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'];

/**
 * The model's arguments as a plain object, or a ToolInputError. Strings are parsed by JSON.parse
 * and refused with secure-json-parse's rule: no `__proto__` and no `constructor.prototype` keys
 * (JSON.parse keeps them as own properties for later code to trip over). Size and depth are
 * bounded before any work that grows with them. `checkDepth` is false where the schema itself
 * bounds the depth (closed classes without free-form objects): V8's JSON.parse is not recursive,
 * and Ajv rejects anything deeper than the classes at their first level.
 */
export function parseArguments(
  toolName: string,
  raw: unknown,
  limits: ArgumentLimits,
  checkDepth = true,
  /** false: the caller runs `checkKeys` on the text itself (after validating, with the validator's key count). */
  keys = true,
): Record<string, unknown> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > limits.maxLength) {
      throw invalid(toolName, {
        path: '',
        constraint: 'maxLength',
        message: `arguments must be at most ${limits.maxLength} characters (got ${raw.length})`,
      });
    }
    // A string of n characters cannot nest deeper than n/2: short payloads skip the scan.
    if (checkDepth && raw.length > 2 * limits.maxDepth && jsonDepth(raw) > limits.maxDepth) throw tooDeep(toolName, limits);
    try {
      value = JSON.parse(raw);
    } catch (error) {
      if (raw.trim() === '') return {}; // some local models send "" for a tool without parameters
      throw new ToolInputError('INVALID_JSON', toolName, [
        { path: '', constraint: 'isJson', message: `arguments are not valid JSON: ${(error as Error).message}` },
      ]);
    }
    if (keys && value !== null && typeof value === 'object') checkKeys(toolName, raw, value);
  } else if (value !== null && typeof value === 'object') {
    checkObject(toolName, value, limits);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(toolName, {
      path: '',
      constraint: 'isObject',
      message: `arguments must be a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    });
  }
  return value as Record<string, unknown>;
}

/**
 * Refuses prototype-polluting keys (secure-json-parse's rule) and, RFC 7493 (I-JSON), a key repeated
 * in one object of the JSON text `raw` parsed into `value`: two readers (an approver, the tool) may
 * see two values. `counted`: keys a validator counted on `value` while accepting it, never more than
 * it holds, and none of them prototype-polluting: as many as the text's colons proves both rules hold.
 * `floor` (a closed class's validator, see ClassValidation.textFloor): a text shorter than it repeats
 * no key, and a closed class holds no prototype-polluting one; no character of the text is read then.
 */
export function checkKeys(toolName: string, raw: string, value: object, counted?: number, floor?: number): void {
  if (counted !== undefined && ((floor !== undefined && raw.length < floor) || countColons(raw) === counted)) return;
  // One walk over the parsed keys refuses prototype-polluting keys (escaped spellings included: the
  // keys are decoded) and counts them, and the fewest characters their text takes, for the duplicate-key check.
  walked = 0;
  const keys = countKeys(value, 0, raw.length > LARGE_TEXT);
  if (keys === POLLUTING) throw forbiddenKey(toolName);
  if (Number.isNaN(keys)) secureParse(toolName, raw); // deeper than the walk goes: secure-json-parse decides
  // A repeated member adds `,"":0` at least: a shorter text repeats no key (the colons are not read).
  if (raw.length >= walked + 5 && countColons(raw) !== keys) {
    const duplicate = findDuplicateKey(raw);
    if (duplicate) {
      throw new ToolInputError('INVALID_JSON', toolName, [
        {
          path: duplicate.path,
          constraint: 'uniqueKeys',
          message: `arguments repeat the key ${JSON.stringify(duplicate.key)} in one object; send each key once (RFC 7493)`,
        },
      ]);
    }
  }
}

/** Every key of a JSON text is followed by a colon: as many colons as parsed keys means no key was repeated. */
function countColons(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) n++;
  return n;
}

/** What countKeys answers for a `__proto__` key, or a `constructor` key holding a `prototype`. */
const POLLUTING = -1;

/** The fewest characters the text of what countKeys walked takes (JSON-parsed values only; never more). */
let walked = 0;

/** Arguments this long may hold objects of many keys (see `enumerated`). */
export const LARGE_TEXT = 100_000;

/**
 * The keys of each object of more than 1,000 keys the key walk met, for the all-errors report to
 * reuse: V8 lists the keys of such an object (a dictionary) by collecting and sorting them all, about
 * as slow per key as JSON.parse reading them, however early the loop stops.
 */
export const enumerated = new WeakMap<object, readonly string[]>();

/**
 * The fewest characters a JSON text of a string, number, boolean or null takes: escapes and
 * whitespace only add some; a number takes a digit, two past 9, three with a fraction or a
 * negative exponent, one more if negative. Objects and arrays: 0 (their walkers count them).
 */
export function scalarText(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return (value < 0 ? 1 : 0) + (Number.isInteger(value) ? (value > -10 && value < 10 ? 1 : 2) : 3);
    case 'boolean':
      return value ? 4 : 5;
    default:
      return value === null ? 4 : 0;
  }
}

/**
 * Keys of a parsed value, all levels; POLLUTING for a prototype-polluting key; NaN past 64 levels (the
 * iterative scan decides then). `large`: list the keys of each object once and keep long lists in `enumerated`.
 */
function countKeys(value: object, depth: number, large: boolean): number {
  if (depth > 64) return NaN;
  let n = 0;
  walked += 1; // `{}` or `[]`, and a comma after every member or item but the last
  if (Array.isArray(value)) {
    for (const item of value) {
      walked += 1;
      if (item === null || typeof item !== 'object') {
        walked += scalarText(item);
        continue;
      }
      const inner = countKeys(item as object, depth + 1, large);
      if (inner === POLLUTING) return POLLUTING;
      n += inner;
    }
    return n;
  }
  const keys = large ? Object.keys(value) : undefined;
  if (keys !== undefined && keys.length > 1000) enumerated.set(value, keys);
  for (const key of keys ?? []) {
    const inner = countMember(value as Record<string, unknown>, key, depth, large);
    if (inner === POLLUTING) return POLLUTING;
    n += inner;
  }
  if (keys === undefined) {
    for (const key in value) {
      const inner = countMember(value as Record<string, unknown>, key, depth, large);
      if (inner === POLLUTING) return POLLUTING;
      n += inner;
    }
  }
  return n;
}

/** One member for countKeys: 1 and the keys below it, or POLLUTING. */
function countMember(value: Record<string, unknown>, key: string, depth: number, large: boolean): number {
  const child = value[key];
  walked += key.length + 4; // `"key":` and the comma
  if (child === null || typeof child !== 'object') {
    if (key === '__proto__') return POLLUTING;
    walked += scalarText(child);
    return 1;
  }
  if (key === '__proto__' || (key === 'constructor' && Object.prototype.hasOwnProperty.call(child, 'prototype'))) return POLLUTING;
  const inner = countKeys(child, depth + 1, large);
  return inner === POLLUTING ? POLLUTING : 1 + inner;
}

/** secure-json-parse over the whole text, for values nested deeper than countKeys walks. */
function secureParse(toolName: string, raw: string): void {
  try {
    sjson.parse(raw, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (/forbidden prototype property/.test((error as Error).message)) throw forbiddenKey(toolName);
    throw error;
  }
}

/** The first key repeated within one object of a valid JSON text (colons inside strings made the count inconclusive). */
function findDuplicateKey(text: string): { key: string; path: string } | undefined {
  const stack: { keys: Set<string> | undefined; path: string; index: number }[] = [];
  let expectKey = false;
  let lastKey = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      let escaped = false;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 92) {
          escaped = true;
          j++;
        } else if (d === 34) break;
      }
      if (expectKey) {
        const top = stack[stack.length - 1];
        const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
        if (top.keys!.has(key)) return { key, path: top.path };
        top.keys!.add(key);
        lastKey = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      const top = stack[stack.length - 1];
      const path = !top ? '' : top.keys ? (top.path ? `${top.path}.${lastKey}` : lastKey) : `${top.path}[${top.index}]`;
      stack.push({ keys: c === 123 ? new Set() : undefined, path, index: 0 });
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      stack.pop();
      expectKey = false;
    } else if (c === 44) {
      const top = stack[stack.length - 1];
      expectKey = !!top?.keys;
      if (top && !top.keys) top.index++;
    }
  }
  return undefined;
}

/** Maximum nesting of `{`/`[` outside string literals; stops counting once it knows the answer is "too deep". */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Objects handed over directly (not JSON text): the same key and depth rules, iteratively. */
function checkObject(toolName: string, root: object, limits: ArgumentLimits): void {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > limits.maxDepth) throw tooDeep(toolName, limits);
    // A parser that assigned a `__proto__` key (a schema library's copy of JSON.parse's output) left its value as the
    // prototype, where validators and the tool read its keys as if they were sent. Classes' prototypes (Date, arrays) pass.
    const proto = Object.getPrototypeOf(node) as object | null;
    if (proto !== null && proto !== Object.prototype && typeof Object.getOwnPropertyDescriptor(proto, 'constructor')?.value !== 'function')
      throw forbiddenKey(toolName);
    const keys = Object.keys(node as object);
    if (keys.length > 1000 && !Array.isArray(node)) enumerated.set(node as object, keys); // for the all-errors report
    for (const key of keys) {
      if (FORBIDDEN.includes(key) && !Array.isArray(node)) throw forbiddenKey(toolName);
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
}

function invalid(toolName: string, error: FieldError): ToolInputError {
  return new ToolInputError('INVALID_ARGUMENTS', toolName, [error]);
}

function tooDeep(toolName: string, limits: ArgumentLimits): ToolInputError {
  return invalid(toolName, { path: '', constraint: 'maxDepth', message: `arguments must not nest deeper than ${limits.maxDepth} levels` });
}

function forbiddenKey(toolName: string): ToolInputError {
  return invalid(toolName, {
    path: '',
    constraint: 'forbiddenKey',
    message: 'arguments must not contain "__proto__", "constructor" or "prototype" keys',
  });
}
