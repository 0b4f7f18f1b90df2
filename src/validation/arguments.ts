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
 * The model's arguments as a plain object, or a ToolInputError. Strings are parsed with
 * secure-json-parse, which refuses `__proto__` and `constructor.prototype` keys (JSON.parse
 * alone would keep them as own properties for later code to trip over). Size and depth are
 * bounded before any work that grows with them. `checkDepth` is false where the schema itself
 * bounds the depth (closed classes without free-form objects): V8's JSON.parse is not recursive,
 * and Ajv rejects anything deeper than the classes at their first level.
 */
export function parseArguments(toolName: string, raw: unknown, limits: ArgumentLimits, checkDepth = true): Record<string, unknown> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > limits.maxLength) {
      throw invalid(toolName, { path: '', constraint: 'maxLength', message: `arguments must be at most ${limits.maxLength} characters (got ${raw.length})` });
    }
    // A string of n characters cannot nest deeper than n/2: short payloads skip the scan.
    if (checkDepth && raw.length > 2 * limits.maxDepth && jsonDepth(raw) > limits.maxDepth) throw tooDeep(toolName, limits);
    if (raw.trim() === '') return {}; // some local models send "" for a tool without parameters
    try {
      // Without these substrings no key can spell __proto__ or constructor (escaped or not): plain JSON.parse is safe.
      value = raw.includes('__proto__') || raw.includes('constructor') || raw.includes('\\u')
        ? sjson.parse(raw, undefined, { protoAction: 'error', constructorAction: 'error' })
        : JSON.parse(raw);
    } catch (error) {
      if (/forbidden prototype property/.test((error as Error).message)) throw forbiddenKey(toolName);
      throw new ToolInputError('INVALID_JSON', toolName, [{ path: '', constraint: 'isJson', message: `arguments are not valid JSON: ${(error as Error).message}` }]);
    }
  } else if (value !== null && typeof value === 'object') {
    checkObject(toolName, value, limits);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(toolName, { path: '', constraint: 'isObject', message: `arguments must be a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` });
  }
  return value as Record<string, unknown>;
}

/** Maximum nesting of `{`/`[` outside string literals; stops counting once it knows the answer is "too deep". */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
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
    for (const key of Object.keys(node as object)) {
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
  return invalid(toolName, { path: '', constraint: 'forbiddenKey', message: 'arguments must not contain "__proto__", "constructor" or "prototype" keys' });
}
