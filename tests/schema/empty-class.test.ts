import 'reflect-metadata';
import { IsInstance, IsOptional, IsString, ValidateNested, validate } from 'class-validator';
import { plainToInstance, Type } from 'class-transformer';
import { Param, Tool, ToolDefinitionError, ToolInputError, ToolRegistry, type ClassType } from 'toolwright';

/*
 * A class with no properties is a legitimate nested class ("options: {}"): it builds an empty
 * object schema, and what the registry accepts is what class-validator accepts. A class that is
 * not there yet (a circular import) is still refused as "not loaded".
 */

class Empty {}

class WithNested {
  @Param({ description: 'Options (none yet)' }) @ValidateNested() @Type(() => Empty) options!: Empty;
  @Param({ description: 'A note' }) @IsString() note!: string;
}

class WithInstance {
  @Param({ description: 'Options' }) @IsInstance(Empty) @ValidateNested() @Type(() => Empty) options!: Empty;
}

class WithOptional {
  @Param({ description: 'Options' }) @IsOptional() @ValidateNested() @Type(() => Empty) options?: Empty;
}

let built = 0;
function registryFor(input: ClassType, closed: boolean): { registry: ToolRegistry; name: string } {
  const name = `empty_${built++}`;
  @Tool({ name, description: 'd', input, closed })
  class EmptyTool {
    execute(): string {
      return '{}';
    }
  }
  return { registry: ToolRegistry.build({ tools: [EmptyTool] }), name };
}

/** class-validator's verdict, with the options toolwright's semantics follow (closed: unknown keys refused, open: dropped). */
async function oracle(input: ClassType, plain: object, closed: boolean): Promise<boolean> {
  // forbidUnknownValues off: toolwright runs class-validator so (compileResidual), and a class-validator 0.14+ default
  // of true refuses every instance of a class without metadata, a top-level empty input class included.
  const errors = await validate(plainToInstance(input, plain) as object, {
    whitelist: true,
    forbidNonWhitelisted: closed,
    forbidUnknownValues: false,
  });
  return errors.length === 0;
}

async function accepts(registry: ToolRegistry, name: string, plain: object): Promise<boolean> {
  try {
    await registry.call(name, JSON.stringify(plain));
    return true;
  } catch (error) {
    if (error instanceof ToolInputError) return false;
    throw error;
  }
}

describe('an empty nested class', () => {
  it('builds an empty object schema (@ValidateNested @Type and @IsInstance)', () => {
    for (const closed of [true, false]) {
      const { registry, name } = registryFor(WithNested, closed);
      expect(registry.get(name).definition().parameters.properties!.options).toEqual({
        type: 'object',
        properties: {},
        ...(closed ? { additionalProperties: false } : {}),
        description: 'Options (none yet)',
      });
    }
    const { registry, name } = registryFor(WithInstance, true);
    expect(registry.get(name).definition().parameters.properties!.options).toMatchObject({ type: 'object', properties: {} });
  });

  // What the nested value holds. Left out, as for every nested class (not only an empty one): class-validator lets
  // @ValidateNested pass an absent value or an array where one object is declared; toolwright requires the object.
  const payloads: object[] = [
    { options: {}, note: 'x' },
    { options: { extra: 1 }, note: 'x' },
    { options: null, note: 'x' },
    { options: 'text', note: 'x' },
    { options: 7, note: 'x' },
    { options: {}, note: 5 },
    { options: {} },
  ];

  it.each([
    ['@ValidateNested @Type, closed', WithNested, true],
    ['@ValidateNested @Type, open', WithNested, false],
    ['@IsInstance, closed', WithInstance, true],
    ['@IsInstance, open', WithInstance, false],
    ['@IsOptional, closed', WithOptional, true],
    ['@IsOptional, open', WithOptional, false],
  ] as const)('accepts and refuses what class-validator does (%s)', async (_, input, closed) => {
    const { registry, name } = registryFor(input, closed);
    const verdicts: string[] = [];
    for (const plain of payloads) {
      const expected = await oracle(input, plain, closed);
      const ours = await accepts(registry, name, plain);
      if (ours !== expected) verdicts.push(`${JSON.stringify(plain)}: class-validator ${expected}, toolwright ${ours}`);
    }
    expect(verdicts).toEqual([]);
  });

  it('still refuses a nested class that is not loaded yet (its @Type thunk returns undefined)', () => {
    const modules: { Later?: ClassType } = {}; // as a circular import leaves it
    class Input {
      @Param({ description: 'a' }) @ValidateNested() @Type(() => modules.Later!) later!: object;
    }
    expect(() => registryFor(Input, true)).toThrow(ToolDefinitionError);
    expect(() => registryFor(Input, true)).toThrow(/decorators have not run yet/);
  });

  it('refuses a nested class named before its declaration ran (a thunk that throws ReferenceError) as not loaded', () => {
    const later = (): ClassType => {
      throw new ReferenceError("Cannot access 'Address' before initialization");
    };
    class Input {
      @Param({ description: 'a' }) @ValidateNested() @Type(later) address!: object;
    }
    class ParamInput {
      @Param({ description: 'a', type: later }) @ValidateNested() address!: object;
    }
    for (const input of [Input, ParamInput]) {
      let error: unknown;
      try {
        registryFor(input, true);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ToolDefinitionError);
      expect((error as Error).message).toMatch(/decorators have not run yet/);
    }
  });
});
