import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildCli, ROOT, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

describe('toolwright new tool (built CLI)', () => {
  let cli: BuiltCli;
  let project: string;

  beforeAll(() => {
    cli = buildCli();
    mkdirSync(join(ROOT, '.toolwright'), { recursive: true });
    project = mkdtempSync(join(ROOT, '.toolwright', 'scaffold-'));
  }, 180_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  /**
   * The output must equal the golden files in tests/fixtures/scaffold, which the repo's strict
   * `tsc` type-checks and whose generated test runs in this suite (toolwright mapped to src):
   * so what `new tool` writes compiles and passes. After changing the templates, regenerate with
   * `cd tests/fixtures/scaffold && node <built cli> new tool LookupOrder --force`.
   */
  it('writes a tool, its input class and a test, exactly the type-checked, passing golden files', async () => {
    const { code, stdout, stderr } = await runNode(cli.main, ['new', 'tool', 'LookupOrderTool'], project);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const files = ['src/tools/lookup-order.tool.ts', 'tests/tools/lookup-order.tool.test.ts'];
    expect(stdout).toBe(`Created tool "lookup_order":\n${files.map((f) => `  ${join(project, f)}\n`).join('')}`);
    for (const file of files) {
      expect(readFileSync(join(project, file), 'utf8')).toBe(readFileSync(join(ROOT, 'tests/fixtures/scaffold', file), 'utf8'));
    }
    const source = readFileSync(join(project, files[0]), 'utf8');
    expect(source).toContain('export class LookupOrderInput');
    expect(source).toContain("name: 'lookup_order'");
    expect(source).toContain('export class LookupOrderTool implements ToolInterface<LookupOrderInput>');
  });

  it('refuses to overwrite (exit 4) unless --force', async () => {
    const dir = mkdtempSync(join(project, 'again-'));
    expect((await runNode(cli.main, ['new', 'tool', 'Refund'], dir)).code).toBe(0);
    const again = await runNode(cli.main, ['new', 'tool', 'Refund'], dir);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(
      `Not overwriting ${join(dir, 'src/tools/refund.tool.ts')} and ${join(dir, 'tests/tools/refund.tool.test.ts')}`,
    );
    expect(again.stderr).toContain('--force');
    expect((await runNode(cli.main, ['new', 'tool', 'Refund', '--force', '--dir', 'lib', '--test-dir', 'spec'], dir)).code).toBe(0);
    expect(existsSync(join(dir, 'lib/refund.tool.ts'))).toBe(true);
    expect(readFileSync(join(dir, 'spec/refund.tool.test.ts'), 'utf8')).toContain("from '../lib/refund.tool'");
  });

  it('rejects a name that is not a PascalCase class name (exit 2)', async () => {
    const { code, stderr } = await runNode(cli.main, ['new', 'tool', 'lookup-order'], project);
    expect(code).toBe(2);
    expect(stderr).toContain('"lookup-order" is not a PascalCase class name');
    expect(stderr).toContain('toolwright new tool LookupOrder');
  });
});
