import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { CliError, EXIT } from './errors';

export interface ScaffoldOptions {
  /** The class name base, PascalCase: `LookupOrder` (a trailing `Tool` is dropped). */
  name: string;
  cwd: string;
  /** Where the tool goes (default `src/tools`). */
  dir?: string;
  /** Where its test goes (default `tests/tools`). */
  testDir?: string;
  /** The module the generated files import toolwright from (default `toolwright`). */
  importFrom?: string;
  /** Overwrite existing files. */
  force?: boolean;
}

export interface ScaffoldResult {
  toolName: string;
  files: string[];
}

/** Writes `<kebab>.tool.ts` (tool class and input class) and `<kebab>.tool.test.ts` (a passing test). */
export function scaffoldTool(options: ScaffoldOptions): ScaffoldResult {
  const base = options.name.replace(/Tool$/, '');
  if (!/^[A-Z][A-Za-z0-9]*$/.test(base)) {
    throw new CliError(
      'INVALID_NAME',
      `"${options.name}" is not a PascalCase class name. Use letters and digits starting with a capital, e.g. \`toolwright new tool LookupOrder\`.`,
      EXIT.USAGE,
    );
  }
  const words = base
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(' ');
  const toolName = words.join('_');
  const fileBase = `${words.join('-')}.tool`;
  const toolFile = resolve(options.cwd, options.dir ?? 'src/tools', `${fileBase}.ts`);
  const testFile = resolve(options.cwd, options.testDir ?? 'tests/tools', `${fileBase}.test.ts`);
  const importFrom = options.importFrom ?? 'toolwright';

  if (!options.force) {
    const existing = [toolFile, testFile].filter((f) => existsSync(f));
    if (existing.length) {
      throw new CliError('FILE_EXISTS', `Not overwriting ${existing.join(' and ')}. Pick another name, or pass --force.`, EXIT.CONFLICT);
    }
  }
  let toolImport = relative(dirname(testFile), toolFile).split(sep).join('/').replace(/\.ts$/, '');
  if (!toolImport.startsWith('.')) toolImport = `./${toolImport}`;

  write(toolFile, toolSource(base, toolName, importFrom));
  write(testFile, testSource(base, toolName, importFrom, toolImport));
  return { toolName, files: [toolFile, testFile] };
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function toolSource(base: string, toolName: string, importFrom: string): string {
  return `import { IsString, MaxLength, MinLength } from 'class-validator';
import { Param, Tool, type AgentContext, type ToolInterface } from '${importFrom}';

/** The arguments the model sends. Each @Param (with its class-validator constraints) becomes part of the schema. */
export class ${base}Input {
  @Param({ description: 'What to look for, e.g. an order ID' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  query!: string;
}

/** Expected outcomes are returned as typed states; throw only for the unexpected. */
export type ${base}Result = { status: 'found'; query: string; sessionId: string } | { status: 'not_found'; query: string };

@Tool({
  name: '${toolName}',
  description: 'TODO: say what ${toolName} does and when the model should call it.',
  input: ${base}Input,
})
export class ${base}Tool implements ToolInterface<${base}Input> {
  // Services come in through the constructor (add @Service() to them): constructor(private readonly orders: OrderService) {}

  async execute({ query }: ${base}Input, context: AgentContext): Promise<${base}Result> {
    if (query === 'missing') return { status: 'not_found', query };
    return { status: 'found', query, sessionId: context.sessionId };
  }
}
`;
}

function testSource(base: string, toolName: string, importFrom: string, toolImport: string): string {
  return `import 'reflect-metadata';
import { AgentContext, AgentMemory, ToolInputError, ToolRegistry } from '${importFrom}';
import { ${base}Tool } from '${toolImport}';

describe('${base}Tool', () => {
  const registry = ToolRegistry.build({ tools: [${base}Tool] });
  const context = new AgentContext({ sessionId: 'test-session', userId: 'u-1' });
  const memory = new AgentMemory({ agentName: 'test', userId: 'u-1' });

  it('describes its parameters to the model', () => {
    const definition = registry.get('${toolName}').definition();
    expect(definition.parameters.required).toEqual(['query']);
    expect(definition.parameters.properties?.query).toMatchObject({ type: 'string', minLength: 1 });
  });

  it('returns a typed state for valid arguments', async () => {
    const out = await registry.call('${toolName}', '{"query":"A-100"}', context, memory);
    expect(JSON.parse(out)).toEqual({ status: 'found', query: 'A-100', sessionId: 'test-session' });
    expect(JSON.parse(await registry.call('${toolName}', { query: 'missing' }, context, memory))).toEqual({ status: 'not_found', query: 'missing' });
  });

  it('rejects invalid arguments with a typed error', async () => {
    const error = await registry.call('${toolName}', { query: '' }, context, memory).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).code).toBe('INVALID_ARGUMENTS');
    expect((error as ToolInputError).errors[0].path).toBe('query');
  });
});
`;
}
