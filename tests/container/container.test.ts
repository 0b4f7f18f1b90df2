import 'reflect-metadata';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Container, ContainerInstance, Inject, Service, Token } from 'typedi';
import { fromTypedi, Param, Tool, ToolDefinitionError, ToolRegistry, type ClassType } from '../../src';
import { transformerStorage } from '../../src/metadata/private-apis';

/** Sizes of the process-wide stores a build could grow (typedi's global container, class-validator's store). */
function globalState() {
  const typedi = Container as unknown as { instances: unknown[]; handlers: unknown[] };
  const services = (Container.of() as unknown as { services: unknown[] }).services;
  const validation = (getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown[]> }).validationMetadatas;
  return {
    typediServices: services.length,
    typediContainers: typedi.instances.length,
    typediHandlers: typedi.handlers.length,
    validatedClasses: validation.size,
    validationMetadatas: [...validation.values()].reduce((n, list) => n + list.length, 0),
  };
}

@Service()
class Ledger {
  readonly entries: string[] = [];
}

/** A fresh tool (own input and nested class), as a scoped tool factory would define per tenant. */
function defineTool(name: string): ClassType {
  class Address {
    @Param({ description: 'City' }) @IsString() city!: string;
  }
  class Input {
    @Param({ description: 'Order' }) @IsString() order_id!: string;
    @Param({ description: 'Address' }) @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
  }
  @Tool({ name, description: `Tool ${name}`, input: Input })
  class LedgerTool {
    constructor(readonly ledger: Ledger) {}
    execute(args: Input): object {
      this.ledger.entries.push(`${name}:${args.order_id}`);
      return { ok: true };
    }
  }
  return LedgerTool;
}

describe('ToolRegistry.build leaves no process-wide state behind', () => {
  it('building many registries of fresh tool classes grows neither typedi nor class-validator', async () => {
    const batches = Array.from({ length: 20 }, (_, b) => Array.from({ length: 5 }, (_, i) => defineTool(`t_${b}_${i}`)));
    const before = globalState();
    const registries = batches.map((tools) => ToolRegistry.build({ tools }));
    expect(globalState()).toEqual(before);
    for (const tool of batches.flat()) expect(Container.has(tool)).toBe(false);
    // ... and the tools still work, with their @Service() from the global container.
    await registries[3].call('t_3_1', { order_id: 'A-1' });
    expect(Container.get(Ledger).entries).toContain('t_3_1:A-1');
  });

  it("building the same tools again adds nothing either, class-transformer's per-class caches included", () => {
    const tools = [defineTool('again_a'), defineTool('again_b')];
    ToolRegistry.build({ tools });
    // class-transformer caches each class's ancestors on first lookup: once per class, never per registry.
    const transformerCaches = () => (transformerStorage as unknown as { _ancestorsMap: Map<unknown, unknown> })._ancestorsMap.size;
    const before = { ...globalState(), transformerCaches: transformerCaches() };
    for (let i = 0; i < 10; i++) ToolRegistry.build({ tools });
    expect({ ...globalState(), transformerCaches: transformerCaches() }).toEqual(before);
  });

  it('a custom typedi container is not grown by the tools it resolves', () => {
    const container = new ContainerInstance('custom-no-growth');
    const services = () => (container as unknown as { services: unknown[] }).services.length;
    container.set(Ledger, new Ledger());
    const before = services();
    const tool = defineTool('custom_tool');
    ToolRegistry.build({ tools: [tool], container: fromTypedi(container) });
    ToolRegistry.build({ tools: [tool], container: fromTypedi(container) });
    expect(services()).toBe(before);
    expect(container.has(tool)).toBe(false);
  });
});

describe('typedi injection through the default container', () => {
  it('injects the global singleton of a @Service(), including one replaced with Container.set', () => {
    const tool = defineTool('singleton_dep');
    const registry = ToolRegistry.build({ tools: [tool] });
    expect((registry.get('singleton_dep') as unknown as { ledger: Ledger }).ledger).toBe(Container.get(Ledger));

    const fake = new Ledger();
    const original = Container.get(Ledger);
    Container.set(Ledger, fake);
    try {
      const again = ToolRegistry.build({ tools: [tool] });
      expect((again.get('singleton_dep') as unknown as { ledger: Ledger }).ledger).toBe(fake);
    } finally {
      Container.set(Ledger, original);
    }
  });

  it('takes from the container a tool registered there (@Service() on the tool), as typedi decides', () => {
    class Input {}
    @Service()
    @Tool({ name: 'registered_tool', description: 'Registered', input: Input })
    class RegisteredTool {
      execute(): object {
        return {};
      }
    }
    const registry = ToolRegistry.build({ tools: [RegisteredTool] });
    expect(registry.get('registered_tool')).toBe(Container.get(RegisteredTool));
  });

  it('honours @Inject on constructor parameters and properties, resolved from the given container', () => {
    const GREETING = new Token<string>('greeting');
    const container = new ContainerInstance('inject-handlers');
    container.set(GREETING, 'hello');
    container.set(Ledger, new Ledger());
    class Input {}
    @Tool({ name: 'injected', description: 'Injected', input: Input })
    class InjectedTool {
      @Inject(() => Ledger) ledger!: Ledger;
      constructor(@Inject(GREETING) readonly greeting: string) {}
      execute(): object {
        return { greeting: this.greeting };
      }
    }
    const tool = ToolRegistry.build({ tools: [InjectedTool], container: fromTypedi(container) }).get('injected') as unknown as InjectedTool;
    expect(tool.greeting).toBe('hello');
    expect(tool.ledger).toBe(container.get(Ledger));
  });

  it('names the tool and the fix when a dependency is not registered', () => {
    class Unregistered {}
    class Input {}
    @Tool({ name: 'missing_dep', description: 'Missing', input: Input })
    class MissingDepTool {
      constructor(readonly dep: Unregistered) {}
      execute(): object {
        return {};
      }
    }
    expect(() => ToolRegistry.build({ tools: [MissingDepTool] })).toThrow(ToolDefinitionError);
    expect(() => ToolRegistry.build({ tools: [MissingDepTool] })).toThrow(/Could not resolve MissingDepTool.*Register its dependencies/);
    expect(() => ToolRegistry.build({ tools: [MissingDepTool] })).toThrow(/ToolRegistry\.build\(\{ tools, container \}\)/);
  });

  it('a container that is not typedi gets its own words and no typedi advice, with one period', () => {
    class Input {}
    @Tool({ name: 'other_container', description: 'Other', input: Input })
    class OtherTool {
      execute(): object {
        return {};
      }
    }
    const failing = {
      get(): never {
        throw new Error('Nest cannot find OtherTool in the AppModule context.');
      },
    };
    const error = (() => {
      try {
        ToolRegistry.build({ tools: [OtherTool], container: failing });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('the build should have failed');
    })();
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error.message).toBe(
      'Could not resolve OtherTool from the container: Nest cannot find OtherTool in the AppModule context. Make the container provide it and its dependencies.',
    );
    const advised = { ...failing, unresolvedAdvice: 'Add it to a module.' };
    expect(() => ToolRegistry.build({ tools: [OtherTool], container: advised })).toThrow(/context\. Add it to a module\.$/);
  });
});
