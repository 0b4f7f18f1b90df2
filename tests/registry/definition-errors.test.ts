import 'reflect-metadata';
import { ArrayMaxSize, Equals, IsInt, IsNumber, IsOptional, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { Service } from 'typedi';
import {
  Param,
  Tool,
  ToolDefinitionError,
  ToolInputError,
  ToolRegistry,
  type ClassType,
  type ContainerLike,
  type ToolDefinition,
  type ToolInterface,
} from 'toolwright';

/** Builds a registry that must fail; returns the ToolDefinitionError after checking its class and code. */
function buildError(tools: ClassType[], container?: ContainerLike): ToolDefinitionError {
  let caught: unknown;
  try {
    ToolRegistry.build({ tools, container });
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ToolDefinitionError);
  const error = caught as ToolDefinitionError;
  expect(error.code).toBe('INVALID_DEFINITION');
  return error;
}

/** A tool around `input`, named after the input class so that messages can be checked. */
function toolFor(input: ClassType, name = 'probe'): ClassType {
  @Tool({ name, description: 'Probe', input })
  class ProbeTool {
    execute(): string {
      return '{}';
    }
  }
  return ProbeTool;
}

class EmptyInput {}

describe('tool-level mistakes', () => {
  it('rejects two tools with the same name, naming both classes', () => {
    @Tool({ name: 'lookup', description: 'First', input: EmptyInput })
    class FirstLookupTool {
      execute(): string {
        return '{}';
      }
    }
    @Tool({ name: 'lookup', description: 'Second', input: EmptyInput })
    class SecondLookupTool {
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([FirstLookupTool, SecondLookupTool]);
    expect(error.message).toMatch(/Duplicate tool name "lookup"/);
    expect(error.message).toMatch(/FirstLookupTool and SecondLookupTool/);
    expect(error.message).toMatch(/unique name/);
  });

  it('rejects @Tool without an input class and without definition()', () => {
    @Tool({ name: 'no_input', description: 'No input' })
    class NoInputTool {
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([NoInputTool]);
    expect(error.message).toMatch(/NoInputTool has @Tool but no input class/);
    expect(error.message).toMatch(/input: YourInputClass/);
  });

  it('rejects a class that is not a tool', () => {
    class PlainHelper {
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([PlainHelper]);
    expect(error.message).toMatch(/PlainHelper is not a tool/);
    expect(error.message).toMatch(/Add @Tool\(/);
  });

  it('rejects a value that is not a class at all', () => {
    const error = buildError([undefined as unknown as ClassType]);
    expect(error.message).toMatch(/Pass the classes themselves/);
  });

  it('rejects a tool without an execute method', () => {
    @Tool({ name: 'lazy', description: 'Does nothing', input: EmptyInput })
    class LazyTool {}
    const error = buildError([LazyTool]);
    expect(error.message).toMatch(/LazyTool has no execute\(args, context, memory\) method/);
    expect(error.message).toMatch(/Implement ToolInterface/);
  });

  it.each(['has space', 'dots.not.allowed', '', 'x'.repeat(65), 'émoji'])('rejects the tool name %j', (name) => {
    const error = buildError([toolFor(EmptyInput, name)]);
    expect(error.message).toMatch(/ProbeTool: tool name/);
    expect(error.message).toMatch(/Use 1-64 letters, digits, "_" or "-"/);
  });

  it('accepts names of 64 letters, digits, "_" and "-"', () => {
    const name = 'a-b_C9'.padEnd(64, 'z');
    expect(ToolRegistry.build({ tools: [toolFor(EmptyInput, name)] }).names()).toEqual([name]);
  });
});

describe('parameters whose type cannot be known', () => {
  it('rejects an array without an item type', () => {
    class TagsInput {
      @Param() tags!: string[];
    }
    const error = buildError([toolFor(TagsInput)]);
    expect(error.message).toMatch(/item type of array TagsInput\.tags/);
    expect(error.message).toMatch(/Add @Param\(\{ type: … \}\) to TagsInput\.tags/);
  });

  it('rejects an unknown-typed property', () => {
    class PayloadInput {
      @Param() payload!: unknown;
    }
    const error = buildError([toolFor(PayloadInput)]);
    expect(error.message).toMatch(/Cannot know the type of PayloadInput\.payload/);
    expect(error.message).toMatch(/Add @Param\(\{ type: … \}\)/);
  });

  it('rejects a union-typed property', () => {
    class IdInput {
      @Param() id!: string | number;
    }
    const error = buildError([toolFor(IdInput)]);
    expect(error.message).toMatch(/Cannot know the type of IdInput\.id/);
  });

  it.each([
    {
      label: 'Map',
      make: () => {
        class MapInput {
          @Param() lookup!: Map<string, string>;
        }
        return MapInput;
      },
    },
    {
      label: 'Function',
      make: () => {
        class FunctionInput {
          @Param() callback!: Function;
        }
        return FunctionInput;
      },
    },
  ])('rejects a $label property', ({ label, make }) => {
    const input = make();
    const error = buildError([toolFor(input)]);
    expect(error.message).toContain(`${input.name}.`);
    expect(error.message).toContain(`has type ${label}, which JSON cannot carry`);
    expect(error.message).toMatch(/Use a string, number, boolean, array or a plain class/);
  });

  it('rejects recursive input classes, showing the cycle', () => {
    class TreeNode {
      @Param() @IsString() label!: string;
      @Param() @IsOptional() @ValidateNested() @Type(() => TreeNode) child?: TreeNode;
    }
    const error = buildError([toolFor(TreeNode)]);
    expect(error.message).toMatch(/TreeNode → TreeNode is recursive/);
    expect(error.message).toMatch(/break the cycle/);
  });

  it('rejects mutually recursive input classes', () => {
    class Employee {
      @Param() @ValidateNested() @Type(() => Team) team!: object;
    }
    class Team {
      @Param() @ValidateNested() @Type(() => Employee) lead!: Employee;
    }
    const error = buildError([toolFor(Employee)]);
    expect(error.message).toMatch(/Employee → Team → Employee is recursive/);
  });
});

describe('decorators that disagree', () => {
  it('rejects @IsString on a number', () => {
    class CountInput {
      @Param() @IsString() count!: number;
    }
    const error = buildError([toolFor(CountInput)]);
    expect(error.message).toMatch(/CountInput\.count: @IsString\(\) disagrees with its type \(number\)/);
    expect(error.message).toMatch(/Make the TypeScript type and the decorator agree/);
  });

  it('rejects @IsInt on a string', () => {
    class CodeInput {
      @Param() @IsInt() code!: string;
    }
    expect(buildError([toolFor(CodeInput)]).message).toMatch(/CodeInput\.code: @IsInt\(\) disagrees with its type \(string\)/);
  });

  it.each([
    {
      label: '@Min on a string',
      make: () => {
        class MinInput {
          @Param() @Min(1) v!: string;
        }
        return MinInput;
      },
      constraint: 'min',
      type: 'string',
    },
    {
      label: '@MinLength on an array',
      make: () => {
        class LengthInput {
          @Param({ type: () => [String] }) @MinLength(2) v!: string[];
        }
        return LengthInput;
      },
      constraint: 'minLength',
      type: 'array',
    },
    {
      label: '@ArrayMaxSize on a number',
      make: () => {
        class SizeInput {
          @Param() @ArrayMaxSize(2) v!: number;
        }
        return SizeInput;
      },
      constraint: 'arrayMaxSize',
      type: 'number',
    },
  ])('rejects $label, which class-validator would fail for every value', ({ make, constraint, type }) => {
    const input = make();
    const error = buildError([toolFor(input)]);
    expect(error.message).toContain(`${input.name}.v: the ${constraint} constraint cannot apply to a property of type ${type}`);
    expect(error.message).toMatch(/Remove it or make the type agree/);
  });

  it('rejects required: false without @IsOptional', () => {
    class NoteInput {
      @Param({ required: false }) @IsString() note?: string;
    }
    const error = buildError([toolFor(NoteInput)]);
    expect(error.message).toMatch(/NoteInput\.note is marked @Param\(\{ required: false \}\)/);
    expect(error.message).toMatch(/Add @IsOptional\(\) to the property/);
  });

  it('rejects { each: true } on a property that is not an array', () => {
    class NameInput {
      @Param() @IsString({ each: true }) name!: string;
    }
    expect(buildError([toolFor(NameInput)]).message).toMatch(/NameInput\.name uses \{ each: true \} but is not an array/);
  });
});

describe('hand-written definitions', () => {
  it('rejects a broken parameters schema', () => {
    class BrokenSchemaTool implements ToolInterface {
      definition(): ToolDefinition {
        return { name: 'broken', description: 'Broken', parameters: { type: 'object', properties: { a: { type: 'strin' as 'string' } } } };
      }
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([BrokenSchemaTool]);
    expect(error.message).toMatch(/BrokenSchemaTool\.definition\(\) has invalid parameters JSON Schema/);
  });

  it('rejects parameters that are not an object schema', () => {
    class ArraySchemaTool implements ToolInterface {
      definition(): ToolDefinition {
        return { name: 'arrays', description: 'Arrays', parameters: { type: 'array' } };
      }
      execute(): string {
        return '{}';
      }
    }
    expect(buildError([ArraySchemaTool]).message).toMatch(
      /ArraySchemaTool\.definition\(\)\.parameters must be a JSON Schema of type "object"/,
    );
  });

  it('rejects a definition without a name or description', () => {
    class NamelessTool {
      definition(): unknown {
        return { parameters: { type: 'object' } };
      }
      execute(): string {
        return '{}';
      }
    }
    expect(buildError([NamelessTool]).message).toMatch(/NamelessTool\.definition\(\) must return \{ name, description, parameters \}/);
  });

  it('rejects a definition whose name differs from @Tool', () => {
    @Tool({ name: 'official_name', description: 'Named twice' })
    class TwoNamesTool implements ToolInterface {
      definition(): ToolDefinition {
        return { name: 'other_name', description: 'Named twice', parameters: { type: 'object', properties: {} } };
      }
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([TwoNamesTool]);
    expect(error.message).toMatch(/TwoNamesTool: @Tool names it "official_name" but definition\(\) names it "other_name"/);
  });

  it('rejects an invalid name in a hand-written definition', () => {
    class SpacedTool implements ToolInterface {
      definition(): ToolDefinition {
        return { name: 'two words', description: 'Spaced', parameters: { type: 'object' } };
      }
      execute(): string {
        return '{}';
      }
    }
    expect(buildError([SpacedTool]).message).toMatch(/SpacedTool: tool name "two words"/);
  });
});

describe('dependencies', () => {
  it('rejects a constructor dependency the container cannot resolve', () => {
    class UnregisteredGateway {
      charge(): boolean {
        return true;
      }
    }
    @Tool({ name: 'charge', description: 'Charge', input: EmptyInput })
    class ChargeTool {
      constructor(readonly gateway: UnregisteredGateway) {}
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([ChargeTool]); // typedi's Container, the default
    expect(error.message).toMatch(/Could not resolve ChargeTool from the container: .*UnregisteredGateway/);
    expect(error.message).toMatch(/@Service\(\) or Container\.set/);
  });

  it('reports a custom container that cannot resolve a tool', () => {
    @Tool({ name: 'refuse', description: 'Refused', input: EmptyInput })
    class RefusedTool {
      execute(): string {
        return '{}';
      }
    }
    const failing: ContainerLike = {
      get() {
        throw new Error('nothing is registered here');
      },
    };
    const error = buildError([RefusedTool], failing);
    expect(error.message).toMatch(/Could not resolve RefusedTool from the container: nothing is registered here/);
  });

  it('reports typedi failing to resolve a dependency', () => {
    @Service()
    class BrokenService {
      constructor() {
        throw new Error('database URL missing');
      }
    }
    @Tool({ name: 'broken_dep', description: 'Broken dependency', input: EmptyInput })
    class BrokenDependencyTool {
      constructor(readonly service: BrokenService) {}
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([BrokenDependencyTool]);
    expect(error.message).toMatch(/Could not resolve BrokenDependencyTool from the container: database URL missing/);
  });

  it('rejects a class with constructor arguments but no emitted types', () => {
    class UntypedTool implements ToolInterface {
      constructor(readonly dep: unknown) {}
      definition(): ToolDefinition {
        return { name: 'untyped', description: 'Untyped', parameters: { type: 'object' } };
      }
      execute(): string {
        return '{}';
      }
    }
    const error = buildError([UntypedTool]);
    expect(error.message).toMatch(/UntypedTool takes constructor arguments but TypeScript emitted no types/);
    expect(error.message).toMatch(/Add @Tool\(\{ name, description \}\) \(or @Service\(\)\)/);
  });
});

describe('output contracts', () => {
  it('rejects an output union with no common literal field', () => {
    class Found {
      @Param() @Equals('found') status!: 'found';
    }
    class Missing {
      @Param() @IsString() status!: string;
    }
    @Tool({ name: 'find', description: 'Find', input: EmptyInput, output: [Found, Missing] })
    class FindTool {
      execute(): object {
        return { status: 'found' };
      }
    }
    const error = buildError([FindTool]);
    expect(error.message).toMatch(/FindTool: the output union Found \| Missing has no common literal field/);
    expect(error.message).toMatch(/@Equals\('found'\) status/);
  });

  it('rejects an output class with an unknowable property', () => {
    class Loose {
      @Param() data!: unknown;
    }
    @Tool({ name: 'loose', description: 'Loose', input: EmptyInput, output: Loose })
    class LooseTool {
      execute(): object {
        return {};
      }
    }
    expect(buildError([LooseTool]).message).toMatch(/Cannot know the type of Loose\.data/);
  });
});

describe('built definitions', () => {
  class RefundInput {
    @Param({ description: 'The order ID' }) @IsString() @MinLength(1) order_id!: string;
    @Param() @IsOptional() @IsNumber() amount?: number;
  }
  @Tool({ name: 'refund', description: 'Refund an order', input: RefundInput })
  class RefundTool {
    execute(): string {
      return '{"status":"ok"}';
    }
  }

  it('are deeply frozen', () => {
    const [definition] = ToolRegistry.build({ tools: [RefundTool] }).definitions();
    expect(Object.isFrozen(definition)).toBe(true);
    expect(Object.isFrozen(definition.parameters)).toBe(true);
    expect(Object.isFrozen(definition.parameters.properties!.order_id)).toBe(true);
    expect(() => {
      (definition as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it('are cached: the same objects on every call', () => {
    const registry = ToolRegistry.build({ tools: [RefundTool] });
    expect(registry.definitions()).toBe(registry.definitions());
    expect(registry.definitions()[0]).toBe(registry.definitions()[0]);
  });

  it('are what registry.get(name).definition() returns', () => {
    const registry = ToolRegistry.build({ tools: [RefundTool] });
    const tool = registry.get('refund');
    expect(tool.definition()).toBe(registry.definitions()[0]);
    expect(tool.definition()).toBe(tool.definition());
    expect(tool.definition()).toEqual({
      name: 'refund',
      description: 'Refund an order',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', minLength: 1, description: 'The order ID' }, amount: { type: 'number' } },
        required: ['order_id'],
        additionalProperties: false,
      },
    });
  });

  it('list names, has() and definitions in registration order', () => {
    @Tool({ name: 'second', description: 'Second', input: EmptyInput })
    class SecondTool {
      execute(): string {
        return '{}';
      }
    }
    const registry = ToolRegistry.build({ tools: [RefundTool, SecondTool] });
    expect(registry.names()).toEqual(['refund', 'second']);
    expect(registry.definitions().map((d) => d.name)).toEqual(['refund', 'second']);
    expect(registry.has('second')).toBe(true);
    expect(registry.has('third')).toBe(false);
  });

  it('let a hand-written definition() win over @Tool metadata, and validate against it', async () => {
    class IgnoredInput {
      @Param() @IsString() ignored!: string;
    }
    @Tool({ name: 'hand_written', description: 'From the decorator', input: IgnoredInput })
    class HandWrittenTool implements ToolInterface {
      definition(): ToolDefinition {
        return {
          name: 'hand_written',
          description: 'From definition()',
          parameters: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
        };
      }
      execute(args: Record<string, unknown>): string {
        return JSON.stringify(args);
      }
    }
    const registry = ToolRegistry.build({ tools: [HandWrittenTool] });
    expect(registry.definitions()[0]).toEqual({
      name: 'hand_written',
      description: 'From definition()',
      parameters: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    });
    expect(Object.isFrozen(registry.definitions()[0])).toBe(true);
    await expect(registry.call('hand_written', '{"count":3}')).resolves.toBe('{"count":3}');
    await expect(registry.call('hand_written', '{"ignored":"x"}')).rejects.toBeInstanceOf(ToolInputError);
  });
});
