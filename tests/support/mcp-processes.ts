/** Starts and stops MCP server processes (tests/support/mcp-worker.ts) for the multi-process tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { McpWorkerArgs } from './mcp-worker';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/mcp-worker.ts');

export interface McpWorker {
  child: ChildProcess;
  url: string;
  /** What the process wrote to stderr so far (its onError diagnostics). */
  stderr(): string;
}

/** Starts one server process and resolves with its MCP URL. */
export function startWorker(args: McpWorkerArgs): Promise<McpWorker> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER, JSON.stringify(args)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = /url (\S+)\n/.exec(out);
      if (match) ok({ child, url: match[1], stderr: () => err });
    });
    child.once('exit', (code) => fail(new Error(`MCP worker exited with ${code}: ${err}`)));
  });
}

/** Closes the process's stdin (it then closes its server and store) and waits for it to exit. */
export function stopWorker(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    // A process the test killed has a signalCode and no exitCode: it is already gone.
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.stdin!.end();
  });
}
