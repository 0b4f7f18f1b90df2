/**
 * `@opentelemetry/api` is an optional peer: an app that does not trace never loads it, and an app
 * where it cannot be loaded still calls its tools. Each case runs in a fresh Node process.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** Runs `body` after loading toolwright from source; prints what it writes to stdout. */
function run(body: string, preload = ''): unknown {
  const script = `${preload}
const { AgentContext, Param, Tool, ToolRegistry } = require('./src/index.ts');
const { IsString } = require('class-validator');
class Input {}
Param({ description: 'Some text' })(Input.prototype, 'text');
IsString()(Input.prototype, 'text');
class Echo { execute(args) { return { text: args.text }; } }
Tool({ name: 'echo', description: 'Echo', input: Input })(Echo);
const registry = ToolRegistry.build({ tools: [Echo] });
const loadedApi = () => Object.keys(require.cache).some((f) => f.includes('node_modules/@opentelemetry/api/'));
(async () => { ${body} })().catch((e) => { process.stdout.write(JSON.stringify({ failed: String(e && e.stack || e) })); });`;
  const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out);
}

describe('@opentelemetry/api as an optional peer', () => {
  it('an app without a tracer provider never loads it, not even on a call', () => {
    expect(
      run(`
        const result = await registry.call('echo', '{"text":"hi"}', new AgentContext({ sessionId: 's' }));
        process.stdout.write(JSON.stringify({ result, loadedApi: loadedApi() }));`),
    ).toEqual({ result: '{"text":"hi"}', loadedApi: false });
  });

  it('a registered provider that this package cannot load the API for: calls still work, untraced', () => {
    // As if another copy of the API registered a provider while ours is not installed.
    const preload = `
const Module = require('node:module');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@opentelemetry/api') throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: 'MODULE_NOT_FOUND' });
  return resolveFilename.call(this, request, ...rest);
};
globalThis[Symbol.for('opentelemetry.js.api.1')] = { version: '1.9.0', trace: {} };`;
    expect(
      run(
        `
        const first = await registry.call('echo', '{"text":"a"}');
        const second = await registry.call('echo', { text: 'b' });
        process.stdout.write(JSON.stringify({ first, second, loadedApi: loadedApi() }));`,
        preload,
      ),
    ).toEqual({ first: '{"text":"a"}', second: '{"text":"b"}', loadedApi: false });
  });
});
