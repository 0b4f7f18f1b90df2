/**
 * The built CLI (`toolwright call`), in a process where the app's preload registered an
 * OpenTelemetry tracer provider, emits the same execute_tool spans as every other surface.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, ROOT, type BuiltCli } from '../cli/build-cli';

const resolveDep = (name: string) => JSON.stringify(require.resolve(name, { paths: [ROOT] }));

/** What an app's `node -r ./tracing.js` does: a global provider whose exporter writes each finished span as a JSON line. */
const PRELOAD = (out: string) => `
const { appendFileSync } = require('node:fs');
const { trace } = require(${resolveDep('@opentelemetry/api')});
const { BasicTracerProvider, SimpleSpanProcessor } = require(${resolveDep('@opentelemetry/sdk-trace-base')});
const exporter = {
  export(spans, done) {
    for (const s of spans) appendFileSync(${JSON.stringify(out)}, JSON.stringify({ name: s.name, attributes: s.attributes, status: s.status, events: s.events }) + '\\n');
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
`;

describe('toolwright call with a tracer provider registered', () => {
  let cli: BuiltCli;
  let dir: string;

  beforeAll(() => {
    cli = buildCli();
    dir = mkdtempSync(join(tmpdir(), 'toolwright-cli-spans-'));
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function callTraced(
    tool: string,
    args: string,
    label = tool,
  ): { code: number | null; spans: { name: string; attributes: Record<string, unknown>; status: { code: number } }[] } {
    const out = join(dir, `${label}.jsonl`);
    const preload = join(dir, `${label}-preload.js`);
    writeFileSync(out, '');
    writeFileSync(preload, PRELOAD(out));
    const run = spawnSync(process.execPath, ['-r', preload, cli.main, 'call', tool, args, '--module', cli.fixture, '--session', 's-cli'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const spans = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    return { code: run.status, spans };
  }

  it('a call: one execute_tool span with the session as the conversation', () => {
    const { code, spans } = callTraced('add', '{"a":2,"b":40}');
    expect(code).toBe(0);
    expect(spans.map((s) => s.name)).toEqual(['execute_tool add']);
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.conversation.id': 's-cli',
    });
    expect(spans[0].attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
  });

  it('a failing call: error.type TOOL_FAILED, status ERROR (2)', () => {
    const { code, spans } = callTraced('explode', '{}');
    expect(code).not.toBe(0);
    expect(spans.map((s) => [s.name, s.attributes['error.type'], s.status.code])).toEqual([['execute_tool explode', 'TOOL_FAILED', 2]]);
  });

  it.each([
    ['a tool error quoting a secret', 'explode', '{}', 'hunter2'],
    ['argument text that is not JSON', 'add', 'CANARY4x7q is not JSON', 'CANARY4x7q'],
    ['an unknown argument key', 'add', '{"a":1,"b":2,"CANARY4x7q":1}', 'CANARY4x7q'],
  ])('%s: the span carries the code, never the text (recordContent is off)', (label, tool, args, canary) => {
    const { code, spans } = callTraced(tool, args, label.replace(/\W+/g, '-'));
    expect(code).not.toBe(0);
    expect(spans).toHaveLength(1);
    expect(spans[0].status).toEqual({ code: 2, message: spans[0].attributes['error.type'] });
    expect(JSON.stringify(spans)).not.toContain(canary);
  });
});
