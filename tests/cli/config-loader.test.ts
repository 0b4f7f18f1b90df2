/**
 * The CLI loads a tools module in CommonJS and ESM apps alike: `.ts`, `.mts`, `.cts`, `.js`-suffixed
 * imports of TypeScript files, top-level await; decorators keep their metadata. A module that
 * fails to load says why on stderr, `toolwright mcp` over stdio included (an MCP client shows only
 * "Connection closed").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildCli, ROOT, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

/** The tools module of an ESM app; `toolwright` is the compiled package (the CLI build's index.js). */
const TOOLS = (toolwright: string) => `import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import { Param, Tool, ToolRegistry, type ToolInterface } from ${JSON.stringify(toolwright)};

export class GreetInput {
  @Param({ description: 'Who to greet' })
  @IsString()
  @MinLength(2)
  name!: string;
}

@Tool({ name: 'greet', description: 'Greet someone', input: GreetInput })
export class GreetTool implements ToolInterface<GreetInput> {
  execute(args: GreetInput) {
    return { greeting: \`hello \${args.name}\` };
  }
}

export const registry = ToolRegistry.build({ tools: [GreetTool] });
`;

describe('toolwright loads tools modules in ESM apps', () => {
  let cli: BuiltCli;
  let app: string;

  beforeAll(() => {
    cli = buildCli();
    mkdirSync(join(ROOT, '.toolwright'), { recursive: true });
    app = mkdtempSync(join(ROOT, '.toolwright', 'esm-app-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(app, 'tools.ts'), TOOLS(join(dirname(cli.main), '..', 'index.js')));
    // The default module, importing a sibling TypeScript file with the `.js` suffix ESM requires.
    writeFileSync(join(app, 'toolwright.config.ts'), "export { registry } from './tools.js';\n");
    writeFileSync(
      join(app, 'config.mts'),
      "import { registry as r } from './tools.js';\nexport const registry = await Promise.resolve(r); // top-level await\n",
    );
    writeFileSync(join(app, 'config.cts'), "import { registry } from './tools.js';\nexport default registry;\n");
    writeFileSync(join(app, 'broken.ts'), "import './tools.js';\nthrow new Error('cannot reach the config service');\n");
  }, 300_000);
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it.each([
    ['./toolwright.config.ts (the default)', []],
    ['config.mts (top-level await)', ['--module', 'config.mts']],
    ['config.cts', ['--module', 'config.cts']],
  ])(
    '%s: lists the tool with the schema its decorators describe, and validates calls by them',
    async (_label, module) => {
      const [listed, ok, invalid] = await Promise.all([
        runNode(cli.main, ['list', '--format', 'json', ...module], app),
        runNode(cli.main, ['call', 'greet', '{"name":"ada"}', ...module], app),
        runNode(cli.main, ['call', 'greet', '{"name":"a"}', ...module], app),
      ]);
      expect(listed.stderr).toBe('');
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({
          name: 'greet',
          parameters: expect.objectContaining({ properties: { name: { type: 'string', minLength: 2, description: 'Who to greet' } } }),
        }),
      ]);
      expect(ok).toEqual({ code: 0, stdout: '{"greeting":"hello ada"}\n', stderr: '' });
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('INVALID_ARGUMENTS');
    },
    180_000,
  );

  it('over MCP stdio, a module that fails to load prints its reason on stderr and exits 3', async () => {
    const { code, stdout, stderr } = await runNode(cli.main, ['mcp', '--module', 'broken.ts'], app);
    expect(code).toBe(3);
    expect(stdout).toBe(''); // nothing on the protocol channel
    expect(stderr).toBe('toolwright: Loading broken.ts failed: cannot reach the config service\n');
  }, 180_000);
});
