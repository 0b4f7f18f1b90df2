/**
 * `toolwright call` and `context.elicit` / `elicitUrl`: no one at the CLI answers mid-call, so the
 * call fails with INPUT_UNAVAILABLE as it does on every surface without a sink (a direct
 * `registry.call`: tests/registry/elicit.test.ts), never hangs or pauses. The built CLI runs as a
 * subprocess on a plain JS tools module written to a temp dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCli, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

describe('toolwright call: a tool that asks the person (built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwright-cli-elicit-'));
  let cli: BuiltCli;
  let module: string;

  beforeAll(() => {
    cli = buildCli();
    module = join(dir, 'asking-tools.js');
    writeFileSync(
      module,
      `'use strict';
const { ToolRegistry } = require(${JSON.stringify(join(dirname(cli.main), '..', 'index.js'))});
class AskTool {
  definition() {
    return { name: 'ask', description: 'Asks the user to open a page', parameters: { type: 'object', properties: { catch: { type: 'boolean' } }, additionalProperties: false } };
  }
  async execute(args, context) {
    try {
      const answer = await context.elicitUrl('Sign in on this page', 'https://example.com/sign-in');
      return JSON.stringify({ answer });
    } catch (error) {
      if (!args.catch) throw error;
      return JSON.stringify({ caught: error.code });
    }
  }
}
exports.registry = ToolRegistry.build({ container: { get: (cls) => new cls() }, tools: [AskTool] });
`,
    );
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails with INPUT_UNAVAILABLE (no answer invented, no pause)', async () => {
    const { code, stdout, stderr } = await runNode(cli.main, ['call', 'ask', '{}', '--module', module]);
    expect(code).not.toBe(0);
    expect(stdout + stderr).toContain('INPUT_UNAVAILABLE');
    expect(stdout).not.toContain('answer');
  });

  it('a tool that catches it sees the typed error and goes on', async () => {
    const { code, stdout } = await runNode(cli.main, ['call', 'ask', '{"catch":true}', '--module', module]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ caught: 'INPUT_UNAVAILABLE' });
  });
});
