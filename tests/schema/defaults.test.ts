import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Param, Tool, ToolDefinitionError, ToolRegistry } from 'toolwright';

describe('defaults', () => {
  it('tells the model the field initializer as the default, and the tool gets it when the argument is absent', async () => {
    class ListInput {
      @Param({ description: 'How many' }) @IsOptional() @IsInt() @Min(1) @Max(50) limit: number = 10;
      @Param({ description: 'Sort order' }) @IsOptional() @IsString() sort?: string;
    }
    @Tool({ name: 'list', description: 'List things', input: ListInput })
    class ListTool {
      execute(args: ListInput) {
        return { limit: args.limit, sort: args.sort ?? null };
      }
    }
    const registry = ToolRegistry.build({ tools: [ListTool] });
    expect(registry.definitions()[0].parameters.properties).toEqual({
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many' },
      sort: { type: 'string', description: 'Sort order' },
    });
    expect(JSON.parse(await registry.call('list', '{}'))).toEqual({ limit: 10, sort: null });
    expect(JSON.parse(await registry.call('list', '{"limit":3}'))).toEqual({ limit: 3, sort: null });
  });

  it('refuses a @Param default that differs from the initializer', () => {
    class Input {
      @Param({ default: 5 }) @IsOptional() @IsInt() limit: number = 10;
    }
    @Tool({ name: 'conflicting', description: 'd', input: Input })
    class Conflicting {
      execute() {
        return {};
      }
    }
    expect(() => ToolRegistry.build({ tools: [Conflicting] })).toThrow(ToolDefinitionError);
    expect(() => ToolRegistry.build({ tools: [Conflicting] })).toThrow(
      /Input\.limit: @Param\(\{ default: 5 \}\) differs from its initializer \(10\)/,
    );
  });
});
