/**
 * Mistakes that used to pass the build and fail later (or fail with a message blaming the wrong
 * thing): each is refused by ToolRegistry.build with a message naming what is missing and the fix.
 */
import { Type } from 'class-transformer';
import { IsNumber, ValidateNested } from 'class-validator';
import { Container, Inject, Service } from 'typedi';
import { Param, Tool, ToolDefinitionError, ToolRegistry, type ToolInterface } from 'toolwright';

class NumberInput {
  @Param({ description: 'n' }) @IsNumber() n!: number;
}

interface Clock {
  now(): number;
}

@Service()
class Ledger {
  total = 1;
}

function buildError(tool: Function): ToolDefinitionError {
  try {
    ToolRegistry.build({ tools: [tool as never] });
  } catch (error) {
    return error as ToolDefinitionError;
  }
  throw new Error('ToolRegistry.build accepted the tool');
}

describe('constructor parameters the container cannot inject', () => {
  it('refuses a parameter typed as an interface at build, naming it and the fix (it used to fail at the first call)', () => {
    @Tool({ name: 'stamp', description: 'd', input: NumberInput })
    class StampTool implements ToolInterface<NumberInput> {
      constructor(
        private readonly ledger: Ledger,
        private readonly clock: Clock,
      ) {}
      execute() {
        return { at: this.clock.now() + this.ledger.total };
      }
    }
    const error = buildError(StampTool);
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.message).toContain('StampTool: constructor parameter "clock" (#2)');
    expect(error.message).toMatch(/interface.*Object/);
    expect(error.message).toMatch(/abstract class|@Inject/);
  });

  it.each([
    ['a union', 'union'],
    ['a type alias of an object', 'alias'],
  ])('refuses %s the same way', (_label, kind) => {
    type Alias = { now(): number };
    @Tool({ name: `t_${kind}`, description: 'd', input: NumberInput })
    class UnionTool implements ToolInterface<NumberInput> {
      constructor(private readonly dep: Ledger | Alias) {}
      execute() {
        return { ok: this.dep !== undefined };
      }
    }
    expect(buildError(UnionTool).message).toContain('constructor parameter "dep" (#1)');
  });

  it('accepts the same parameter when @Inject names what to inject, and injects it', async () => {
    Container.set('clock', { now: () => 41 });
    @Tool({ name: 'stamp_injected', description: 'd', input: NumberInput })
    class StampTool implements ToolInterface<NumberInput> {
      constructor(
        private readonly ledger: Ledger,
        @Inject('clock') private readonly clock: Clock,
      ) {}
      execute() {
        return { at: this.clock.now() + this.ledger.total };
      }
    }
    const registry = ToolRegistry.build({ tools: [StampTool] });
    const { AgentContext, AgentMemory } = await import('toolwright');
    expect(
      await registry.call(
        'stamp_injected',
        { n: 1 },
        new AgentContext({ sessionId: 's' }),
        new AgentMemory({ agentName: 'a', userId: 'u' }),
      ),
    ).toBe('{"at":42}');
  });

  it('a custom container decides for itself (nothing is refused on its behalf)', () => {
    @Tool({ name: 'custom', description: 'd', input: NumberInput })
    class CustomTool implements ToolInterface<NumberInput> {
      constructor(private readonly clock: Clock) {}
      execute() {
        return { at: this.clock.now() };
      }
    }
    const registry = ToolRegistry.build({
      tools: [CustomTool],
      container: { get: (cls) => new (cls as new (c: Clock) => never)({ now: () => 1 }) },
    });
    expect(registry.names()).toEqual(['custom']);
  });
});

describe('a nested class whose decorators have not run', () => {
  const expectNotLoaded = (tool: Function, what: RegExp) => {
    const error = buildError(tool);
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error.message).toMatch(what);
    expect(error.message).toContain('decorators have not run yet');
    expect(error.message).toMatch(/import cycle/);
    expect(error.message).not.toContain('Cannot know the type');
  };

  it('a @Type thunk that returns undefined (the class is in a module still loading)', () => {
    const modules: { Address?: Function } = {}; // as a circular import leaves it
    class Input {
      @Param({ description: 'a' }) @ValidateNested() @Type(() => modules.Address as never) address!: object;
    }
    @Tool({ name: 'ship', description: 'd', input: Input })
    class ShipTool implements ToolInterface<Input> {
      execute() {
        return {};
      }
    }
    expectNotLoaded(ShipTool, /The type of Input\.address names a class that is undefined at build time/);
  });

  it('a property typed with a class that was undefined when it was decorated', () => {
    class Input {
      @Param({ description: 'a' }) @ValidateNested() address!: object;
    }
    // What TypeScript emits for `address!: Address` when Address is an import not yet initialized.
    Reflect.defineMetadata('design:type', undefined, Input.prototype, 'address');
    @Tool({ name: 'ship2', description: 'd', input: Input })
    class ShipTool implements ToolInterface<Input> {
      execute() {
        return {};
      }
    }
    expectNotLoaded(ShipTool, /The TypeScript type of Input\.address was undefined when Input was decorated/);
  });
});
