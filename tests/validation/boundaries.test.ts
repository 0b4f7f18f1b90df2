import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IsInt, Min } from 'class-validator';
import { Param, Tool, ToolInputError, ToolRegistry } from 'toolwright';

/*
 * Schema building and validation share no module-level state: what a registry's validators need
 * to name their errors (checks, keyword → constraint refs) is built with its class plans and
 * handed over explicitly. Validation modules import only types from the schema modules.
 */
describe('schema and validation share no module-level state', () => {
  const dir = join(__dirname, '../../src/validation');

  test.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))('src/validation/%s imports only types from src/schema', (file) => {
    const source = readFileSync(join(dir, file), 'utf8');
    const valueImports = [...source.matchAll(/^import (?!type )[^;]*from '\.\.\/schema\/[^']+';/gm)].map((m) => m[0]);
    expect(valueImports).toEqual([]);
  });

  test('two registries of the same class keep their own constraint tables', async () => {
    class Input {
      @Param() @IsInt() @Min(5) n!: number;
    }
    const make = (name: string) => {
      @Tool({ name, description: name, input: Input })
      class T {
        execute(): string {
          return '{}';
        }
      }
      return ToolRegistry.build({ tools: [T] });
    };
    const first = make('first');
    const second = make('second');
    for (const [registry, name] of [
      [second, 'second'],
      [first, 'first'],
    ] as const) {
      const error = await registry.call(name, { n: 1 }).then(
        () => undefined,
        (e: unknown) => e as ToolInputError,
      );
      expect(error?.errors).toEqual([{ path: 'n', constraint: 'min', message: 'n must not be less than 5' }]);
    }
  });
});
