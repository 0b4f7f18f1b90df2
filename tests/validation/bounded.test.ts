import 'reflect-metadata';
import fc from 'fast-check';
import * as sjson from 'secure-json-parse';
import {
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Min,
  ValidateNested,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Type } from 'class-transformer';
import { Param, Tool, ToolInputError, ToolRegistry, type JsonSchema, type ToolDefinition, type ToolInterface } from 'toolwright';

/*
 * One reading of the JSON and a bounded answer: however many errors an input has, the model sees
 * at most 20 of them and a count of the rest; a key repeated in one object is refused (RFC 7493).
 */

@ValidatorConstraint({ name: 'short' })
class Short implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && value.length < 3;
  }
}

class Line {
  @Param() @IsString() sku!: string;
  @Param() @IsInt() @Min(1) qty!: number;
}

class OrderInput {
  @Param() @IsNumber() amount!: number;
  @Param({ type: () => [Number] }) @IsOptional() @IsInt({ each: true }) ids?: number[];
  @Param({ type: () => [Line] }) @IsOptional() @ValidateNested({ each: true }) @Type(() => Line) lines?: Line[];
  @Param() @IsOptional() @IsString() @Validate(Short) note?: string;
}

@Tool({ name: 'order', description: 'Place an order', input: OrderInput })
class OrderTool {
  execute(args: OrderInput): object {
    return { amount: args.amount };
  }
}

class HandWritten implements ToolInterface {
  definition(): ToolDefinition {
    return {
      name: 'hand',
      description: 'hand-written schema',
      parameters: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } }, required: ['ids'] },
    };
  }
  execute(): string {
    return '{}';
  }
}

const registry = ToolRegistry.build({ tools: [OrderTool, HandWritten] });

async function inputError(tool: string, args: string | object): Promise<ToolInputError> {
  const error = await registry.call(tool, args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolInputError);
  return error as ToolInputError;
}

class Part {
  @Param() @IsString() b!: string;
}

class Wide {
  @Param() @IsString() p1!: string;
  @Param() @IsString() p2!: string;
  @Param() @IsString() p3!: string;
  @Param() @IsString() p4!: string;
  @Param() @IsString() p5!: string;
  @Param() @IsString() p6!: string;
}

class Extra {
  @Param() @IsString() d!: string;
}

class SpreadInput {
  @Param({ type: () => [Part] }) @ValidateNested({ each: true }) @Type(() => Part) a!: Part[];
  @Param({ type: () => [Wide] }) @IsOptional() @ValidateNested({ each: true }) @Type(() => Wide) w?: Wide[];
  @Param({ type: () => [Extra] }) @ValidateNested({ each: true }) @Type(() => Extra) c!: Extra[];
}

@Tool({ name: 'spread', description: 'Errors in many places', input: SpreadInput })
class SpreadTool {
  execute(): object {
    return {};
  }
}

describe('a capped answer names every failing property before repeating one', () => {
  const spread = ToolRegistry.build({ tools: [SpreadTool] });
  const errorOf = (args: object) =>
    spread.call('spread', args).then(
      () => undefined,
      (e: unknown) => e as ToolInputError,
    );
  const c = [{ d: 1 }, { d: 'y' }, { d: 'z', extra: 1 }];

  test('30 failing items of a, and c[0].d and c[2].extra: each failing property is listed', async () => {
    const error = await errorOf({ a: Array.from({ length: 30 }, () => ({ b: 1 })), c });
    expect(error).toBeInstanceOf(ToolInputError);
    const paths = error!.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['a[0].b', 'c[0].d', 'c[2].extra']));
    expect(paths).toHaveLength(20);
    expect(paths.length + error!.omitted).toBe(32);
    // The rest are the repeats, in the order found.
    expect(paths.filter((p) => p.startsWith('a['))).toEqual(Array.from({ length: 18 }, (_, i) => `a[${i}].b`));
  });

  test('items failing six properties each (more errors than the validator reports) still leave c[2].extra listed', async () => {
    const wide = Array.from({ length: 30 }, () => ({ p1: 1, p2: 1, p3: 1, p4: 1, p5: 1, p6: 1 }));
    const error = await errorOf({ a: [], w: wide, c });
    expect(error).toBeInstanceOf(ToolInputError);
    const paths = error!.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['w[0].p1', 'w[0].p2', 'w[0].p6', 'c[0].d', 'c[2].extra']));
    expect(paths).toHaveLength(20);
    // Items past the 20th failing one are counted once each (see the array bound above), so at least one per item.
    expect(paths.length + error!.omitted).toBeGreaterThanOrEqual(30 + 2);
  });
});

describe('bounded error answers', () => {
  test('200,000 wrong array items: 20 errors listed, the rest counted, a small result', async () => {
    const args = JSON.stringify({ amount: 1, ids: Array.from({ length: 200_000 }, (_, i) => (i % 2 ? 'x' : 1.5)) });
    expect(args.length).toBeGreaterThan(400_000);
    const error = await inputError('order', args);
    expect(error.errors).toHaveLength(20);
    expect(error.errors[0]).toMatchObject({ path: 'ids[0]', constraint: 'isInt' });
    expect(error.omitted).toBe(200_000 - 20);
    const result = error.toToolResult();
    expect(result.length).toBeLessThan(10_000);
    expect(JSON.parse(result)).toMatchObject({ code: 'INVALID_ARGUMENTS', omitted: 199_980 });
  });

  test('wrong nested items and another failing property: both properties named, counts kept', async () => {
    const lines = Array.from({ length: 1000 }, () => ({ sku: 5, qty: 0 }));
    const error = await inputError('order', { amount: 'a lot', lines, note: 'far too long' });
    const paths = new Set(error.errors.map((e) => e.path.split(/[.[]/)[0]));
    expect(paths).toEqual(new Set(['amount', 'lines', 'note']));
    expect(error.errors.length).toBeLessThanOrEqual(20);
    expect(error.errors.length + error.omitted).toBeGreaterThanOrEqual(1000);
  });

  test('a hand-written schema: 20 errors listed, the rest counted', async () => {
    const error = await inputError('hand', { ids: Array.from({ length: 200_000 }, () => 'x') });
    expect(error.errors).toHaveLength(20);
    expect(error.errors[0].path).toBe('ids[0]');
    expect(error.omitted).toBe(200_000 - 20);
  });

  test('huge keys and messages are clipped in the answer', async () => {
    const key = 'k'.repeat(100_000);
    const error = await inputError('order', { amount: 1, [key]: 1 });
    expect(error.errors[0].constraint).toBe('whitelistValidation');
    expect(error.toToolResult().length).toBeLessThan(2_000);
  });

  test('any number of errors: listed ≤ 20, listed + omitted = found, result bounded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), async (badIds, badLines) => {
        const args = {
          amount: 1,
          ids: Array.from({ length: badIds }, () => 'x'),
          lines: Array.from({ length: badLines }, () => ({ sku: 'a', qty: 0 })),
        };
        if (badIds + badLines === 0) return;
        const error = await inputError('order', args);
        expect(error.errors.length).toBeLessThanOrEqual(20);
        expect(error.errors.length + error.omitted).toBe(badIds + badLines);
        expect(error.toToolResult().length).toBeLessThan(10_000);
      }),
      { seed: 42, numRuns: 60 },
    );
  });
});

test('arrays mixing good and wrong items: listed + omitted = the wrong ones, named in order (input class and JSON Schema)', async () => {
  const item = fc.oneof(fc.integer(), fc.constantFrom('x', 1.5, null, true));
  await fc.assert(
    fc.asyncProperty(fc.array(item, { maxLength: 120 }), fc.constantFrom('order', 'hand'), async (ids, tool) => {
      const wrong = ids.flatMap((v, i) => (Number.isInteger(v) ? [] : [i]));
      if (wrong.length === 0) return;
      const error = await inputError(tool, { amount: 1, ids });
      expect(error.errors.map((e) => e.path)).toEqual(wrong.slice(0, 20).map((i) => `ids[${i}]`));
      expect(error.errors.length + error.omitted).toBe(wrong.length);
    }),
    { seed: 20, numRuns: 100 },
  );
});

describe('200,000 keys beyond the schema: each keyword that checks every key answers 20 errors and a count', () => {
  const closed = (name: string, extra: Partial<JsonSchema>) =>
    class implements ToolInterface {
      definition(): ToolDefinition {
        return { name, description: name, parameters: { type: 'object', properties: { amount: { type: 'number' } }, ...extra } };
      }
      execute(): string {
        return '{}';
      }
    };
  const tools = ToolRegistry.build({
    tools: [
      OrderTool,
      closed('no_extra', { additionalProperties: false }),
      closed('extra_strings', { additionalProperties: { type: 'string' } }),
      closed('k_strings', { patternProperties: { '^k': { type: 'string' } } }),
      closed('short_names', { propertyNames: { maxLength: 3 } }),
    ],
    limits: { maxLength: 4_000_000 },
  });
  const args: Record<string, number> = { amount: 1 };
  for (let i = 0; i < 200_000; i++) args[`k${i}`] = i;
  const text = JSON.stringify(args);

  test.each([
    ['order', 'k0', 'whitelistValidation', 200_000 - 20],
    ['no_extra', 'k0', 'additionalProperties', 200_000 - 20],
    ['extra_strings', 'k0', 'type', 200_000 - 20],
    ['k_strings', 'k0', 'type', 200_000 - 20],
    // `amount` and every key from k100 on are longer than 3 characters: the first 20 such keys give two errors
    // each (propertyNames' and maxLength's), 20 of those 40 are listed; the other keys are counted, one per key.
    ['short_names', '', 'propertyNames', 20 + (1 + 200_000 - 100 - 20)],
  ])('%s: 20 listed, the rest counted, a small answer (text and object)', async (tool, path, constraint, omitted) => {
    for (const input of [text, args]) {
      const error = await tools.call(tool, input).then(
        () => undefined,
        (e: unknown) => e as ToolInputError,
      );
      expect(error).toBeInstanceOf(ToolInputError);
      expect(error!.errors).toHaveLength(20);
      expect(error!.errors[0]).toMatchObject({ path, constraint });
      expect(error!.toToolResult().length).toBeLessThan(10_000);
      expect(error!.omitted).toBe(omitted);
    }
  });
});

describe('duplicate keys (RFC 7493 I-JSON)', () => {
  test.each([
    ['{"amount":1,"amount":5000}', 'amount', ''],
    ['{"amount":1,"lines":[{"sku":"a","qty":1,"qty":2}]}', 'qty', 'lines[0]'],
    ['{"amount":1,"\\u0061mount":5000}', 'amount', ''],
    ['{"amount":1, "note":"a:b", "note":"c"}', 'note', ''],
    ['{"amount":1,"lines":[{"sku":"a","qty":1},{},{"sku":"b","sku":"c","qty":1}]}', 'sku', 'lines[2]'],
  ])('%s is refused naming %s', async (args, key, path) => {
    const error = await inputError('order', args);
    expect(error.code).toBe('INVALID_JSON');
    expect(error.errors).toEqual([{ path, constraint: 'uniqueKeys', message: expect.stringContaining(`"${key}"`) }]);
  });

  test.each([
    '{"amount":1,"note":"a:"}',
    '{"amount":1,"lines":[{"sku":"a","qty":1},{"sku":"a","qty":1}]}',
    '{"amount":1,"lines":[{"sku":"\\"qty\\":2","qty":1}]}',
    '{"amount":1,"lines":[{"sku":"a:{","qty":1}],"note":"x"}',
  ])('%s is accepted (same key in different objects, colons in strings)', async (args) => {
    await expect(registry.call('order', args)).resolves.toBe('{"amount":1}');
  });

  test('any JSON object: refused exactly when some object repeats a key', async () => {
    // Objects written as entry lists, so that repeated keys can be produced.
    const entries: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 0 }).map((v) => JSON.stringify(v)),
        tie('object'),
      ),
      object: fc
        .array(fc.tuple(fc.constantFrom('a', 'b', 'a:', '"', 'amount'), tie('value')), { maxLength: 4 })
        .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    })).object;
    // Reference: the texts are canonical (no spaces, values as JSON.stringify writes them, no integer-like keys),
    // so parsing and re-serializing changes a text exactly when a repeated key was merged away.
    const hasDuplicate = (text: string) => JSON.stringify(JSON.parse(text)) !== text;
    await fc.assert(
      fc.asyncProperty(entries, async (text) => {
        const error = await registry.call('hand', text).then(
          () => undefined,
          (e: unknown) => e as ToolInputError,
        );
        const refusedForDuplicate = error?.errors?.[0]?.constraint === 'uniqueKeys';
        expect(refusedForDuplicate).toBe(hasDuplicate(text));
      }),
      { seed: 7493, numRuns: 300 },
    );
  });
});

test('a closed input class, whose validator counts the keys it accepts: refused exactly as the key walk refuses', async () => {
  // Mostly valid `order` arguments (so the validator's count, not the walk, decides), written as entry
  // lists so that keys repeat, with colons and quotes inside strings and now and then a polluting key.
  const text = (pairs: [string, string][]) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  const str = fc.constantFrom('ab', 'a:', '"x":1', ':', '{"a":1}').map((v) => JSON.stringify(v));
  const polluting = fc.constantFrom<[string, string]>(['__proto__', '{}'], ['constructor', '{"prototype":{}}'], ['__proto__', '1']);
  const line = fc
    .array(fc.oneof(fc.tuple(fc.constant('sku'), str), fc.tuple(fc.constant('qty'), fc.constantFrom('1', '2'))), { maxLength: 3 })
    .chain((pairs) => fc.oneof({ weight: 9, arbitrary: fc.constant(pairs) }, { weight: 1, arbitrary: polluting.map((p) => [...pairs, p]) }))
    .map(text);
  const root = fc
    .array(
      fc.oneof(
        fc.tuple(fc.constant('amount'), fc.constantFrom('1', '2.5')),
        fc.tuple(
          fc.constant('ids'),
          fc.array(fc.constantFrom('1', '2'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
        ),
        fc.tuple(
          fc.constant('lines'),
          fc.array(line, { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
        ),
        fc.tuple(fc.constant('note'), str),
        polluting,
      ),
      { maxLength: 5 },
    )
    .map((pairs) => text([['amount', '1'], ...pairs]));
  await fc.assert(
    fc.asyncProperty(root, async (args) => {
      let pollutes = false;
      try {
        sjson.parse(args, undefined, { protoAction: 'error', constructorAction: 'error' });
      } catch {
        pollutes = true;
      }
      // Canonical texts: parsing and writing back changes one exactly when a repeated key was merged away.
      const repeats = JSON.stringify(JSON.parse(args)) !== args;
      const error = await registry.call('order', args).then(
        () => undefined,
        (e: unknown) => e as ToolInputError,
      );
      const constraint = error?.errors[0]?.constraint;
      expect(constraint === 'forbiddenKey').toBe(pollutes);
      expect(constraint === 'uniqueKeys').toBe(!pollutes && repeats);
    }),
    { seed: 8, numRuns: 400 },
  );
});

test('arguments past 100,000 characters (keys walked first, then the all-errors report decides): answered as short ones are', async () => {
  const ids = Array.from({ length: 60_000 }, (_, i) => i % 10);
  const big = JSON.stringify({ amount: 1, ids });
  expect(big.length).toBeGreaterThan(100_000);
  const refusal = (tool: string, args: string) =>
    registry.call(tool, args).then(
      () => undefined,
      (e: unknown) => (e as ToolInputError).errors[0],
    );
  await expect(registry.call('order', big)).resolves.toBe('{"amount":1}');
  await expect(registry.call('hand', big)).resolves.toBe('{}');
  for (const tool of ['order', 'hand']) {
    await expect(refusal(tool, big.replace('}', ',"amount":2}'))).resolves.toMatchObject({ constraint: 'uniqueKeys', path: '' });
    await expect(refusal(tool, big.replace('}', ',"__proto__":{"x":1}}'))).resolves.toMatchObject({ constraint: 'forbiddenKey' });
    await expect(refusal(tool, JSON.stringify({ amount: 1, ids: [...ids, 'x'] }))).resolves.toMatchObject({ path: 'ids[60000]' });
  }
  await expect(refusal('order', JSON.stringify({ amount: 'a', ids }))).resolves.toMatchObject({ path: 'amount', constraint: 'isNumber' });
});

class Spot {
  @Param() @IsOptional() @IsInt() x?: number;
  @Param() @IsOptional() @IsString() yy?: string;
}

class Compact {
  @Param() @IsOptional() @IsNumber() a?: number;
  @Param() @IsOptional() @IsString() bc?: string;
  @Param() @IsOptional() @IsBoolean() f?: boolean;
  @Param({ type: () => [Number] }) @IsOptional() @IsNumber({}, { each: true }) ns?: number[];
  @Param() @IsOptional() @ValidateNested() @Type(() => Spot) at?: Spot;
  @Param({ type: () => [Spot] }) @IsOptional() @ValidateNested({ each: true }) @Type(() => Spot) spots?: Spot[];
}

@Tool({ name: 'compact', description: 'Short keys', input: Compact })
class CompactTool {
  execute(args: Compact): object {
    return args;
  }
}

test('texts near their shortest spelling: a repeated key is refused whatever the spelling', async () => {
  // A text shorter than the fewest characters its value can be written in, plus one shortest repeated
  // member, repeats no key: summed by a closed class's validator on a valid call, by the key walk
  // otherwise (an empty key, undeclared, sends the call there). Texts with one-letter keys, one-digit
  // values, escapes, whitespace and other number spellings probe it from both sides. The generator
  // knows which objects repeat a key: that is the oracle, for the class and for a hand-written schema.
  const compact = ToolRegistry.build({ tools: [CompactTool] });
  // Mostly the shortest spelling (where a repeated member is hardest to tell from the floor), now and then a longer one.
  const often = <T>(tight: fc.Arbitrary<T>, loose: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 6, arbitrary: tight }, { weight: 1, arbitrary: loose });
  const gap = often(fc.constant(''), fc.constantFrom(' ', '\n'));
  const num = often(
    fc.constantFrom('1', '0', '7', '12', '-3', '0.5', '-0.5'),
    fc.constantFrom('-0', '1e1', '1E0', '10e-1', '5e-1', '-12.25', '123456789', '1e300'),
  );
  const str = often(fc.constantFrom('""', '"x"', '"a:b"'), fc.constantFrom('"\\u0078"', '"\\""'));
  type Member = [key: string, value: string];
  const object = (members: fc.Arbitrary<Member>) =>
    fc.tuple(fc.array(fc.tuple(members, gap, gap), { maxLength: 4 }), gap).map(([list, end]) => ({
      text: `{${list.map(([[k, v], g1, g2]) => `${g1}${k}:${g2}${v}`).join(',')}${end}}`,
      repeats: new Set(list.map(([[k]]) => JSON.parse(k) as string)).size < list.length,
    }));
  const key = (name: string) =>
    often(fc.constant(JSON.stringify(name)), fc.constant(`"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${name.slice(1)}"`));
  const spot = object(
    fc.oneof(fc.tuple(key('x'), often(fc.constantFrom('1', '-2', 'null'), fc.constant('1e1'))), fc.tuple(key('yy'), str)),
  );
  const array = <T extends { text: string; repeats: boolean }>(items: fc.Arbitrary<T>) =>
    fc
      .array(items, { maxLength: 3 })
      .map((list) => ({ text: `[${list.map((i) => i.text).join(',')}]`, repeats: list.some((i) => i.repeats) }));
  const plain = (value: fc.Arbitrary<string>) => value.map((text) => ({ text, repeats: false }));
  const member = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(key('a'), plain(num)) }, // `,"a":1`: the shortest repeated member a valid call has
    fc.tuple(fc.constant('""'), plain(num)), // `,"":1`: the shortest there is
    fc.tuple(key('bc'), plain(str)),
    fc.tuple(key('f'), plain(fc.constantFrom('true', 'false', 'null'))),
    fc.tuple(key('ns'), array(plain(num))),
    fc.tuple(key('at'), spot),
    fc.tuple(key('spots'), array(spot)),
  );
  const root = fc.tuple(fc.array(fc.tuple(member, gap), { maxLength: 5 }), gap).map(([list, end]) => ({
    text: `{${list.map(([[k, v], g]) => `${g}${k}:${v.text}`).join(',')}${end}}`,
    repeats: list.some(([[, v]]) => v.repeats) || new Set(list.map(([[k]]) => JSON.parse(k) as string)).size < list.length,
  }));
  await fc.assert(
    fc.asyncProperty(root, async ({ text, repeats }) => {
      const outcome = await compact.call('compact', text).then(
        (result) => JSON.parse(result) as unknown,
        (e: unknown) => e as ToolInputError,
      );
      const refused = outcome instanceof ToolInputError && outcome.errors[0]?.constraint === 'uniqueKeys';
      expect(refused).toBe(repeats);
      const hand = await registry.call('hand', text).then(
        () => undefined,
        (e: unknown) => e as ToolInputError,
      );
      expect(hand?.errors[0]?.constraint === 'uniqueKeys').toBe(repeats);
      // The tool gets what was sent (an optional property sent as null is left out; -0 is written as 0).
      const sent: unknown = JSON.parse(text, (_, v: unknown) => (v === null ? undefined : Object.is(v, -0) ? 0 : v));
      if (!(outcome instanceof ToolInputError)) expect(outcome).toEqual(sent);
    }),
    { seed: 7493, numRuns: 3000 },
  );
});

describe("prototype-polluting keys (secure-json-parse's rule, checked on the parsed keys)", () => {
  // JSON texts whose keys come from a small set of troublemakers, escaped spellings included.
  const texts: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('1', 'null', '"x"', '[]', '{}'),
      tie('object'),
      fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    ),
    object: fc
      .array(
        fc.tuple(
          fc.constantFrom('"__proto__"', '"\\u005f_proto__"', '"constructor"', '"construct\\u006fr"', '"prototype"', '"a"'),
          tie('value'),
        ),
        { maxLength: 3 },
      )
      .map((pairs) => `{${pairs.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  })).object;

  test('refused exactly when secure-json-parse refuses, at any depth', async () => {
    // 70 levels deep: past the key walk, so secure-json-parse itself decides (`order` bounds no depth: its class does).
    const deep = (inner: string) => '{"a":'.repeat(70) + inner + '}'.repeat(70);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          texts.map((t) => ['hand', t]),
          texts.map((t) => ['order', deep(t)]),
        ),
        async ([tool, text]) => {
          let pollutes = false;
          try {
            sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
          } catch {
            pollutes = true;
          }
          const error = await registry.call(tool, text).then(
            () => undefined,
            (e: unknown) => e as ToolInputError,
          );
          expect(error?.errors[0]?.constraint === 'forbiddenKey').toBe(pollutes);
        },
      ),
      { seed: 1, numRuns: 400 },
    );
  });
});
