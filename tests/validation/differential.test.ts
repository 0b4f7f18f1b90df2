import 'reflect-metadata';
import fc from 'fast-check';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsDivisibleBy,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  validate,
  type ValidationError,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { plainToInstance, Type } from 'class-transformer';
import { Param, Tool, ToolInputError, ToolRegistry, ToolwrightError, type ClassType, type ParamOptions } from 'toolwright';
import { c, NUMBER, NUMBERS, small, STRING, STRINGS, type Decorated } from '../support/constraint-pools';

/*
 * A seeded differential test with class-validator 0.15 as the oracle: random input classes over
 * the constraints toolwright maps (compiled to keywords, called as checks, or left to
 * class-validator) and random argument objects with edge values. For every object both must give
 * the same verdict and the same set of failing top-level properties, with the options `closed`
 * claims: closed → forbidNonWhitelisted, open → whitelist (extra keys dropped).
 *
 * The generated properties always carry their type constraint (`@IsString()`, `@IsArray()`,
 * `@IsObject()`…): without one, toolwright follows the TypeScript type and is stricter, which
 * agreement.test.ts pins with the other known differences. Strings include surrogate pairs, lone
 * surrogates and the variation selectors U+FE0E/U+FE0F (validator.js counts a character with its selector as one).
 */

@ValidatorConstraint({ name: 'noDigits' })
class NoDigits implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && !/\d/.test(value);
  }
  defaultMessage(): string {
    return '$property must not contain digits';
  }
}

@ValidatorConstraint({ name: 'evenLater', async: true })
class EvenLater implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(): string {
    return '$property must be even';
  }
}

class Inner {
  @Param() @IsString() @MinLength(2) sku!: string;
  @Param() @IsOptional() @IsInt() @Min(0) qty?: number;
}

class InnerWithCustom {
  @Param() @IsString() @Validate(NoDigits) code!: string;
}

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'strings' | 'numbers' | 'nested' | 'nestedList';

interface PropertySpec {
  kind: Kind;
  optional: boolean;
  /** Labels, for the failure report. */
  labels: string[];
  decorators: PropertyDecorator[];
}

/** One constraint: its label and decorator, for a property of the given kind (the pools agreement-deep.test.ts draws from, and two custom validators). */
type ConstraintArb = fc.Arbitrary<Decorated>;
const STRING_CONSTRAINTS: ConstraintArb[] = [...STRING, c('Validate(NoDigits)', Validate(NoDigits))];
const NUMBER_CONSTRAINTS: ConstraintArb[] = [...NUMBER, c('Validate(EvenLater)', Validate(EvenLater))];
const STRINGS_CONSTRAINTS = STRINGS;
const NUMBERS_CONSTRAINTS = NUMBERS;

/** The type constraint every property carries, and the constraints it may add. */
const KINDS: Record<Kind, { type: [string, PropertyDecorator[]]; param?: ParamOptions; pool: ConstraintArb[] }> = {
  string: { type: ['IsString', [IsString()]], param: { type: 'string' }, pool: STRING_CONSTRAINTS },
  number: { type: ['IsNumber', [IsNumber()]], param: { type: 'number' }, pool: NUMBER_CONSTRAINTS },
  integer: { type: ['IsInt', [IsInt()]], param: { type: 'integer' }, pool: NUMBER_CONSTRAINTS },
  boolean: { type: ['IsBoolean', [IsBoolean()]], param: { type: 'boolean' }, pool: [c('Equals(true)', Equals(true))] },
  strings: {
    type: ['IsArray+IsString(each)', [IsArray(), IsString({ each: true })]],
    param: { type: () => [String] },
    pool: STRINGS_CONSTRAINTS,
  },
  numbers: {
    type: ['IsArray+IsNumber(each)', [IsArray(), IsNumber({}, { each: true })]],
    param: { type: () => [Number] },
    pool: NUMBERS_CONSTRAINTS,
  },
  nested: { type: ['IsObject+ValidateNested', [IsObject(), ValidateNested(), Type(() => Inner)]], param: { type: () => Inner }, pool: [] },
  nestedList: {
    type: ['IsArray+ValidateNested(each) of InnerWithCustom', [IsArray(), ValidateNested({ each: true }), Type(() => InnerWithCustom)]],
    param: { type: () => [InnerWithCustom] },
    pool: [small.map((n) => [`ArrayMaxSize(${n})`, ArrayMaxSize(n)])],
  },
};

const propertySpec: fc.Arbitrary<PropertySpec> = fc
  .constantFrom<Kind>('string', 'string', 'number', 'integer', 'boolean', 'strings', 'numbers', 'nested', 'nestedList')
  .chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      optional: fc.boolean(),
      conditional: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      constraints: KINDS[kind].pool.length
        ? fc.array(fc.oneof(...KINDS[kind].pool), { maxLength: 3 })
        : fc.constant<[string, PropertyDecorator][]>([]),
    }),
  )
  .map(({ kind, optional, conditional, constraints }) => {
    const labels = [KINDS[kind].type[0], ...constraints.map(([label]) => label)];
    const decorators = [...KINDS[kind].type[1], ...constraints.map(([, d]) => d)];
    if (optional) {
      labels.push('IsOptional');
      decorators.push(IsOptional());
    }
    if (conditional) {
      // @ValidateIf: class-validator skips the property when its value is "skip".
      labels.push('ValidateIf(v !== "skip")');
      decorators.push(ValidateIf((_: object, v: unknown) => v !== 'skip'));
    }
    // fast-check prints counterexamples with this instead of the decorator functions.
    return { kind, optional, labels, decorators, [fc.toStringMethod]: () => labels.join(' ') };
  });

const stringValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a',
    'ab',
    'abc',
    'A',
    'ABC',
    'aB1',
    '123',
    '-1.5',
    '1.5',
    'true',
    'false',
    '1',
    '0',
    '#fff',
    '#GGG',
    'red',
    'root',
    'x',
    'a@example.com',
    'a@b',
    '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    'https://example.com/a',
    'example.com',
    '2024-05-01',
    '2024-05-01T10:00:00Z',
    '2024-W01',
    '127.0.0.1',
    '::1',
    '507f1f77bcf86cd799439011',
    '😀',
    '😀😀',
    '\u2764\uFE0F',
    '😀\uFE0F',
    'skip',
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'Z', '1', ' ', 'é', '😀', '\uFE0F', '\uFE0E', '\uD83D', '\uDE00') }),
);
const numberValue = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 1.5, 2, 3, 4, 6, 9, 10, 90, 91, -90.5, 180, 181, 1e21, 2 ** 60, 1e-7, 0.1 + 0.2, -3, 5),
  fc.integer({ min: -20, max: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
);
const innerValue = fc.oneof(
  fc.record({ sku: stringValue, qty: fc.oneof(numberValue, fc.constant(undefined)) }, { requiredKeys: [] }),
  fc.record({ code: stringValue }, { requiredKeys: [] }),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  stringValue,
  numberValue,
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.oneof(stringValue, numberValue), { maxLength: 3 }),
  innerValue,
);

const VALUES: Record<Kind, fc.Arbitrary<unknown>> = {
  string: stringValue,
  number: numberValue,
  integer: numberValue,
  boolean: fc.boolean(),
  strings: fc.array(stringValue, { maxLength: 4 }),
  numbers: fc.array(numberValue, { maxLength: 4 }),
  nested: innerValue,
  nestedList: fc.array(fc.oneof(innerValue, fc.constant(null), stringValue), { maxLength: 3 }),
};

function valueFor(spec: PropertySpec): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: VALUES[spec.kind], weight: 4 }, { arbitrary: anyValue, weight: 1 });
}

interface Case {
  closed: boolean;
  specs: PropertySpec[];
  objects: Record<string, unknown>[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({ closed: fc.boolean(), specs: fc.array(propertySpec, { minLength: 1, maxLength: 4 }) })
  .chain(({ closed, specs }) => {
    const entries = Object.fromEntries(specs.map((spec, i) => [`p${i}`, valueFor(spec)]));
    const object = fc
      .tuple(fc.record(entries, { requiredKeys: [] }), fc.option(fc.constantFrom('extra', 'zz'), { nil: undefined }))
      .map(([o, extra]) => (extra ? { ...o, [extra]: 1 } : o));
    return fc.record({ closed: fc.constant(closed), specs: fc.constant(specs), objects: fc.array(object, { minLength: 6, maxLength: 6 }) });
  });

let built = 0;

function inputClass(specs: PropertySpec[]): ClassType {
  class Input {}
  specs.forEach((spec, i) => {
    Param(KINDS[spec.kind].param ?? {})(Input.prototype, `p${i}`);
    for (const decorator of spec.decorators) decorator(Input.prototype, `p${i}`);
  });
  return Input;
}

function topLevel(errors: ValidationError[]): string[] {
  return [...new Set(errors.map((e) => e.property))].sort();
}

function topLevelPaths(error: ToolInputError): string[] {
  return [...new Set(error.errors.map((e) => e.path.split(/[.[]/)[0]))].sort();
}

/** The verdict and failing top-level properties of each side; `null` properties when class-validator itself threw. */
async function compare({ closed, specs, objects }: Case): Promise<void> {
  const Input = inputClass(specs);
  const name = `fuzz_${built++}`;
  @Tool({ name, description: 'fuzz', input: Input, closed })
  class FuzzTool {
    execute(): string {
      return '{}';
    }
  }
  const registry = ToolRegistry.build({ tools: [FuzzTool] });
  for (const object of objects) {
    const json = JSON.stringify(object);
    let oracle: string[] | 'threw';
    try {
      const instance = plainToInstance(Input, JSON.parse(json) as object) as object;
      oracle = topLevel(await validate(instance, { whitelist: true, forbidNonWhitelisted: closed }));
    } catch {
      oracle = 'threw'; // validator.js throws on a few values (maxDecimalPlaces on 1e-7): a refusal
    }
    let ours: string[];
    try {
      await registry.call(name, json);
      ours = [];
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw new Error(`call threw ${String(error)} for ${json}`);
      ours = topLevelPaths(error);
    }
    const agree = oracle === 'threw' ? ours.length > 0 : JSON.stringify(oracle) === JSON.stringify(ours);
    if (!agree) {
      const classText = specs.map((s, i) => `p${i}: ${s.labels.join(' ')}`).join('; ');
      throw new Error(
        `closed=${closed} { ${classText} } ${json}: class-validator fails ${JSON.stringify(oracle)}, toolwright ${JSON.stringify(ours)}`,
      );
    }
  }
}

describe('differential: toolwright and class-validator agree on random classes and values', () => {
  test('verdicts and failing properties (seeded)', async () => {
    await fc.assert(fc.asyncProperty(caseArb, compare), {
      seed: Number(process.env.FUZZ_SEED ?? 20261130),
      numRuns: Number(process.env.FUZZ_RUNS ?? 200),
      endOnFailure: true,
    });
  }, 120_000); // about 15 s alone; more on a machine busy with the rest of the suite
});

describe('no input makes registry.call throw anything but a ToolwrightError', () => {
  class Transformed {
    @Param() @IsString() @MinLength(1) name!: string;
  }
  @Tool({ name: 'mixed', description: 'every path at once', input: inputClass([]) })
  class Placeholder {
    execute(): string {
      return '{}';
    }
  }
  const specs: PropertySpec[] = [
    { kind: 'string', optional: false, labels: [], decorators: [IsString(), Validate(NoDigits)] },
    { kind: 'number', optional: true, labels: [], decorators: [IsNumber({ maxDecimalPlaces: 2 }), IsOptional(), IsDivisibleBy(3)] },
    {
      kind: 'nestedList',
      optional: true,
      labels: [],
      decorators: [IsArray(), IsOptional(), ValidateNested({ each: true }), Type(() => InnerWithCustom)],
    },
    { kind: 'integer', optional: true, labels: [], decorators: [IsInt(), IsOptional(), Validate(EvenLater)] },
  ];
  @Tool({ name: 'fuzz_all', description: 'custom, async, each, nested', input: inputClass(specs), closed: false })
  class AllTool {
    execute(): string {
      return '{}';
    }
  }
  @Tool({ name: 'plain', description: 'compiled only', input: Transformed })
  class PlainTool {
    execute(): string {
      return '{}';
    }
  }
  class HandWrittenTool {
    definition() {
      return {
        name: 'hand',
        description: 'hand-written schema',
        parameters: {
          type: 'object' as const,
          properties: {
            p0: { type: 'string' as const, format: 'email' },
            p1: { type: 'array' as const, items: { type: 'integer' as const } },
          },
        },
      };
    }
    execute(): string {
      return '{}';
    }
  }
  const registry = ToolRegistry.build({ tools: [Placeholder, AllTool, PlainTool, HandWrittenTool] });

  test('random JSON texts, strings and objects', async () => {
    const raw = fc.oneof(
      fc.json(),
      fc.string(),
      fc.dictionary(fc.constantFrom('p0', 'p1', 'p2', 'p3', 'name', 'x'), fc.jsonValue()).map((o) => JSON.stringify(o)),
      fc.dictionary(fc.constantFrom('p0', 'p1', 'p2', 'p3', 'name'), fc.anything()),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('mixed', 'fuzz_all', 'plain', 'hand'), raw, async (tool, args) => {
        try {
          await registry.call(tool, args as string);
        } catch (error) {
          if (!(error instanceof ToolwrightError)) throw new Error(`${tool} threw ${String(error)} for ${String(JSON.stringify(args))}`);
        }
      }),
      { seed: 7493, numRuns: 1000 },
    );
  }, 120_000);
});
