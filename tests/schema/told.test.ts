import 'reflect-metadata';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  Contains,
  IsArray,
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsAlpha,
  IsAlphanumeric,
  IsBooleanString,
  IsDate,
  IsDivisibleBy,
  IsHexColor,
  IsIn,
  IsIP,
  IsLowercase,
  IsMongoId,
  IsNotEmptyObject,
  IsNotIn,
  IsNumber,
  IsNumberString,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxDate,
  MaxLength,
  Min,
  MinDate,
  MinLength,
  NotEquals,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Type } from 'class-transformer';
import { Param, Tool, ToolInputError, ToolRegistry, type ClassType, type JsonSchema, type ParamOptions } from 'toolwright';

/*
 * "Tell the model what is enforced": every constraint toolwright enforces shows in the schema the
 * model sees, as a JSON Schema keyword where one states it exactly (checked here against the
 * enforcement on a pool of values), else as a short phrase in the property's description.
 */

@ValidatorConstraint({ name: 'isSku' })
class IsSku implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^SKU-\d+$/.test(value);
  }
  defaultMessage(): string {
    return '$property must look like SKU-123';
  }
}

function inputWith(param: ParamOptions, ...decorators: PropertyDecorator[]): ClassType {
  class Input {
    v?: unknown;
  }
  Param(param)(Input.prototype, 'v');
  for (const decorator of decorators) decorator(Input.prototype, 'v');
  return Input;
}

let n = 0;
function build(input: ClassType): { registry: ToolRegistry; name: string; property: JsonSchema } {
  const name = `told_${n++}`;
  @Tool({ name, description: 'probe', input })
  class Probe {
    execute(): string {
      return '{}';
    }
  }
  const registry = ToolRegistry.build({ tools: [Probe] });
  return { registry, name, property: registry.get(name).definition().parameters.properties!.v };
}

const STRING: ParamOptions = { type: 'string' };
const NUMBER: ParamOptions = { type: 'number' };

const STRINGS = [
  '',
  'a',
  'abc',
  'ABC',
  'aB1',
  'a b',
  '123',
  '-1.5',
  'true',
  'false',
  '1',
  '0',
  'yes',
  '#fff',
  '#ffff',
  'fff',
  '#GGG',
  '127.0.0.1',
  '256.1.1.1',
  '::1',
  '507f1f77bcf86cd799439011',
  '507f1f77bcf86cd79943901',
  'x.*y',
  'root',
  'admin',
  'é',
];

describe('keywords: what the model is told agrees with what is enforced', () => {
  const ajv = addFormats(new Ajv({ strict: false }));
  test.each([
    { label: 'NotEquals → not const', input: inputWith(STRING, IsString(), NotEquals('root')), keyword: { not: { const: 'root' } } },
    {
      label: 'IsNotIn → not enum',
      input: inputWith(STRING, IsString(), IsNotIn(['root', 'admin'])),
      keyword: { not: { enum: ['root', 'admin'] } },
    },
    { label: 'IsAlpha → pattern', input: inputWith(STRING, IsAlpha()), keyword: { pattern: '^[A-Za-z]+$' } },
    { label: 'IsAlphanumeric → pattern', input: inputWith(STRING, IsAlphanumeric()), keyword: { pattern: '^[A-Za-z0-9]+$' } },
    { label: 'IsHexColor → pattern', input: inputWith(STRING, IsHexColor()), keyword: {} },
    { label: 'IsBooleanString → enum', input: inputWith(STRING, IsBooleanString()), keyword: { enum: ['true', 'false', '1', '0'] } },
    { label: 'IsIP(4) → format ipv4', input: inputWith(STRING, IsIP(4)), keyword: { format: 'ipv4' } },
    { label: 'IsMongoId → pattern', input: inputWith(STRING, IsMongoId()), keyword: {} },
    { label: 'Contains → pattern (escaped)', input: inputWith(STRING, IsString(), Contains('.*')), keyword: { pattern: '\\.\\*' } },
    {
      label: 'two Matches → pattern and allOf',
      input: inputWith(STRING, IsString(), Matches(/[A-Z]/), Matches(/[0-9]/)),
      keyword: { pattern: '[A-Z]', allOf: [{ pattern: '[0-9]' }] },
    },
    {
      label: 'MinLength twice → the strictest',
      input: inputWith(STRING, IsString(), MinLength(1), MinLength(3), MaxLength(9), MaxLength(5)),
      keyword: { minLength: 3, maxLength: 5 },
    },
    {
      label: 'IsIn twice → the intersection',
      input: inputWith(STRING, IsIn(['a', 'abc', 'ABC']), IsIn(['abc', 'ABC', '1'])),
      keyword: { enum: ['abc', 'ABC'] },
    },
  ])('$label', async ({ input, keyword }) => {
    const { registry, name, property } = build(input);
    expect(property).toMatchObject(keyword);
    const told = ajv.compile(property);
    const differences = [];
    for (const value of STRINGS) {
      const enforced = await registry.call(name, { v: value }).then(
        () => true,
        (e: unknown) => (e instanceof ToolInputError ? false : Promise.reject(e as Error)),
      );
      if (told(value) !== enforced) differences.push({ value, told: told(value), enforced });
    }
    expect(differences).toEqual([]);
  });

  test('numbers: Min/Max twice → the strictest; IsDivisibleBy → multipleOf', async () => {
    const { registry, name, property } = build(inputWith(NUMBER, IsNumber(), Min(1), Min(5), Max(100), Max(50), IsDivisibleBy(5)));
    expect(property).toMatchObject({ minimum: 5, maximum: 50, multipleOf: 5 });
    const told = ajv.compile(property);
    for (const value of [0, 1, 4, 5, 7, 10, 50, 55, 100]) {
      const enforced = await registry.call(name, { v: value }).then(
        () => true,
        () => false,
      );
      expect({ value, told: told(value) }).toEqual({ value, told: enforced });
    }
  });

  test('IsNotEmptyObject → minProperties', () => {
    expect(build(inputWith({ type: 'object' }, IsNotEmptyObject())).property).toMatchObject({ type: 'object', minProperties: 1 });
  });
});

describe('phrases: constraints JSON Schema cannot state are described in words', () => {
  test.each([
    { label: 'IsUUID("4")', input: inputWith(STRING, IsUUID('4')), format: 'uuid', phrase: 'Must be a UUID version 4.' },
    { label: 'IsNumberString', input: inputWith(STRING, IsNumberString()), phrase: 'Must be a number string.' },
    { label: 'IsLowercase', input: inputWith(STRING, IsLowercase()), phrase: 'Must be a lowercase string.' },
    { label: 'IsIP() without a version', input: inputWith(STRING, IsIP()), phrase: 'Must be an ip address.' },
    { label: 'IsAlpha("de-DE")', input: inputWith(STRING, IsAlpha('de-DE')), phrase: 'Must contain only letters (a-zA-Z).' },
    { label: 'a custom @Validate', input: inputWith(STRING, IsString(), Validate(IsSku)), phrase: 'Must look like SKU-123.' },
    {
      label: 'MinDate and MaxDate',
      input: inputWith(
        { type: () => Date },
        IsDate(),
        Type(() => Date),
        MinDate(new Date('2024-01-01T00:00:00Z')),
        MaxDate(new Date('2025-01-01T00:00:00Z')),
      ),
      phrase:
        'Minimal allowed date for the value is 2024-01-01T00:00:00.000Z. Maximal allowed date for the value is 2025-01-01T00:00:00.000Z.',
    },
  ])('$label', ({ input, format, phrase }) => {
    const property = build(input).property;
    expect(property.description).toBe(phrase);
    if (format) expect(property.format).toBe(format);
  });

  test("the phrase follows the author's description", () => {
    const input = inputWith({ type: 'string', description: 'The product code.' }, IsString(), Validate(IsSku));
    expect(build(input).property.description).toBe('The product code. Must look like SKU-123.');
  });
});

describe('no phrase repeats the type the schema states', () => {
  const ITEMS = (type: string): ParamOptions => ({ type: 'array', items: { type } as JsonSchema });
  test.each([
    { label: "IsObject on { type: 'object' }", input: inputWith({ type: 'object' }, IsObject()), wrong: [1, 'x', []] },
    { label: 'IsObject on an optional object', input: inputWith({ type: 'object' }, IsOptional(), IsObject()), wrong: ['x'] },
    { label: 'IsString on string items', input: inputWith(ITEMS('string'), IsString({ each: true })), wrong: [[1]] },
    { label: 'IsNumber on number items', input: inputWith(ITEMS('number'), IsNumber({}, { each: true })), wrong: [['1']] },
    { label: 'IsNumber on integer items', input: inputWith(ITEMS('integer'), IsNumber({}, { each: true })), wrong: [[1.5]] },
    { label: 'IsInt on integer items', input: inputWith(ITEMS('integer'), IsInt({ each: true })), wrong: [[1.5]] },
    { label: 'IsBoolean on boolean items', input: inputWith(ITEMS('boolean'), IsBoolean({ each: true })), wrong: [['true']] },
    { label: 'IsObject on object items', input: inputWith(ITEMS('object'), IsObject({ each: true })), wrong: [[[]], ['x']] },
    { label: 'IsArray on array items', input: inputWith(ITEMS('array'), IsArray({ each: true })), wrong: [[{}]] },
    { label: 'IsArray on an array', input: inputWith(ITEMS('string'), IsArray()), wrong: ['x'] },
  ])('$label: no phrase, and the type is still enforced', async ({ input, wrong }) => {
    const { registry, name, property } = build(input);
    expect(property.description).toBeUndefined();
    for (const v of wrong) await expect(registry.call(name, { v })).rejects.toBeInstanceOf(ToolInputError);
  });

  test('a phrase that says more than the type stays', () => {
    // @IsInt on number items narrows the type; maxDecimalPlaces is a limit the type does not state.
    expect(build(inputWith(ITEMS('number'), IsInt({ each: true }))).property.description).toBe(
      'Each value in the list must be an integer number.',
    );
    expect(build(inputWith(ITEMS('number'), IsNumber({ maxDecimalPlaces: 2 }, { each: true }))).property.description).toBe(
      'At most 2 decimal places.',
    );
  });
});
