/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios, the
 * default "active" suite) against samples/mcp-everything. A scenario fails the test when it fails
 * and is not in expected-failures.json, and when it is listed there but passes: the list only shrinks.
 * The suite's CLI needs Node 22+ (fs.globSync): on an older Node it runs on .ci/node24.sh's binary,
 * while the server under test runs on this Node.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/servers';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const expected = JSON.parse(readFileSync(join(__dirname, 'expected-failures.json'), 'utf8')) as Record<string, string>;

jest.setTimeout(300_000);

function suiteNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return execFileSync('bash', [join(ROOT, '.ci/node24.sh')], { encoding: 'utf8' }).trim();
}

let server: ChildProcess | undefined;
let url: string;
let serverLog = '';
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const port = await freePort();
  server = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', 'samples/mcp-everything/main.ts', '--port', String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sample did not print its URL in 60s:\n${serverLog}`)), 60_000);
    server!.stdout!.on('data', (chunk: Buffer) => {
      serverLog += chunk.toString();
      const found = /http:\/\/\S+\/mcp/.exec(serverLog);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    server!.stderr!.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    server!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sample exited with ${code}:\n${serverLog}`));
    });
  });
});

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server!.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Runs the active suite; returns each scenario's verdict from its SUMMARY lines. */
function runSuite(): Promise<Map<string, boolean>> {
  return new Promise((resolve, reject) => {
    const child = spawn(suiteNode(), [CLI, 'server', '--url', url], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      const count = /Running active suite \((\d+) scenarios\)/.exec(out);
      const summary = out.slice(out.indexOf('=== SUMMARY ==='));
      const verdicts = new Map<string, boolean>();
      for (const m of summary.matchAll(/^([✓✗]) (\S+): \d+ passed, (\d+) failed$/gmu)) verdicts.set(m[2], m[1] === '✓' && m[3] === '0');
      if (!count || verdicts.size !== Number(count[1]))
        reject(new Error(`could not read the suite's summary:\n${out}\n--- server:\n${serverLog}`));
      else resolve(verdicts);
    });
  });
}

it('passes every active server scenario not listed in expected-failures.json, and none listed', async () => {
  const verdicts = await runSuite();
  const unexpected = [...verdicts].filter(([name, passed]) => !passed && !(name in expected)).map(([name]) => name);
  const stale = [...verdicts].filter(([name, passed]) => passed && name in expected).map(([name]) => name);
  const unknown = Object.keys(expected).filter((name) => !verdicts.has(name));
  expect({ unexpected, stale, unknown }).toEqual({ unexpected: [], stale: [], unknown: [] });
});
