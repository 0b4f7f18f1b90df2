import 'reflect-metadata';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { ToolInputError, ToolRegistry, type JsonSchema, type ToolDefinition } from 'toolwright';

/*
 * Tools with a hand-written JSON Schema report every failing property in one answer, as tools
 * with an input class do: the same paths (`lines[0].sku`), the same bound (20 listed, the rest
 * counted). Oracle: Ajv itself with allErrors on the schema as written.
 */

function handWritten(name: string, parameters: JsonSchema) {
  return class {
    definition(): ToolDefinition {
      return { name, description: `${name} (hand-written schema)`, parameters };
    }
    execute(): string {
      return '{}';
    }
  };
}

async function inputError(registry: ToolRegistry, tool: string, args: unknown): Promise<ToolInputError | undefined> {
  return registry.call(tool, args as object).then(
    () => undefined,
    (e: unknown) => {
      expect(e).toBeInstanceOf(ToolInputError);
      return e as ToolInputError;
    },
  );
}

const upload: JsonSchema = {
  type: 'object',
  properties: {
    file_content: { type: 'string', maxLength: 8 },
    filename: { type: 'string', minLength: 1, maxLength: 255 },
  },
  required: ['file_content', 'filename'],
  additionalProperties: false,
};

const order: JsonSchema = {
  type: 'object',
  definitions: {
    Line: {
      type: 'object',
      properties: {
        sku: { type: 'string', minLength: 2 },
        qty: { type: 'integer', minimum: 1 },
        parts: { type: 'array', items: { $ref: '#/definitions/Line' } },
      },
      required: ['sku'],
      additionalProperties: false,
    },
  },
  properties: {
    ids: { type: 'array', items: { type: 'integer' } },
    lines: { type: 'array', items: { $ref: '#/definitions/Line' } },
    email: { type: 'string', format: 'email' },
  },
  required: ['ids'],
  additionalProperties: false,
};

const registry = ToolRegistry.build({ tools: [handWritten('upload', upload), handWritten('order', order)] });

describe('hand-written JSON Schema: every failing property, bounded', () => {
  test('two failing properties and an extra key: all three named in one answer', async () => {
    const error = await inputError(registry, 'upload', { file_content: 'far too long for eight', filename: '', extra: 1 });
    expect(error!.errors.map((e) => [e.path, e.constraint])).toEqual([
      ['extra', 'additionalProperties'],
      ['file_content', 'maxLength'],
      ['filename', 'minLength'],
    ]);
    expect(error!.omitted).toBe(0);
  });

  test('item schemas reached through $ref (recursive): nested paths as for classes', async () => {
    const error = await inputError(registry, 'order', {
      ids: [1, 'x'],
      lines: [{ sku: 'a', qty: 0, parts: [{ qty: 'z', extra: 1 }] }],
      email: 'nobody',
    });
    expect(new Set(error!.errors.map((e) => `${e.path} ${e.constraint}`))).toEqual(
      new Set([
        'ids[1] type',
        'lines[0].sku minLength',
        'lines[0].qty minimum',
        'lines[0].parts[0].sku required',
        'lines[0].parts[0].extra additionalProperties',
        'lines[0].parts[0].qty type',
        'email format',
      ]),
    );
  });

  test('200,000 wrong items (plain and through $ref): 20 listed, the rest counted, a small answer', async () => {
    for (const args of [
      { ids: Array.from({ length: 200_000 }, () => 'x') },
      { ids: [], lines: Array.from({ length: 200_000 }, () => ({})) }, // each misses `sku`
    ]) {
      const error = await inputError(registry, 'order', JSON.stringify(args));
      expect(error!.errors).toHaveLength(20);
      expect(error!.omitted).toBe(200_000 - 20);
      expect(error!.toToolResult().length).toBeLessThan(10_000);
    }
  });

  test('a schema with its own $id and a $ref into an items schema still answers', async () => {
    const refIntoItems = ToolRegistry.build({
      tools: [
        handWritten('tagged', {
          $id: 'https://example.test/tagged.json',
          type: 'object',
          properties: {
            a: { type: 'array', items: { type: 'string', minLength: 2 } },
            b: { $ref: '#/properties/a/items' },
          },
        }),
      ],
    });
    const error = await inputError(refIntoItems, 'tagged', { a: ['x'], b: 'y' });
    // The all-errors pass cannot follow a $ref into a rewritten `items`: the first error still answers.
    expect(error!.errors.length).toBeGreaterThanOrEqual(1);
    expect(['a[0]', 'b']).toContain(error!.errors[0].path);
    await expect(refIntoItems.call('tagged', { a: ['xy'], b: 'yz' })).resolves.toBe('{}');
  });
});

/** Ajv's allErrors on the schema as written, as `path constraint` strings in toolwright's path format. */
const oracle = new Ajv({ allErrors: true, strict: false, strictNumbers: true });
addFormats(oracle);

function toPath(e: ErrorObject): string {
  const parts = e.instancePath ? e.instancePath.slice(1).split('/') : [];
  if (e.keyword === 'required') parts.push((e.params as { missingProperty: string }).missingProperty);
  if (e.keyword === 'additionalProperties') parts.push((e.params as { additionalProperty: string }).additionalProperty);
  let path = '';
  for (const part of parts.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part;
  }
  return `${path} ${e.keyword}`;
}

/** Random hand-written schemas over the keywords models meet most, nested objects and arrays included. */
const leaf: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.record({ type: fc.constant('string' as const), minLength: fc.integer({ min: 0, max: 3 }), maxLength: fc.integer({ min: 2, max: 6 }) }),
  fc.record(
    { type: fc.constant('string' as const), pattern: fc.constantFrom('^[a-z]+$', '[0-9]'), format: fc.constantFrom('email', 'date') },
    {
      requiredKeys: ['type'],
    },
  ),
  fc.record(
    {
      type: fc.constantFrom('number' as const, 'integer' as const),
      minimum: fc.integer({ min: -2, max: 2 }),
      maximum: fc.integer({ min: 2, max: 9 }),
    },
    {
      requiredKeys: ['type'],
    },
  ),
  fc.record({ enum: fc.constant(['a', 'b', 1]) }),
  fc.record({ type: fc.constant('boolean' as const) }),
);
const schemas: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: JsonSchema; object: JsonSchema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('object'),
    fc.record(
      { type: fc.constant('array' as const), items: tie('node'), maxItems: fc.integer({ min: 2, max: 6 }) },
      { requiredKeys: ['type', 'items'] },
    ),
  ),
  object: fc
    .record(
      {
        props: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e/f'), tie('node'), { maxKeys: 4 }),
        required: fc.subarray(['a', 'b', 'c', 'd', 'e/f']),
        // The keywords that check every key beyond `properties` (one error per key in Ajv's allErrors).
        additional: fc.oneof(fc.boolean(), leaf, tie('object')),
        patterns: fc.dictionary(fc.constantFrom('^[a-c]', 'x', '/', '%'), tie('node'), { maxKeys: 2 }),
        names: fc.oneof(fc.constant(undefined), fc.record({ maxLength: fc.constant(1) }), fc.record({ pattern: fc.constant('^[a-d]') })),
      },
      { requiredKeys: ['props', 'required', 'additional'] },
    )
    .map(({ props, required, additional, patterns, names }) => ({
      type: 'object' as const,
      properties: props,
      required,
      additionalProperties: additional,
      ...(patterns && Object.keys(patterns).length ? { patternProperties: patterns } : {}),
      ...(names ? { propertyNames: names } : {}),
    })),
})).object;

/** Values that often fit a schema and often do not: the failing property sets are the interesting part. */
const values = fc.letrec<{ value: unknown; object: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('', 'a', 'ab', 'abc9', 'a@b.co', '2024-05-01', 'not an email', 0, -3, 1.5, 5, 12, true, null, 'b', 1),
    fc.array(tie('value'), { maxLength: 8 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e/f', 'x'), tie('value'), { maxKeys: 5 }),
})).object;

test('differential: for random hand-written schemas and values, the failing properties are Ajv allErrors’ own', async () => {
  await fc.assert(
    fc.asyncProperty(schemas, fc.array(values, { minLength: 1, maxLength: 8 }), async (schema, inputs) => {
      const tools = ToolRegistry.build({ tools: [handWritten('random', schema)] });
      const check = oracle.compile(schema);
      for (const input of inputs) {
        const error = await inputError(tools, 'random', input);
        if (check(input)) {
          expect(error).toBeUndefined();
          continue;
        }
        const expected = check.errors!.map(toPath);
        const got = error!.errors.map((e) => `${e.path} ${e.constraint}`);
        if (expected.length <= 20) {
          // Same errors (Ajv's order within an answer differs: one property at a time, then the rest).
          expect([...got].sort()).toEqual([...expected].sort());
          expect(error!.omitted).toBe(0);
        } else {
          expect(got).toHaveLength(20);
          for (const e of got) expect(expected).toContain(e);
          // Every failing top-level property is named before any property gets a second error.
          const tops = new Set(expected.map((e) => e.split(/[ .[]/)[0]));
          if (tops.size <= 20) expect(new Set(got.map((e) => e.split(/[ .[]/)[0]))).toEqual(tops);
        }
      }
    }),
    { seed: 8, numRuns: 150 },
  );
});
