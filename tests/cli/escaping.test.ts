import { escapeControl } from '../../src/cli/program';
import { buildCli, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

/** Any character a terminal would act on instead of showing (newline and tab are fine). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('CLI output never carries terminal control characters', () => {
  let cli: BuiltCli;
  beforeAll(() => {
    cli = buildCli();
  }, 180_000);

  it('escapes a tool error message that tries to retitle and clear the terminal', async () => {
    const run = await runNode(cli.main, ['call', 'hostile_error', '{"text":"x"}', '--module', cli.hostileFixture]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('TOOL_FAILED');
    expect(run.stderr).not.toMatch(CONTROL);
    expect(run.stderr).toContain('\\x1b]0;owned\\x07\\x1b[2J\\x1b[H\\x0dfake prompt$');
  });

  it('escapes C1 controls, DEL and bidi overrides in a result', async () => {
    const run = await runNode(cli.main, ['call', 'hostile_result', '{"text":"abc"}', '--module', cli.hostileFixture]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stdout).toBe('{"text":"\\x9b2J\\x7f\\u202e3"}\n');
  });

  it('escapes tool names and arguments echoed back in errors', async () => {
    const name = await runNode(cli.main, ['call', 'evil\u001b[2Jname', '{}', '--module', cli.hostileFixture]);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('evil\\x1b[2Jname');
    expect(name.stderr).not.toMatch(CONTROL);
    const args = await runNode(cli.main, [
      'call',
      'hostile_result',
      '{"text": 1, "\\u001b]0;x\\u0007": 2}',
      '--module',
      cli.hostileFixture,
    ]);
    expect(args.code).toBe(2);
    expect(args.stderr).toContain('INVALID_ARGUMENTS');
    expect(args.stderr).toContain('\\x1b]0;x\\x07');
    expect(args.stderr).not.toMatch(CONTROL);
  });

  it('keeps newlines and tabs, and escapes every other control character', () => {
    expect(escapeControl('a\tb\nc')).toBe('a\tb\nc');
    for (let code = 0; code <= 0x9f; code++) {
      if (code === 9 || code === 10 || (code >= 0x20 && code < 0x7f)) continue;
      const escaped = escapeControl(`<${String.fromCharCode(code)}>`);
      expect([code, CONTROL.test(escaped)]).toEqual([code, false]);
    }
  });
});
