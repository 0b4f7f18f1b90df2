import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema, ToolDefinition } from '../../src/schema/json-schema';
import {
  nullsToAbsent,
  toAnthropicTool,
  toGeminiFunctionDeclaration,
  toMcpTool,
  toOpenAITool,
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
          { type: 'object', properties: { channel: { oneOf: [{ type: 'string', const: 'email' }, { type: 'string', const: 'sms' }] } } },
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
      parameters: { type: 'object', properties: { metadata: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['metadata'] },
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
      contacts: [{ name: 'Charles', phone: null }, { name: 'Mary', phone: '555-0100' }],
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
      items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] } },
      gift: { anyOf: [{ type: 'object', properties: { to: { type: 'string' }, message: { type: 'string' } }, required: ['to'] }, { type: 'null' }] },
    },
    required: ['id'],
  };

  it('removes nulls of optional properties at every depth, and keeps nulls of required ones for validation to reject', () => {
    expect(
      nullsToAbsent(schema, {
        id: null,
        note: null,
        items: [{ sku: 'S-1', qty: null }, { sku: null, qty: 2 }],
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
    expect(toAnthropicTool(noArgs)).toEqual({ name: 'list_plans', description: 'List the plans', input_schema: { type: 'object', properties: {} } });
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
          size: { oneOf: [{ type: 'string', const: 'S' }, { type: 'integer', minimum: 1 }] },
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
        size: { anyOf: [{ type: 'string', enum: ['S'] }, { type: 'integer', minimum: 1 }] },
      },
      required: ['to', 'parcel_id'],
    });
  });

  it('omits parameters for a tool without arguments (Gemini rejects an empty object schema)', () => {
    expect(toGeminiFunctionDeclaration(noArgs)).toEqual({ name: 'list_plans', description: 'List the plans' });
  });
});
