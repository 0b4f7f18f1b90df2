import { createHash } from 'node:crypto';
import { types } from 'node:util';
import fc from 'fast-check';
import { IdempotencyConflictError, IdempotencyLedger, IdempotencyPayloadError, payloadFingerprint } from 'toolwright';

/*
 * A payload's fingerprint is what JSON makes of it, key order aside: two payloads share one
 * exactly when their JSON texts (keys sorted) are equal. What JSON cannot carry is refused.
 */

/** The oracle: JSON.stringify itself, then the parsed value written again with sorted keys. */
function jsonOf(value: unknown): string {
  const sorted = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(sorted).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      return `{${Object.keys(record)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${sorted(record[k])}`)
        .join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return sorted(JSON.parse(JSON.stringify(value) ?? 'null'));
}

/** A class instance, as a tool's hydrated arguments are. */
class Args {
  note?: string;
}

// Small domains, so that random pairs are often equal after JSON and often differ by one detail (a date, a key).
const leaf = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -0, 1, 1.5, NaN, Infinity, '', 'a', '1970-01-01T00:00:00.000Z', undefined),
  fc.constantFrom(0, 1, 86_400_000, NaN).map((ms) => new Date(ms)),
  fc.constantFrom('a', 'b').map((s) => ({ toJSON: () => s })),
  fc.constantFrom<unknown>(Object(1), Object('a'), Object(false)),
);
const { value: payload } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown>; instance: Args }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object'), tie('instance')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  instance: fc.dictionary(fc.constantFrom('a', 'note'), tie('value'), { maxKeys: 2 }).map((d) => Object.assign(new Args(), d)),
}));

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object' || types.isBoxedPrimitive(value) || 'toJSON' in value) return value;
  const out = Object.create(Object.getPrototypeOf(value) as object) as Record<string, unknown>;
  for (const k of Object.keys(value).reverse()) out[k] = reversed((value as Record<string, unknown>)[k]);
  return out;
}

/** A value JSON writes the same: dates as their text, boxes and toJSON values unwrapped, classes as plain objects and back, keys reversed. */
function twin(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(twin);
  if (value === null || typeof value !== 'object') return value;
  if (types.isBoxedPrimitive(value)) return (value as { valueOf(): unknown }).valueOf();
  if ('toJSON' in value) return (value as { toJSON(): unknown }).toJSON();
  const out = (value instanceof Args ? { dropped: undefined } : new Args()) as Record<string, unknown>;
  for (const k of Object.keys(value).reverse()) out[k] = twin((value as Record<string, unknown>)[k]);
  return out;
}

/** The same value with its first valid date one millisecond later (a near miss), or as is when it has none. */
function nudged(value: unknown): unknown {
  let done = false;
  const walk = (v: unknown): unknown => {
    if (done || v === null || typeof v !== 'object') return v;
    if (v instanceof Date) {
      if (Number.isNaN(v.getTime())) return v;
      done = true;
      return new Date(v.getTime() + 1);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (types.isBoxedPrimitive(v) || 'toJSON' in v) return v;
    const out = Object.create(Object.getPrototypeOf(v) as object) as Record<string, unknown>;
    for (const k of Object.keys(v)) out[k] = walk((v as Record<string, unknown>)[k]);
    return out;
  };
  return walk(value);
}

/** Random pairs, JSON-equal twins, and near misses. */
const pairs = fc.oneof(
  fc.tuple(payload, payload),
  payload.map((a) => [a, twin(a)] as const),
  payload.map((a) => [twin(a), nudged(a)] as const),
);

describe('payloadFingerprint', () => {
  it('gives two payloads one fingerprint exactly when their JSON (keys sorted) is equal', () => {
    let equal = 0;
    let distinct = 0;
    fc.assert(
      fc.property(pairs, ([a, b]) => {
        const same = jsonOf(a) === jsonOf(b);
        if (same) equal++;
        else distinct++;
        expect(payloadFingerprint(a) === payloadFingerprint(b)).toBe(same);
      }),
      { seed: 2104, numRuns: 600 },
    );
    // Both sides of the equivalence were exercised.
    expect(equal).toBeGreaterThan(100);
    expect(distinct).toBeGreaterThan(100);
  });

  it('is unchanged by a JSON round trip and by key order', () => {
    fc.assert(
      fc.property(payload, (a) => {
        const fingerprint = payloadFingerprint(a);
        expect(payloadFingerprint(JSON.parse(JSON.stringify(a) ?? 'null'))).toBe(fingerprint);
        expect(payloadFingerprint(reversed(a))).toBe(fingerprint);
      }),
      { seed: 2105, numRuns: 300 },
    );
  });

  it('tells dates apart (each counts as its ISO text) and keeps plain JSON fingerprints as they were', () => {
    expect(payloadFingerprint({ at: new Date(0) })).not.toBe(payloadFingerprint({ at: new Date(1) }));
    expect(payloadFingerprint({ at: new Date(0) })).toBe(payloadFingerprint({ at: '1970-01-01T00:00:00.000Z' }));
    // Stored entries of plain payloads still match: the text hashed is the same as before.
    const digest = createHash('sha256').update('{"a":{"d":true},"b":[1,"x",null]}').digest('hex');
    expect(payloadFingerprint({ b: [1, 'x', null], a: { d: true, c: undefined } })).toBe(digest);
  });

  it.each<[string, () => unknown, string, string]>([
    ['a Map', () => ({ refund: new Map([['amount', 1]]) }), 'refund', 'a Map'],
    ['a Set', () => ({ items: [new Set([1])] }), 'items[0]', 'a Set'],
    ['a bigint', () => ({ cents: 10n }), 'cents', 'a bigint'],
    ['a BigInt object', () => ({ cents: Object(10n) as object }), 'cents', 'a bigint'],
    ['a function', () => ({ pay: () => 1 }), 'pay', 'a function'],
    ['a symbol', () => ({ tag: Symbol('t') }), 'tag', 'a symbol'],
    ['a RegExp', () => ({ pattern: /x/ }), 'pattern', 'a RegExp'],
    ['an Error', () => ({ cause: new Error('x') }), 'cause', 'a Error'],
    ['a typed array', () => ({ bytes: new Uint8Array([1]) }), 'bytes', 'a binary buffer'],
    ['a toJSON that returns a Map', () => ({ at: { toJSON: () => new Map() } }), 'at', 'a Map'],
    ['a Map at the top', () => new Map(), '', 'a Map'],
  ])('refuses %s, naming where it is', (_, make, path, found) => {
    let error: unknown;
    try {
      payloadFingerprint(make());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IdempotencyPayloadError);
    expect(error).toMatchObject({ code: 'INVALID_PAYLOAD', path, found });
  });

  it('refuses a cycle, but not one object reached twice', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => payloadFingerprint(cyclic)).toThrow(
      expect.objectContaining({ code: 'INVALID_PAYLOAD', path: 'self.back', found: 'a cycle' }),
    );
    const shared = { x: 1 };
    expect(payloadFingerprint({ a: shared, b: [shared] })).toBe(payloadFingerprint({ a: { x: 1 }, b: [{ x: 1 }] }));
  });
});

describe('IdempotencyLedger with dates and unsupported payloads', () => {
  it('refuses a key reused for a refund of another date, and replays the same date given as text', async () => {
    const ledger = new IdempotencyLedger<string>();
    const pay = jest.fn(() => 'paid');
    await ledger.once('k', { order: 'A', on: new Date('2024-05-01T00:00:00Z') }, pay);
    await expect(ledger.once('k', { order: 'A', on: new Date('2024-05-02T00:00:00Z') }, pay)).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
    expect(await ledger.once('k', { order: 'A', on: '2024-05-01T00:00:00.000Z' }, pay)).toEqual({ result: 'paid', replayed: true });
    expect(pay).toHaveBeenCalledTimes(1);
  });

  it('runs nothing for a payload it cannot fingerprint', async () => {
    const ledger = new IdempotencyLedger<string>();
    const pay = jest.fn(() => 'paid');
    await expect(ledger.once('k', { amounts: new Map([['A', 1]]) }, pay)).rejects.toBeInstanceOf(IdempotencyPayloadError);
    expect(pay).not.toHaveBeenCalled();
  });
});
