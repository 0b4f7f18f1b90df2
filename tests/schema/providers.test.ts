import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { ToolDefinitionError } from '../../src/errors/errors';
import type { JsonSchema, ToolDefinition } from '../../src/metadata/json-schema';
import {
  OPENAI_STRICT_LIMITS,
  nullsToAbsent,
  toAnthropicTool,
  toGeminiFunctionDeclaration,
  toMcpTool,
  toOpenAITool,
  type GeminiSchema,
} from '../../src/schema/providers';

/** One definition exercising every shape the formats must carry. */
const customer: ToolDefinition = {
  name: 'create_customer',
  description: 'Create a customer record',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 80, pattern: '^\\D+$', description: 'Full name' },
      email: { type: 'string', format: 'email' },
      website: { type: 'string', format: 'uri', description: 'Home page' },
      age: { type: 'integer', minimum: 18, maximum: 130 },
      plan: { type: 'string', enum: ['free', 'pro', 'enterprise'], default: 'free' },
      kind: { type: 'string', const: 'person' },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 5, uniqueItems: true },
      address: {
        type: 'object',
        properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } },
        required: ['street', 'city'],
      },
      contacts: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, phone: { type: 'string' } }, required: ['name'] },
      },
      score: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, examples: [0.5] },
      nickname: { type: ['string', 'null'] },
    },
    required: ['name', 'email', 'kind', 'address'],
  },
};

const noArgs: ToolDefinition = { name: 'list_plans', description: 'List the plans', parameters: { type: 'object', properties: {} } };

function ajv() {
  const instance = new Ajv({ strict: false, allErrors: true });
  addFormats(instance);
  return instance;
}

describe('toOpenAITool', () => {
  it('passes the schema through unchanged without strict mode', () => {
    expect(toOpenAITool(customer)).toEqual({
      type: 'function',
      function: { name: 'create_customer', description: 'Create a customer record', parameters: customer.parameters },
    });
  });

  it('pins the strict-mode rewrite: all required, optional nullable, closed objects, unsupported keywords dropped', () => {
    expect(toOpenAITool(customer, { strict: true })).toEqual({
      type: 'function',
      function: {
        name: 'create_customer',
        description: 'Create a customer record',
        strict: true,
        parameters: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 80, pattern: '^\\D+$', description: 'Full name' },
            email: { type: 'string', format: 'email' },
            // `uri` is not a strict-mode format: kept as a hint for the model, enforced by our own validation.
            website: { type: ['string', 'null'], description: 'Home page (format: uri)' },
            age: { type: ['integer', 'null'], minimum: 18, maximum: 130 },
            // An enum restricts values whatever the type says, so null joins through anyOf.
            plan: { anyOf: [{ type: 'string', enum: ['free', 'pro', 'enterprise'], description: 'default: "free"' }, { type: 'null' }] },
            kind: { type: 'string', const: 'person' },
            tags: { type: ['array', 'null'], items: { type: 'string' }, maxItems: 5, description: 'items must be unique' },
            address: {
              type: 'object',
              properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: ['string', 'null'], pattern: '^\\d{5}$' } },
              required: ['street', 'city', 'zip'],
              additionalProperties: false,
            },
            contacts: {
              type: ['array', 'null'],
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, phone: { type: ['string', 'null'] } },
                required: ['name', 'phone'],
                additionalProperties: false,
              },
            },
            score: { type: ['number', 'null'], exclusiveMinimum: 0, exclusiveMaximum: 1 },
            nickname: { type: ['string', 'null'] },
          },
          required: ['name', 'email', 'website', 'age', 'plan', 'kind', 'tags', 'address', 'contacts', 'score', 'nickname'],
          additionalProperties: false,
        },
      },
    });
  });

  it('makes optional nested objects nullable through anyOf, and recurses into them', () => {
    const def: ToolDefinition = {
      name: 'ship',
      description: 'Ship an order',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string' },
          gift: {
            type: 'object',
            description: 'Gift options',
            properties: { message: { type: 'string' }, wrap: { type: 'string', enum: ['red', 'blue'] } },
            required: ['message'],
          },
        },
        required: ['order_id'],
      },
    };

    expect(toOpenAITool(def, { strict: true }).function.parameters).toEqual({
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        gift: {
          anyOf: [
            {
              type: 'object',
              description: 'Gift options',
              properties: {
                message: { type: 'string' },
                wrap: { anyOf: [{ type: 'string', enum: ['red', 'blue'] }, { type: 'null' }] },
              },
              required: ['message', 'wrap'],
              additionalProperties: false,
            },
            { type: 'null' },
          ],
        },
      },
      required: ['order_id', 'gift'],
      additionalProperties: false,
    });
  });

  it('rewrites oneOf to anyOf and merges allOf', () => {
    const def: ToolDefinition = {
      name: 'notify',
      description: 'Notify a user',
      parameters: {
        allOf: [
          { type: 'object', properties: { user_id: { type: 'string' } }, required: ['user_id'] },
          {
            type: 'object',
            properties: {
              channel: {
                oneOf: [
                  { type: 'string', const: 'email' },
                  { type: 'string', const: 'sms' },
                ],
              },
            },
          },
        ],
      },
    };

    expect(toOpenAITool(def, { strict: true }).function.parameters).toEqual({
      type: 'object',
      properties: {
        user_id: { type: 'string' },
        channel: { anyOf: [{ type: 'string', const: 'email' }, { type: 'string', const: 'sms' }, { type: 'null' }] },
      },
      required: ['user_id', 'channel'],
      additionalProperties: false,
    });
  });

  it('gives a tool without arguments an empty closed object', () => {
    expect(toOpenAITool({ ...noArgs, parameters: { type: 'object' } }, { strict: true }).function).toEqual({
      name: 'list_plans',
      description: 'List the plans',
      strict: true,
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    });
  });

  it('falls back to strict: false for a free-form object strict mode cannot express', () => {
    const def: ToolDefinition = {
      name: 'set_metadata',
      description: 'Attach metadata',
      parameters: {
        type: 'object',
        properties: { metadata: { type: 'object', additionalProperties: { type: 'string' } } },
        required: ['metadata'],
      },
    };

    expect(toOpenAITool(def, { strict: true }).function).toEqual({
      name: 'set_metadata',
      description: 'Attach metadata',
      strict: false,
      parameters: def.parameters,
    });
  });

  it('produces schemas the model output validates against, and nullsToAbsent maps it back to the original', () => {
    const strict = toOpenAITool(customer, { strict: true }).function.parameters;
    // What a strict-mode model writes: every key present, null for "absent".
    const modelOutput = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      website: null,
      age: null,
      plan: 'pro',
      kind: 'person',
      tags: null,
      address: { street: '1 Main St', city: 'London', zip: null },
      contacts: [
        { name: 'Charles', phone: null },
        { name: 'Mary', phone: '555-0100' },
      ],
      score: null,
      nickname: null,
    };

    const validator = ajv();
    expect(validator.validate(strict, modelOutput)).toBe(true);
    expect(validator.validate(customer.parameters, modelOutput)).toBe(false);

    const mapped = nullsToAbsent(customer.parameters, modelOutput);
    expect(mapped).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      plan: 'pro',
      kind: 'person',
      address: { street: '1 Main St', city: 'London' },
      contacts: [{ name: 'Charles' }, { name: 'Mary', phone: '555-0100' }],
      // `nickname` allowed null in the original schema, so its null is a real value.
      nickname: null,
    });
    expect(validator.validate(customer.parameters, mapped)).toBe(true);
  });

  it('never mutates the definition', () => {
    const before = structuredClone(customer);
    const tool = toOpenAITool(customer, { strict: true });
    (tool.function.parameters.properties!.plan.anyOf![0].enum as string[]).push('hacked');
    toGeminiFunctionDeclaration(customer);
    toAnthropicTool(customer).input_schema.properties!.name.minLength = 99;
    expect(customer).toEqual(before);
  });
});

describe('nullsToAbsent', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      note: { type: 'string' },
      items: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] },
      },
      gift: {
        anyOf: [
          { type: 'object', properties: { to: { type: 'string' }, message: { type: 'string' } }, required: ['to'] },
          { type: 'null' },
        ],
      },
    },
    required: ['id'],
  };

  it('removes nulls of optional properties at every depth, and keeps nulls of required ones for validation to reject', () => {
    expect(
      nullsToAbsent(schema, {
        id: null,
        note: null,
        items: [
          { sku: 'S-1', qty: null },
          { sku: null, qty: 2 },
        ],
        gift: { to: 'Ann', message: null },
      }),
    ).toEqual({ id: null, items: [{ sku: 'S-1' }, { sku: null, qty: 2 }], gift: { to: 'Ann' } });
  });

  it('keeps a null the original schema allows, and unknown keys untouched', () => {
    expect(nullsToAbsent(schema, { id: 'x', gift: null, extra: null })).toEqual({ id: 'x', gift: null, extra: null });
  });

  it('returns a copy, and treats __proto__ as a plain key', () => {
    const input = JSON.parse('{"id":"x","note":null,"__proto__":{"polluted":true}}');
    const out = nullsToAbsent(schema, input) as Record<string, unknown>;

    expect(input.note).toBeNull();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['id', '__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves non-object values alone', () => {
    expect(nullsToAbsent(schema, 'text')).toBe('text');
    expect(nullsToAbsent(schema, null)).toBeNull();
  });
});

describe('toAnthropicTool', () => {
  it('pins { name, description, input_schema } with the schema as written', () => {
    expect(toAnthropicTool(customer)).toEqual({
      name: 'create_customer',
      description: 'Create a customer record',
      input_schema: customer.parameters,
    });
    expect(toAnthropicTool(noArgs)).toEqual({
      name: 'list_plans',
      description: 'List the plans',
      input_schema: { type: 'object', properties: {} },
    });
  });
});

describe('toMcpTool', () => {
  it('pins { name, description, inputSchema, outputSchema }', () => {
    const outputSchema: JsonSchema = { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'] };
    expect(toMcpTool({ ...customer, outputSchema })).toEqual({
      name: 'create_customer',
      description: 'Create a customer record',
      inputSchema: customer.parameters,
      outputSchema,
    });
  });

  it('declares a union of object states as an object, and leaves out a non-object output', () => {
    const states: JsonSchema = {
      oneOf: [
        { type: 'object', properties: { status: { const: 'found' }, id: { type: 'string' } }, required: ['status', 'id'] },
        { type: 'object', properties: { status: { const: 'not_found' } }, required: ['status'] },
      ],
      discriminator: { propertyName: 'status' },
    };

    expect(toMcpTool({ ...noArgs, outputSchema: states }).outputSchema).toEqual({ ...states, type: 'object' });
    expect(toMcpTool({ ...noArgs, outputSchema: { type: 'string' } })).toEqual({
      name: 'list_plans',
      description: 'List the plans',
      inputSchema: { type: 'object', properties: {} },
    });
  });
});

describe('toGeminiFunctionDeclaration', () => {
  it("pins the rewrite into Gemini's OpenAPI subset", () => {
    expect(toGeminiFunctionDeclaration(customer)).toEqual({
      name: 'create_customer',
      description: 'Create a customer record',
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 80, pattern: '^\\D+$', description: 'Full name' },
          // Gemini acts only on `date-time` for strings; other formats become hints.
          email: { type: 'string', description: 'format: email' },
          website: { type: 'string', description: 'Home page (format: uri)' },
          age: { type: 'integer', minimum: 18, maximum: 130 },
          plan: { type: 'string', enum: ['free', 'pro', 'enterprise'], default: 'free' },
          kind: { type: 'string', enum: ['person'] },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 5, description: 'items must be unique' },
          address: {
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } },
            required: ['street', 'city'],
          },
          contacts: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' }, phone: { type: 'string' } }, required: ['name'] },
          },
          score: { type: 'number', example: 0.5, description: 'greater than 0; less than 1' },
          nickname: { type: 'string', nullable: true },
        },
        required: ['name', 'email', 'kind', 'address'],
      },
    });
  });

  it('turns integer exclusive bounds into inclusive ones, non-string enums into hints, and date-time stays', () => {
    const def: ToolDefinition = {
      name: 'book',
      description: 'Book a slot',
      parameters: {
        type: 'object',
        properties: {
          seats: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
          priority: { type: ['integer', 'null'], enum: [1, 2, 3, null] },
          at: { type: 'string', format: 'date-time' },
          meta: { type: 'object', properties: { source: { type: 'string' } }, additionalProperties: false },
        },
        required: ['seats', 'at'],
        additionalProperties: false,
      },
    };

    expect(toGeminiFunctionDeclaration(def).parameters).toEqual({
      type: 'object',
      properties: {
        seats: { type: 'integer', minimum: 1, maximum: 9, description: 'multiple of 2' },
        priority: { type: 'integer', nullable: true, description: 'one of: 1, 2, 3' },
        at: { type: 'string', format: 'date-time' },
        meta: { type: 'object', properties: { source: { type: 'string' } } },
      },
      required: ['seats', 'at'],
    });
  });

  it('rewrites oneOf/anyOf with null to nullable, merges allOf and inlines local $refs', () => {
    const def: ToolDefinition = {
      name: 'move',
      description: 'Move a parcel',
      parameters: {
        type: 'object',
        $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        allOf: [{ properties: { parcel_id: { type: 'string' } }, required: ['parcel_id'] }],
        properties: {
          to: { $ref: '#/$defs/Address', description: 'Destination' },
          via: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] },
          size: {
            oneOf: [
              { type: 'string', const: 'S' },
              { type: 'integer', minimum: 1 },
            ],
          },
        },
        required: ['to'],
      },
    };

    expect(toGeminiFunctionDeclaration(def).parameters).toEqual({
      type: 'object',
      properties: {
        parcel_id: { type: 'string' },
        to: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], description: 'Destination' },
        via: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], nullable: true },
        size: {
          anyOf: [
            { type: 'string', enum: ['S'] },
            { type: 'integer', minimum: 1 },
          ],
        },
      },
      required: ['to', 'parcel_id'],
    });
  });

  it('omits parameters for a tool without arguments (Gemini rejects an empty object schema)', () => {
    expect(toGeminiFunctionDeclaration(noArgs)).toEqual({ name: 'list_plans', description: 'List the plans' });
  });
});

// ---------------------------------------------------------------------------------------------
// Provider limits

/** A tool over the given parameters. */
const tool = (parameters: JsonSchema, name = 'limits_tool'): ToolDefinition => ({ name, description: 'Limits', parameters });

/** `levels` nested objects, the root included: { a: { a: { ... { leaf } } } }. */
function nested(levels: number): JsonSchema {
  let schema: JsonSchema = { type: 'object', properties: { leaf: { type: 'string' } }, required: ['leaf'] };
  for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'] };
  return schema;
}

/** `count` string properties spread over `groups` nested objects. */
function manyProperties(count: number, groups: number): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const perGroup = Math.ceil(count / groups);
  let left = count - groups; // each group object is itself a property
  for (let g = 0; g < groups; g++) {
    const inner: Record<string, JsonSchema> = {};
    for (let i = 0; i < perGroup && left > 0; i++, left--) inner[`p${i}`] = { type: 'string' };
    properties[`g${g}`] = { type: 'object', properties: inner };
  }
  return { type: 'object', properties };
}

function strictOutcome(def: ToolDefinition): { strict: boolean | undefined; reason?: string; parameters: JsonSchema } {
  let reason: string | undefined;
  const fn = toOpenAITool(def, { strict: true, onFallback: (why) => (reason = why) }).function;
  return { strict: fn.strict, reason, parameters: fn.parameters };
}

describe('OpenAI strict mode limits', () => {
  it('stays strict up to 10 levels of nesting and falls back, with the reason, beyond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 14 }), (levels) => {
        const outcome = strictOutcome(tool(nested(levels)));
        expect(outcome.strict).toBe(levels <= OPENAI_STRICT_LIMITS.maxNestingLevels);
        if (levels > 10) {
          expect(outcome.reason).toBe(`${levels} levels of object nesting; OpenAI strict mode allows at most 10`);
          expect(outcome.parameters).toEqual(nested(levels)); // the schema as written
        } else {
          expect(outcome.reason).toBeUndefined();
        }
      }),
      { seed: 81, numRuns: 30 },
    );
  });

  it('counts properties at every level: at most 5,000', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4_990, max: 5_010 }), fc.integer({ min: 1, max: 20 }), (count, groups) => {
        const outcome = strictOutcome(tool(manyProperties(count, groups)));
        expect(outcome.strict).toBe(count <= 5_000);
        if (count > 5_000) expect(outcome.reason).toBe(`${count} properties; OpenAI strict mode allows at most 5000`);
      }),
      { seed: 82, numRuns: 25 },
    );
  });

  it('counts enum values across all properties: at most 1,000', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 250 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const properties: Record<string, JsonSchema> = Object.fromEntries(
          sizes.map((size, p) => [`e${p}`, { type: 'string' as const, enum: Array.from({ length: size }, (_, i) => `v${i}`) }]),
        );
        const total = sizes.reduce((a, b) => a + b, 0);
        const outcome = strictOutcome(tool({ type: 'object', properties }));
        expect(outcome.strict).toBe(total <= 1_000);
        if (total > 1_000) expect(outcome.reason).toBe(`${total} enum values in all; OpenAI strict mode allows at most 1000`);
      }),
      { seed: 83, numRuns: 60 },
    );
  });

  it('allows a large enum (over 250 values) only while its values total at most 15,000 characters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 240, max: 262 }), fc.integer({ min: 50, max: 65 }), (count, length) => {
        const values = Array.from({ length: count }, (_, i) => String(i).padStart(length, 'x'));
        const parameters: JsonSchema = { type: 'object', properties: { choice: { type: 'string', enum: values } }, required: ['choice'] };
        const outcome = strictOutcome(tool(parameters));
        const over = count > 250 && count * length > 15_000;
        expect(outcome.strict).toBe(!over);
        if (over) expect(outcome.reason).toMatch(new RegExp(`^an enum of ${count} values totals ${count * length} characters`));
      }),
      { seed: 84, numRuns: 60 },
    );
  });

  it('keeps the 120,000-character budget of names and enum values', () => {
    const values = (p: number) => Array.from({ length: 240 }, (_, i) => `${p}-${i}`.padEnd(130, '.'));
    const properties: Record<string, JsonSchema> = {};
    for (let p = 0; p < 4; p++) properties[`e${p}`] = { type: 'string', enum: values(p) };
    // 960 values of 130 characters: under every other limit, over the character budget.
    const outcome = strictOutcome(tool({ type: 'object', properties }));
    expect(outcome.strict).toBe(false);
    expect(outcome.reason).toMatch(/^124808 characters of property names, definition names and enum\/const values/);
  });

  it('tells onFallback why a free-form object is sent non-strict', () => {
    const reasons: string[] = [];
    const def = tool({ type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] }, 'free_form');
    const onFallback = (reason: string, name: string) => reasons.push(`${name}: ${reason}`);
    expect(toOpenAITool(def, { strict: true, onFallback }).function.strict).toBe(false);
    expect(reasons).toEqual(['free_form: an object lists no properties (a free-form object), which strict mode cannot express']);
  });
});

/** Keywords Anthropic's strict tool use accepts (its SDK's transformJSONSchema keeps exactly these). */
const ANTHROPIC_STRICT_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'enum',
  'const',
  'anyOf',
  'allOf',
  '$ref',
  '$defs',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'format',
]);
const ANTHROPIC_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'];

/** Random schemas over the keywords toolwright generates (and a few it does not). */
const leafSchema: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string' as const),
      minLength: fc.nat(5),
      maxLength: fc.integer({ min: 5, max: 50 }),
      pattern: fc.constantFrom('^[a-z]+$', '\\d'),
      format: fc.constantFrom('email', 'uri', 'date-time', 'uuid', 'credit-card', 'regex'),
      description: fc.constantFrom('A text', 'Name'),
      default: fc.constant('x'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number' as const, 'integer' as const),
      minimum: fc.integer({ min: -5, max: 0 }),
      maximum: fc.integer({ min: 1, max: 9 }),
      exclusiveMinimum: fc.constant(-10),
      multipleOf: fc.constant(2),
    },
    { requiredKeys: ['type'] },
  ),
  fc.constant<JsonSchema>({ type: 'boolean' }),
  fc.constant<JsonSchema>({ type: ['string', 'null'] }),
  fc.constant<JsonSchema>({ type: 'string', enum: ['a', 'b'] }),
  fc.constant<JsonSchema>({ enum: [1, 2, null] }),
  fc.constant<JsonSchema>({ const: 'fixed' }),
);

const { schema: anySchema } = fc.letrec<{ schema: JsonSchema; object: JsonSchema; array: JsonSchema; union: JsonSchema }>((tie) => ({
  schema: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafSchema, tie('object'), tie('array'), tie('union')),
  object: fc
    .record({
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('schema'), { maxKeys: 4 }),
      required: fc.subarray(['a', 'b', 'c', 'd']),
      shape: fc.constantFrom('closed', 'open-unstated', 'free-form', 'empty'),
    })
    .map(({ properties, required, shape }): JsonSchema => {
      if (shape === 'free-form') return { type: 'object', additionalProperties: true };
      if (shape === 'empty') return { type: 'object', properties: {}, additionalProperties: false };
      const listed = required.filter((key) => key in properties);
      const closed = shape === 'closed' ? { additionalProperties: false } : {};
      return { type: 'object', properties, ...(listed.length ? { required: listed } : {}), ...closed };
    }),
  array: fc
    .record(
      { items: tie('schema'), minItems: fc.nat(3), maxItems: fc.integer({ min: 3, max: 9 }), uniqueItems: fc.boolean() },
      { requiredKeys: ['items'] },
    )
    .map((array): JsonSchema => ({ type: 'array', ...array })),
  union: fc
    .record({
      branches: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
      kind: fc.constantFrom('anyOf', 'oneOf'),
      nullable: fc.boolean(),
    })
    .map(({ branches, kind, nullable }): JsonSchema => ({ [kind]: nullable ? [...branches, { type: 'null' }] : branches })),
}));

const rootSchema: fc.Arbitrary<JsonSchema> = fc
  .record({
    properties: fc.dictionary(fc.constantFrom('p', 'q', 'r', 's'), anySchema, { minKeys: 1, maxKeys: 4 }),
    required: fc.subarray(['p', 'q', 'r', 's']),
  })
  .map(({ properties, required }) => ({ type: 'object', properties, required: required.filter((key) => key in properties) }));

/** Every (sub)schema of a schema, with where it is. */
function* walk(schema: JsonSchema, path = '#'): Generator<[JsonSchema, string]> {
  yield [schema, path];
  for (const [key, property] of Object.entries(schema.properties ?? {})) yield* walk(property, `${path}/properties/${key}`);
  if (schema.items) yield* walk(schema.items, `${path}/items`);
  // oneOf is walked as anyOf: the strict rewrite renames it.
  for (const [i, branch] of (schema.anyOf ?? schema.oneOf ?? []).entries()) yield* walk(branch, `${path}/anyOf/${i}`);
  const defs = (schema.$defs as Record<string, JsonSchema> | undefined) ?? {};
  for (const [key, definition] of Object.entries(defs)) yield* walk(definition, `${path}/$defs/${key}`);
}

/** Can strict tool use express this schema? (An object must list its properties and not accept others.) */
function anthropicExpressible(schema: JsonSchema): boolean {
  return [...walk(schema)].every(([s]) => {
    const object = s.type === 'object' || !!s.properties;
    if (object && (!s.properties || (s.additionalProperties !== undefined && s.additionalProperties !== false))) return false;
    return s.type !== undefined || s.enum !== undefined || s.const !== undefined || !!s.anyOf || !!s.oneOf;
  });
}

describe('toAnthropicTool with strict tool use', () => {
  it("pins the rewrite into Anthropic's strict subset: closed objects, required as written, other constraints as notes", () => {
    expect(toAnthropicTool(customer, { strict: true })).toEqual({
      name: 'create_customer',
      description: 'Create a customer record',
      strict: true,
      input_schema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Full name (minLength: 1; maxLength: 80; pattern: "^\\\\D+$")' },
          email: { type: 'string', format: 'email' },
          website: { type: 'string', format: 'uri', description: 'Home page' },
          age: { type: 'integer', description: 'minimum: 18; maximum: 130' },
          plan: { enum: ['free', 'pro', 'enterprise'], description: 'default: "free"' },
          kind: { const: 'person' },
          tags: { type: 'array', items: { type: 'string' }, description: 'maxItems: 5; uniqueItems: true' },
          address: {
            type: 'object',
            properties: {
              street: { type: 'string' },
              city: { type: 'string' },
              zip: { type: 'string', description: 'pattern: "^\\\\d{5}$"' },
            },
            required: ['street', 'city'],
            additionalProperties: false,
          },
          contacts: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, phone: { type: 'string' } },
              required: ['name'],
              additionalProperties: false,
            },
          },
          score: { type: 'number', description: 'exclusiveMinimum: 0; exclusiveMaximum: 1; examples: [0.5]' },
          nickname: { type: ['string', 'null'] },
        },
        required: ['name', 'email', 'kind', 'address'],
        additionalProperties: false,
      },
    });
  });

  it('leaves the non-strict format exactly as it was (no strict key)', () => {
    expect(toAnthropicTool(customer)).not.toHaveProperty('strict');
    expect(toAnthropicTool(customer, { strict: false })).toEqual(toAnthropicTool(customer));
  });

  it('keeps $defs and local $refs, merges allOf, turns oneOf into anyOf, and keeps minItems only at 0 or 1', () => {
    const def = tool({
      type: 'object',
      $defs: { city: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      properties: {
        from: { $ref: '#/$defs/city' },
        stops: { type: 'array', items: { $ref: '#/$defs/city' }, minItems: 1 },
        legs: { type: 'array', items: { type: 'integer' }, minItems: 2 },
        mode: { oneOf: [{ type: 'string', enum: ['air'] }, { type: 'null' }] },
        both: {
          allOf: [
            { type: 'object', properties: { x: { type: 'number' } } },
            { properties: { y: { type: 'number' } }, required: ['y'] },
          ],
        },
      },
    });
    expect(toAnthropicTool(def, { strict: true }).input_schema).toEqual({
      type: 'object',
      $defs: { city: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
      properties: {
        from: { $ref: '#/$defs/city' },
        stops: { type: 'array', items: { $ref: '#/$defs/city' }, minItems: 1 },
        legs: { type: 'array', items: { type: 'integer' }, description: 'minItems: 2' },
        mode: { anyOf: [{ enum: ['air'] }, { type: 'null' }] },
        both: {
          type: 'object',
          properties: { x: { type: 'number' }, y: { type: 'number' } },
          required: ['y'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
  });

  it.each([
    [
      'a free-form object',
      { meta: { type: 'object' } },
      'an object lists no properties (a free-form object), which strict tool use cannot express',
    ],
    [
      'an open map',
      { meta: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } },
      'an object accepts properties it does not list (additionalProperties), which strict tool use cannot express',
    ],
    [
      'a property without a type',
      { anything: { description: 'Any JSON' } },
      'a property has no type (nor enum, const or anyOf), which strict tool use requires',
    ],
  ] as [string, Record<string, JsonSchema>, string][])('falls back to strict: false, with the reason, for %s', (_, properties, reason) => {
    const def = tool({ type: 'object', properties });
    const reasons: string[] = [];
    expect(toAnthropicTool(def, { strict: true, onFallback: (why) => reasons.push(why) })).toEqual({
      name: def.name,
      description: def.description,
      input_schema: def.parameters,
      strict: false,
    });
    expect(reasons).toEqual([reason]);
  });

  it('falls back for a recursive schema, which strict tool use does not support', () => {
    const def = tool({
      type: 'object',
      $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
      properties: { tree: { $ref: '#/$defs/node' } },
    });
    const reasons: string[] = [];
    expect(toAnthropicTool(def, { strict: true, onFallback: (why) => reasons.push(why) }).strict).toBe(false);
    expect(reasons).toEqual(['"#/$defs/node" refers to itself (a recursive schema), which strict tool use cannot express']);
  });

  it('finds recursion through other definitions too', () => {
    const def = tool({
      type: 'object',
      $defs: {
        a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } },
        b: { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/$defs/a' } } } },
        leaf: { type: 'string' },
      },
      properties: { start: { $ref: '#/$defs/a' }, label: { $ref: '#/$defs/leaf' } },
    });
    const reasons: string[] = [];
    expect(toAnthropicTool(def, { strict: true, onFallback: (why) => reasons.push(why) }).strict).toBe(false);
    expect(reasons).toEqual(['"#/$defs/a" refers to itself (a recursive schema), which strict tool use cannot express']);
    // Definitions referring to each other without a cycle stay strict.
    const chain = tool({
      type: 'object',
      $defs: {
        a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } },
        b: { type: 'object', properties: { x: { type: 'string' } } },
      },
      properties: { start: { $ref: '#/$defs/a' }, again: { $ref: '#/$defs/b' } },
    });
    expect(toAnthropicTool(chain, { strict: true }).strict).toBe(true);
  });

  it('on random schemas: strict output uses only the published subset, objects closed, required unchanged; else the schema as is', () => {
    const validator = ajv();
    const seen = { strict: 0, fallback: 0 };
    fc.assert(
      fc.property(rootSchema, (parameters) => {
        const def = tool(parameters);
        const out = toAnthropicTool(def, { strict: true });
        expect(out.strict).toBe(anthropicExpressible(parameters));
        seen[out.strict ? 'strict' : 'fallback'] += 1;
        if (!out.strict) {
          expect(out.input_schema).toEqual(parameters);
          return;
        }
        expect(validator.validateSchema(out.input_schema)).toBe(true);
        const original = new Map([...walk(parameters)].map(([s, path]) => [path, s]));
        for (const [schema, path] of walk(out.input_schema)) {
          for (const keyword of Object.keys(schema)) {
            expect([path, keyword, ANTHROPIC_STRICT_KEYWORDS.has(keyword)]).toEqual([path, keyword, true]);
          }
          if (schema.format !== undefined) expect(ANTHROPIC_FORMATS).toContain(schema.format);
          if (schema.minItems !== undefined) expect([0, 1]).toContain(schema.minItems);
          if (schema.properties) expect(schema.additionalProperties).toBe(false);
          const before = original.get(path);
          if (before?.required) expect(schema.required).toEqual(before.required);
          // A dropped constraint is still told to the model.
          for (const keyword of ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'multipleOf', 'maxItems'] as const) {
            if (before?.[keyword] !== undefined) expect(schema.description).toContain(`${keyword}: ${JSON.stringify(before[keyword])}`);
          }
        }
      }),
      { seed: 85, numRuns: 300 },
    );
    // Both outcomes were exercised, so the property said something about each.
    expect(seen.strict).toBeGreaterThan(30);
    expect(seen.fallback).toBeGreaterThan(30);
  });
});

/** An OBJECT Gemini refuses: no properties, or an empty set of them. */
function emptyGeminiObjects(schema: GeminiSchema | undefined, path = 'parameters'): string[] {
  if (!schema) return [];
  const own = schema.type === 'object' && Object.keys(schema.properties ?? {}).length === 0 ? [path] : [];
  return [
    ...own,
    ...Object.entries(schema.properties ?? {}).flatMap(([key, p]) => emptyGeminiObjects(p, `${path}.${key}`)),
    ...emptyGeminiObjects(schema.items, `${path}[]`),
    ...(schema.anyOf ?? []).flatMap((branch, i) => emptyGeminiObjects(branch, `${path}|${i}`)),
  ];
}

describe('toGeminiFunctionDeclaration within what Gemini accepts', () => {
  it.each(['1password_lookup', '-lookup', '.hidden'])('refuses the function name %s, naming the tool and the fix', (name) => {
    const call = () => toGeminiFunctionDeclaration(tool({ type: 'object', properties: { q: { type: 'string' } } }, name));
    expect(call).toThrow(ToolDefinitionError);
    expect(call).toThrow(`Tool "${name}" cannot be declared to Gemini: a function name must start with a letter or an underscore`);
  });

  it('accepts names starting with a letter or an underscore', () => {
    expect(toGeminiFunctionDeclaration(tool({ type: 'object' }, '_internal')).name).toBe('_internal');
    expect(toGeminiFunctionDeclaration(tool({ type: 'object' }, 'Lookup-2')).name).toBe('Lookup-2');
  });

  it('leaves out optional free-form objects, empty nested classes and recursive references', () => {
    const def = tool({
      type: 'object',
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } },
      properties: {
        q: { type: 'string' },
        meta: { type: 'object', additionalProperties: true },
        options: { type: 'object', properties: {}, additionalProperties: false },
        tree: { $ref: '#/$defs/node' },
        filter: { type: 'object', properties: { raw: { type: 'object' } }, required: ['raw'] },
        either: { anyOf: [{ type: 'object' }, { type: 'string' }] },
      },
      required: ['q'],
    });
    expect(toGeminiFunctionDeclaration(def)).toEqual({
      name: 'limits_tool',
      description: 'Limits',
      parameters: { type: 'object', properties: { q: { type: 'string' }, either: { type: 'string' } }, required: ['q'] },
    });
  });

  it('declares no parameters when every parameter had to be left out', () => {
    expect(toGeminiFunctionDeclaration(tool({ type: 'object', properties: { meta: { type: 'object' } } }))).toEqual({
      name: 'limits_tool',
      description: 'Limits',
    });
  });

  it.each([
    ['a required free-form object', { meta: { type: 'object' } }, 'meta', 'a free-form object'],
    [
      'a required empty nested class',
      { options: { type: 'object', properties: {}, additionalProperties: false } },
      'options',
      'an object without properties',
    ],
    [
      'a free-form object inside a required one',
      { filter: { type: 'object', properties: { raw: { type: 'object' } }, required: ['raw'] } },
      'filter.raw',
      'a free-form object',
    ],
    ['an array of free-form objects', { rows: { type: 'array', items: { type: 'object' } } }, 'rows[]', 'a free-form object'],
  ] as [string, Record<string, JsonSchema>, string, string][])('fails clearly for %s', (_, properties, path, what) => {
    const def = tool({ type: 'object', properties, required: [Object.keys(properties)[0]] }, 'needs_object');
    const call = () => toGeminiFunctionDeclaration(def);
    expect(call).toThrow(ToolDefinitionError);
    expect(call).toThrow(`Tool "needs_object" cannot be declared to Gemini: its required parameter "${path}" is ${what}`);
    expect(call).toThrow(/List its properties .*make it optional .*or send this tool to another provider/);
  });

  it('on random schemas: never emits an OBJECT without properties; it fails with a ToolDefinitionError instead', () => {
    const seen = { declared: 0, refused: 0 };
    fc.assert(
      fc.property(rootSchema, (parameters) => {
        let declaration;
        try {
          declaration = toGeminiFunctionDeclaration(tool(parameters));
          seen.declared += 1;
        } catch (error) {
          seen.refused += 1;
          expect(error).toBeInstanceOf(ToolDefinitionError);
          expect((error as Error).message).toMatch(/^Tool "limits_tool" cannot be declared to Gemini: its required parameter "[^"]+" is /);
          return;
        }
        expect(emptyGeminiObjects(declaration.parameters)).toEqual([]);
        for (const key of declaration.parameters?.required ?? []) expect(declaration.parameters?.properties).toHaveProperty([key]);
      }),
      { seed: 86, numRuns: 300 },
    );
    expect(seen.declared).toBeGreaterThan(30);
    expect(seen.refused).toBeGreaterThan(30);
  });
});
