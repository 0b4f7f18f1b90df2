import 'reflect-metadata';
import {
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsBoolean,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { Param, Tool, ToolRegistry, type ClassType, type JsonSchema, type ToolDefinition, type ToolOptions } from 'toolwright';

/*
 * Pins the JSON Schema generated from input and output classes: each test builds a fresh
 * registry around one input class and compares the generated schema exactly.
 */

function definitionOf(input: ClassType, options: Partial<ToolOptions> = {}): ToolDefinition {
  @Tool({ name: 'probe', description: 'Schema probe', input, ...options })
  class ProbeTool {
    execute(): string {
      return '{}';
    }
  }
  return ToolRegistry.build({ tools: [ProbeTool] }).definitions()[0];
}

function parametersOf(input: ClassType, options: Partial<ToolOptions> = {}): JsonSchema {
  return definitionOf(input, options).parameters;
}

/** The generated schema of one property. */
function propertyOf(input: ClassType, name: string): JsonSchema | undefined {
  return parametersOf(input).properties?.[name];
}

describe('scalars', () => {
  it('maps a string', () => {
    class Input {
      @Param() @IsString() name!: string;
    }
    expect(propertyOf(Input, 'name')).toEqual({ type: 'string' });
  });

  it('maps a number', () => {
    class Input {
      @Param() @IsNumber() price!: number;
    }
    expect(propertyOf(Input, 'price')).toEqual({ type: 'number' });
  });

  it('maps @IsInt on a number to an integer', () => {
    class Input {
      @Param() @IsInt() age!: number;
    }
    expect(propertyOf(Input, 'age')).toEqual({ type: 'integer' });
  });

  it("maps @Param({ type: 'integer' }) to an integer", () => {
    class Input {
      @Param({ type: 'integer' }) count!: number;
    }
    expect(propertyOf(Input, 'count')).toEqual({ type: 'integer' });
  });

  it("maps @IsInt on @Param({ type: 'number' }) and on number items to integers", () => {
    class Input {
      @Param({ type: 'number' }) @IsInt() count!: number;
      @Param({ type: () => [Number] }) @IsInt({ each: true }) ids!: number[];
    }
    expect(parametersOf(Input).properties).toEqual({ count: { type: 'integer' }, ids: { type: 'array', items: { type: 'integer' } } });
  });

  it('maps a boolean', () => {
    class Input {
      @Param() @IsBoolean() active!: boolean;
    }
    expect(propertyOf(Input, 'active')).toEqual({ type: 'boolean' });
  });

  it('infers the type from @Param alone (design:type)', () => {
    class Input {
      @Param() label!: string;
      @Param() ratio!: number;
      @Param() done!: boolean;
    }
    expect(parametersOf(Input).properties).toEqual({ label: { type: 'string' }, ratio: { type: 'number' }, done: { type: 'boolean' } });
  });

  it('maps a Date property to a date-time string', () => {
    class Input {
      @Param() since!: Date;
    }
    expect(propertyOf(Input, 'since')).toEqual({ type: 'string', format: 'date-time' });
  });
});

describe('enums', () => {
  enum Color {
    Red = 'red',
    Green = 'green',
  }
  enum Priority {
    Low = 1,
    High = 5,
  }

  it('maps @IsIn', () => {
    class Input {
      @Param() @IsIn(['a', 'b', 'c']) letter!: string;
    }
    expect(propertyOf(Input, 'letter')).toEqual({ type: 'string', enum: ['a', 'b', 'c'] });
  });

  it('maps @IsEnum of a string enum to its values', () => {
    class Input {
      @Param() @IsEnum(Color) color!: Color;
    }
    expect(propertyOf(Input, 'color')).toEqual({ type: 'string', enum: ['red', 'green'] });
  });

  it('maps @IsEnum of a numeric enum to its values, without the reverse mapping', () => {
    class Input {
      @Param() @IsEnum(Priority) priority!: Priority;
    }
    expect(propertyOf(Input, 'priority')).toEqual({ type: 'number', enum: [1, 5] });
  });

  it('maps the enum option', () => {
    class Input {
      @Param({ enum: ['asc', 'desc'] }) order!: string;
    }
    expect(propertyOf(Input, 'order')).toEqual({ type: 'string', enum: ['asc', 'desc'] });
  });
});

describe('arrays', () => {
  class Item {
    @Param() @IsString() sku!: string;
    @Param() @IsInt() @Min(1) qty!: number;
  }
  const itemSchema: JsonSchema = {
    type: 'object',
    properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
    required: ['sku', 'qty'],
    additionalProperties: false,
  };

  it('maps type: () => [String]', () => {
    class Input {
      @Param({ type: () => [String] }) tags!: string[];
    }
    expect(propertyOf(Input, 'tags')).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('maps @IsString({ each: true }) on an array', () => {
    class Input {
      @Param() @IsString({ each: true }) tags!: string[];
    }
    expect(propertyOf(Input, 'tags')).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('puts each-constraints on the items and array constraints on the array', () => {
    class Input {
      @Param() @IsString({ each: true }) @MaxLength(8, { each: true }) @ArrayMinSize(1) @ArrayMaxSize(3) codes!: string[];
    }
    expect(propertyOf(Input, 'codes')).toEqual({ type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 3 });
  });

  it('maps @ValidateNested({ each: true }) @Type(() => Item) to an array of objects', () => {
    class Input {
      @Param() @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
    }
    expect(propertyOf(Input, 'items')).toEqual({ type: 'array', items: itemSchema });
  });

  it('maps type: () => [Item]', () => {
    class Input {
      @Param({ type: () => [Item] }) items!: Item[];
    }
    expect(propertyOf(Input, 'items')).toEqual({ type: 'array', items: itemSchema });
  });
});

describe('nested objects', () => {
  class Address {
    @Param({ description: 'Street and number' }) @IsString() street!: string;
    @Param() @IsOptional() @IsString() city?: string;
  }

  it('maps @ValidateNested @Type(() => Address)', () => {
    class Input {
      @Param({ description: 'Where to ship' }) @ValidateNested() @Type(() => Address) address!: Address;
    }
    expect(propertyOf(Input, 'address')).toEqual({
      type: 'object',
      description: 'Where to ship',
      properties: { street: { type: 'string', description: 'Street and number' }, city: { type: 'string' } },
      required: ['street'],
      additionalProperties: false,
    });
  });

  it('maps a class-typed property (design:type) without @Type', () => {
    class Input {
      @Param() @ValidateNested() address!: Address;
    }
    expect(propertyOf(Input, 'address')).toMatchObject({ type: 'object', required: ['street'] });
  });
});

describe('optional and required', () => {
  it('lists only required properties in required', () => {
    class Input {
      @Param() @IsString() a!: string;
      @Param() @IsOptional() @IsString() b?: string;
      @Param({ required: false }) @IsOptional() @IsString() c?: string;
      @Param({ required: false }) d?: string;
      @Param({ required: true }) @IsOptional() @IsString() e?: string;
    }
    expect(parametersOf(Input).required).toEqual(['a', 'e']);
  });

  it('omits required when nothing is required', () => {
    class Input {
      @Param() @IsOptional() @IsString() note?: string;
    }
    const parameters = parametersOf(Input);
    expect(parameters).toEqual({ type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false });
  });
});

describe('bounds and patterns', () => {
  it('maps @Min/@Max', () => {
    class Input {
      @Param() @IsNumber() @Min(0) @Max(100) pct!: number;
    }
    expect(propertyOf(Input, 'pct')).toEqual({ type: 'number', minimum: 0, maximum: 100 });
  });

  it('maps @MinLength/@MaxLength', () => {
    class Input {
      @Param() @IsString() @MinLength(2) @MaxLength(20) name!: string;
    }
    expect(propertyOf(Input, 'name')).toEqual({ type: 'string', minLength: 2, maxLength: 20 });
  });

  it('maps @Length(min, max)', () => {
    class Input {
      @Param() @IsString() @Length(3, 9) code!: string;
    }
    expect(propertyOf(Input, 'code')).toEqual({ type: 'string', minLength: 3, maxLength: 9 });
  });

  it('maps @Length(min) without a maximum', () => {
    class Input {
      @Param() @IsString() @Length(3) code!: string;
    }
    expect(propertyOf(Input, 'code')).toEqual({ type: 'string', minLength: 3 });
  });

  it('maps @ArrayMinSize/@ArrayMaxSize', () => {
    class Input {
      @Param({ type: () => [Number] }) @ArrayMinSize(1) @ArrayMaxSize(4) points!: number[];
    }
    expect(propertyOf(Input, 'points')).toEqual({ type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 4 });
  });

  it('maps @IsPositive to an exclusive minimum of 0', () => {
    class Input {
      @Param() @IsNumber() @IsPositive() amount!: number;
    }
    expect(propertyOf(Input, 'amount')).toEqual({ type: 'number', exclusiveMinimum: 0 });
  });

  it('maps @Matches to a pattern', () => {
    class Input {
      @Param() @IsString() @Matches(/^[A-Z]-\d+$/) orderId!: string;
    }
    expect(propertyOf(Input, 'orderId')).toEqual({ type: 'string', pattern: '^[A-Z]-\\d+$' });
  });

  it('keeps the pattern of a unicode @Matches (the flag is enforced by a check)', () => {
    class Input {
      @Param() @IsString() @Matches(/^\p{Lu}+$/u) code!: string;
    }
    expect(propertyOf(Input, 'code')).toEqual({ type: 'string', pattern: '^\\p{Lu}+$' });
  });

  it('tells a case-insensitive @Matches in words (a flagless pattern would refuse "ABC"; the flag is enforced by a check)', () => {
    class Input {
      @Param() @IsString() @Matches(/^abc$/i) code!: string;
    }
    expect(propertyOf(Input, 'code')).toEqual({ type: 'string', description: 'Must match the regular expression /^abc$/i.' });
  });
});

describe('formats', () => {
  it.each([
    { label: '@IsEmail', decorator: IsEmail(), format: 'email' },
    { label: '@IsUUID', decorator: IsUUID(), format: 'uuid' },
    { label: '@IsDateString', decorator: IsDateString(), format: 'date-time' },
    { label: '@IsUrl', decorator: IsUrl(), format: 'uri' },
  ])('maps $label to format $format', ({ decorator, format }) => {
    class Input {
      @Param() @IsString() @decorator value!: string;
    }
    expect(propertyOf(Input, 'value')).toEqual({ type: 'string', format });
  });

  it('maps the format option', () => {
    class Input {
      @Param({ format: 'hostname' }) host!: string;
    }
    expect(propertyOf(Input, 'host')).toEqual({ type: 'string', format: 'hostname' });
  });
});

describe('annotations for the model', () => {
  it('maps description, title, default and examples', () => {
    class Input {
      @Param({ description: 'Page size', title: 'Limit', default: 20, examples: [10, 50] })
      @IsOptional()
      @IsInt()
      @Min(1)
      limit?: number;
    }
    expect(propertyOf(Input, 'limit')).toEqual({
      type: 'integer',
      minimum: 1,
      description: 'Page size',
      title: 'Limit',
      default: 20,
      examples: [10, 50],
    });
  });
});

describe('closed and open classes', () => {
  class Input {
    @Param() @IsString() q!: string;
  }

  it('closes input classes by default', () => {
    expect(parametersOf(Input)).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
  });

  it('leaves additionalProperties out with @Tool({ closed: false })', () => {
    const parameters = parametersOf(Input, { closed: false });
    expect(parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(parameters).not.toHaveProperty('additionalProperties');
  });
});

describe('output schemas', () => {
  class Receipt {
    @Param() @IsString() refundId!: string;
    @Param() @IsNumber() amount!: number;
  }
  class Found {
    @Param() @Equals('found') status!: 'found';
    @Param() @IsString() orderId!: string;
  }
  class NotFound {
    @Param() @Equals('not_found') status!: 'not_found';
  }

  it('describes a single output class', () => {
    class Input {
      @Param() @IsString() orderId!: string;
    }
    expect(definitionOf(Input, { output: Receipt }).outputSchema).toEqual({
      type: 'object',
      properties: { refundId: { type: 'string' }, amount: { type: 'number' } },
      required: ['refundId', 'amount'],
      additionalProperties: false,
    });
  });

  it('describes a union of output classes as oneOf', () => {
    class Input {
      @Param() @IsString() orderId!: string;
    }
    expect(definitionOf(Input, { output: [Found, NotFound] }).outputSchema).toEqual({
      type: 'object',
      oneOf: [
        {
          type: 'object',
          properties: { status: { type: 'string', const: 'found' }, orderId: { type: 'string' } },
          required: ['status', 'orderId'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { status: { type: 'string', const: 'not_found' } },
          required: ['status'],
          additionalProperties: false,
        },
      ],
    });
  });

  it('has no outputSchema without an output contract', () => {
    class Input {
      @Param() @IsString() orderId!: string;
    }
    expect(definitionOf(Input)).not.toHaveProperty('outputSchema');
  });
});

describe("the PHP kit's complex parameter example", () => {
  class Address {
    @Param() @IsOptional() @IsString() street?: string;
    @Param() @IsOptional() @IsString() city?: string;
    @Param() @IsOptional() @IsString() zip?: string;
  }
  class OrderFilter {
    @Param({ description: 'Order status' })
    @IsOptional()
    @IsIn(['pending', 'processing', 'completed'])
    status?: string;

    @Param({ description: 'List of tags' })
    @IsOptional()
    @IsString({ each: true })
    tags?: string[];

    @Param({ description: 'User address' })
    @IsOptional()
    @ValidateNested()
    @Type(() => Address)
    address?: Address;
  }

  // The kit's schema, with its empty `required: []` left out (the same meaning in JSON Schema).
  const phpKitSchema: JsonSchema = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['pending', 'processing', 'completed'], description: 'Order status' },
      tags: { type: 'array', description: 'List of tags', items: { type: 'string' } },
      address: {
        type: 'object',
        description: 'User address',
        properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string' } },
      },
    },
  };

  it('reproduces it exactly as an open tool', () => {
    expect(parametersOf(OrderFilter, { closed: false })).toEqual(phpKitSchema);
  });

  it('closes every object of it by default', () => {
    const closed = parametersOf(OrderFilter);
    expect(closed.additionalProperties).toBe(false);
    expect(closed.properties?.address?.additionalProperties).toBe(false);
  });
});
