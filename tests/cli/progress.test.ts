import { join } from 'node:path';
import { buildCli, ROOT, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

/** The TypeScript tools module, loaded by the built CLI as a user's `toolwright.config.ts` would be. */
const MODULE = join(ROOT, 'tests/support/progress-tools.ts');

describe('toolwright call: progress on stderr (built CLI)', () => {
  let cli: BuiltCli;
  const call = (...args: string[]) => runNode(cli.main, ['call', ...args, '--module', MODULE]);

  beforeAll(() => {
    cli = buildCli();
  }, 180_000);

  it('prints each report on stderr as it comes, and only the result on stdout', async () => {
    const { code, stdout, stderr } = await call('count', '{"steps":3}');
    expect({ code, stderr }).toEqual({
      code: 0,
      // The registry passes every report on: a surface that needs increasing values (MCP) filters them.
      stderr: '[count] 1/3 step 1 of 3\n[count] 2/3 step 2 of 3\n[count] 1/3 stale\n[count] 3/3 step 3 of 3\n',
    });
    expect(JSON.parse(stdout)).toEqual({ done: 3 });
  });

  it('leaves out the total when the tool gave none', async () => {
    const { code, stderr } = await call('reports', '{"values":[1,5]}');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '[reports] 1 #0\n[reports] 5 #1\n' });
  });

  it('prints nothing on stderr for a tool that reports nothing', async () => {
    const { code, stdout, stderr } = await call('observed');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ observed: [] });
  });
});
