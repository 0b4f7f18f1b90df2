import { spawn } from 'node:child_process';
import { ROOT } from './build-cli';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <main> ...args` as a subprocess and collects its output and exit code. */
export function runNode(main: string, args: readonly string[], cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
