/**
 * Child processes for the multi-process tests: each worker file prints `ready` once its store is
 * open and waits for a line on stdin, so that all of them start at the same moment; it ends with
 * `done`. Resolves with each worker's stdout lines and stderr, or rejects with both.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface WorkerOutput {
  lines: string[];
  log: string;
}

export function runWorkers(worker: string, all: ReadonlyArray<{ worker: string }>): Promise<WorkerOutput[]> {
  let ready = 0;
  const children = all.map((args) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', worker, JSON.stringify(args)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const finished = new Promise<WorkerOutput>((done, fail) => {
      child.on('error', fail);
      child.on('exit', (code) =>
        code === 0 && out.includes('done')
          ? done({ lines: out.split('\n'), log: err })
          : fail(new Error(`worker ${args.worker} exited ${code}:\n${out}\n${err}`)),
      );
    });
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      const before = out.includes('ready');
      out += d;
      if (!before && out.includes('ready') && ++ready === all.length) for (const c of children) c.child.stdin.end('go\n');
    });
    return { child, finished };
  });
  return Promise.all(children.map((c) => c.finished));
}

/** One worker run to its end (or its death): how it exited and what it printed. */
export function runOnce(
  worker: string,
  args: object,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', worker, JSON.stringify(args)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('exit', (code, signal) => done({ code, signal, out, err }));
  });
}
