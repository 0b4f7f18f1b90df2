import { types } from 'node:util';
import { ToolwrightError } from '../errors/errors';

/**
 * A payload holds a value JSON cannot carry (a Map, a Set, a BigInt, a function, a symbol, a cycle…).
 * Its fingerprint would drop what makes it differ (every Map is `{}` to JSON), so two different
 * side effects could replay each other: refused before anything runs.
 */
export class IdempotencyPayloadError extends ToolwrightError {
  constructor(
    /** Where in the payload: `''` for the payload itself, `refund.items[2]`. */
    readonly path: string,
    /** What was found there: `Map`, `bigint`, `a cycle`. */
    readonly found: string,
  ) {
    super(
      'INVALID_PAYLOAD',
      `The idempotency payload holds ${found} at ${path === '' ? 'its top' : `"${path}"`}, which JSON cannot carry: ` +
        'its fingerprint would not tell different payloads apart. Pass plain JSON data (Object.fromEntries(map), [...set], ' +
        'String(bigint), a date as is or as its ISO string).',
      { captureStack: false },
    );
  }
}

/**
 * The payload as JSON text with object keys sorted: what `JSON.stringify` would write (Dates and
 * other `toJSON` values, boxed primitives, non-finite numbers as null, undefined properties left out),
 * key order aside. What JSON would lose or throw on is refused (IdempotencyPayloadError).
 */
export function canonicalJson(payload: unknown): string {
  return write(payload, '', '', new Set()) ?? 'null'; // no payload at all: as `null`, as before
}

/** JSON text of one value, or undefined where JSON writes nothing (an undefined property). */
function write(input: unknown, key: string, path: string, ancestors: Set<object>): string | undefined {
  let value = input;
  if ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  if (typeof value === 'object' && value !== null && types.isBoxedPrimitive(value)) value = unbox(value, path);
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      throw new IdempotencyPayloadError(path, 'a bigint');
    case 'symbol':
      throw new IdempotencyPayloadError(path, 'a symbol');
    case 'function':
      throw new IdempotencyPayloadError(path, 'a function');
  }
  if (value === null) return 'null';
  const object = value as object;
  const opaque = opaqueKind(object);
  if (opaque) throw new IdempotencyPayloadError(path, `a ${opaque}`);
  if (ancestors.has(object)) throw new IdempotencyPayloadError(path, 'a cycle');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      const items: string[] = [];
      for (let i = 0; i < object.length; i++) items.push(write(object[i], String(i), `${path}[${i}]`, ancestors) ?? 'null');
      return `[${items.join(',')}]`;
    }
    const record = object as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of Object.keys(record).sort(byCodeUnit)) {
      const text = write(record[k], k, path === '' ? k : `${path}.${k}`, ancestors);
      if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A Number, String or Boolean object is written as its primitive (as JSON does); a BigInt or Symbol object is refused. */
function unbox(value: object, path: string): unknown {
  if (types.isBigIntObject(value)) throw new IdempotencyPayloadError(path, 'a bigint');
  if (types.isSymbolObject(value)) throw new IdempotencyPayloadError(path, 'a symbol');
  return (value as { valueOf(): unknown }).valueOf();
}

/**
 * Built-in objects whose content JSON does not see (it writes `{}` for them, or only some indexes):
 * named, so the caller hears which one. A class instance is data, as JSON reads it (own enumerable properties).
 */
function opaqueKind(value: object): string | undefined {
  if (types.isMap(value)) return 'Map';
  if (types.isSet(value)) return 'Set';
  if (types.isWeakMap(value) || types.isWeakSet(value) || value instanceof WeakRef) return 'weak reference';
  if (types.isRegExp(value)) return 'RegExp';
  if (types.isNativeError(value) || value instanceof Error) return 'Error';
  if (types.isPromise(value)) return 'Promise';
  if (types.isAnyArrayBuffer(value) || types.isArrayBufferView(value)) return 'binary buffer';
  if (types.isGeneratorObject(value) || types.isMapIterator(value) || types.isSetIterator(value)) return 'iterator';
  if (types.isKeyObject(value) || types.isCryptoKey(value)) return 'key object';
  return undefined;
}
