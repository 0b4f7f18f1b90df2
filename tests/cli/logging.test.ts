/**
 * `toolwright call` and `context.log`: each log on stderr as `[<tool>] <level>: <message>`, as it
 * comes, control characters escaped; stdout stays the result alone. The built CLI runs as a
 * subprocess on a tools module written to a temp dir (on the CLI's own compiled toolwright, as a
 * user's module imports the installed package).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCli, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';
import { writeLoggingTools } from '../support/logging-tools';

/** Any character a terminal would act on instead of showing (newline and tab are fine). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const DROPPED = 'toolwright: this call logged more than 1000 messages; the rest are dropped.';

describe('toolwright call: context.log on stderr (built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwright-cli-logging-'));
  let cli: BuiltCli;
  let module: string;
  const call = (tool: string, args: object) => runNode(cli.main, ['call', tool, JSON.stringify(args), '--module', module]);
  const entries = (...list: Array<{ level: string; message: string; data?: unknown }>) => ({ entries: list });

  beforeAll(() => {
    cli = buildCli();
    module = writeLoggingTools(dir, join(dirname(cli.main), '..', 'index.js'));
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every log on stderr in order, at every level, and only the result on stdout', async () => {
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
    const { code, stdout, stderr } = await call('log', entries(...levels.map((level) => ({ level, message: `at ${level}` }))));
    expect({ code, stderr }).toEqual({ code: 0, stderr: levels.map((level) => `[log] ${level}: at ${level}\n`).join('') });
    expect(stdout).toBe('{"logged":8}\n');
    expect(JSON.parse(stdout)).toEqual({ logged: 8 });
  });

  it('prints the message of a log that has data (the data stays out of the terminal)', async () => {
    const { code, stdout, stderr } = await call('log', entries({ level: 'info', message: 'fetched', data: { rows: 3, secret: 'kept' } }));
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '{"logged":1}\n', stderr: '[log] info: fetched\n' });
  });

  it('escapes control characters in a message: an ESC prints as \\x1b', async () => {
    const { code, stdout, stderr } = await call(
      'log',
      entries(
        { level: 'warning', message: '\u001b]0;owned\u0007\u001b[2Jcleared' },
        { level: 'info', message: 'C1 \u009b and DEL \u007f' },
      ),
    );
    expect(code).toBe(0);
    expect(stderr).not.toMatch(CONTROL);
    expect(stderr).toBe('[log] warning: \\x1b]0;owned\\x07\\x1b[2Jcleared\n[log] info: C1 \\x9b and DEL \\x7f\n');
    expect(stdout).toBe('{"logged":2}\n');
  });

  it('indents a message’s further lines, so none can pass for a log line of its own', async () => {
    const { code, stderr } = await call('log', entries({ level: 'info', message: 'first\n[log] error: forged\nthird' }));
    expect(code).toBe(0);
    expect(stderr).toBe('[log] info: first\n  [log] error: forged\n  third\n');
  });

  it('prints 1000 logs of a call, then one warning that the rest are dropped', async () => {
    const { code, stdout, stderr } = await call('log', { ...entries({ level: 'info', message: 'line' }), times: 1200, numbered: true });
    expect(code).toBe(0);
    expect(stdout).toBe('{"logged":1200}\n');
    const lines = stderr.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1001);
    expect(lines.slice(0, 1000)).toEqual(Array.from({ length: 1000 }, (_, i) => `[log] info: line ${i}`));
    expect(lines[1000]).toBe(`[log] warning: ${DROPPED}`);
  });

  it('fails a tool that logs an invalid level with TOOL_FAILED (exit 1), after printing the logs before it', async () => {
    const { code, stdout, stderr } = await call(
      'log',
      entries({ level: 'info', message: 'before' }, { level: 'loud', message: 'bad level' }, { level: 'info', message: 'never' }),
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.startsWith('[log] info: before\ntoolwright: TOOL_FAILED: ')).toBe(true);
    expect(stderr).toContain(
      'context.log: level must be one of debug, info, notice, warning, error, critical, alert, emergency (got loud)',
    );
    expect(stderr).not.toContain('never');
  });

  it('prints nothing on stderr for a call that logs nothing', async () => {
    const { code, stdout, stderr } = await call('log', entries());
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '{"logged":0}\n', stderr: '' });
  });
});
