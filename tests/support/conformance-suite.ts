/**
 * Runs the official MCP conformance CLI against samples/mcp-everything and reads each scenario's
 * verdict from its SUMMARY lines. The suite's CLI needs Node 22+ (fs.globSync): on an older Node it
 * runs on .ci/node24.sh's binary, while the server under test runs on this Node.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './servers';

const ROOT = join(__dirname, '..', '..');

function suiteNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return execFileSync('bash', [join(ROOT, '.ci/node24.sh')], { encoding: 'utf8' }).trim();
}

export interface EverythingServer {
  url: string;
  log(): string;
  stop(): Promise<void>;
}

export async function startEverything(): Promise<EverythingServer> {
  const workDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const port = await freePort();
  const server: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', 'samples/mcp-everything/main.ts', '--port', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serverLog = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sample did not print its URL in 60s:\n${serverLog}`)), 60_000);
    server.stdout!.on('data', (chunk: Buffer) => {
      serverLog += chunk.toString();
      const found = /http:\/\/\S+\/mcp/.exec(serverLog);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    server.stderr!.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sample exited with ${code}:\n${serverLog}`));
    });
  });
  return {
    url,
    log: () => serverLog,
    stop: async () => {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        const timer = setTimeout(() => server.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the suite installed under `pkg` with `args` (after `server --url <url>`); returns each
 * scenario's verdict. `header` matches the line that announces the scenario count.
 */
export function runSuite(pkg: string, server: EverythingServer, args: string[], header: RegExp): Promise<Map<string, boolean>> {
  const cli = join(ROOT, 'node_modules', ...pkg.split('/'), 'dist', 'index.js');
  const workDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-run-'));
  return new Promise<Map<string, boolean>>((resolve, reject) => {
    const child = spawn(suiteNode(), [cli, 'server', '--url', server.url, ...args], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      const count = header.exec(out);
      const summary = out.slice(out.indexOf('=== SUMMARY ==='));
      const verdicts = new Map<string, boolean>();
      for (const m of summary.matchAll(/^([✓✗]) (\S+): \d+ passed, (\d+) failed$/gmu)) verdicts.set(m[2], m[1] === '✓' && m[3] === '0');
      if (!count || verdicts.size !== Number(count[1]))
        reject(new Error(`could not read the suite's summary:\n${out}\n--- server:\n${server.log()}`));
      else resolve(verdicts);
    });
  }).finally(() => rmSync(workDir, { recursive: true, force: true }));
}

/** The verdicts that disagree with an expected-failures file (name -> reason). */
export function disagreements(verdicts: Map<string, boolean>, file: string) {
  const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const unexpected = [...verdicts].filter(([name, passed]) => !passed && !(name in expected)).map(([name]) => name);
  const stale = [...verdicts].filter(([name, passed]) => passed && name in expected).map(([name]) => name);
  const unknown = Object.keys(expected).filter((name) => !verdicts.has(name));
  return { unexpected, stale, unknown };
}
