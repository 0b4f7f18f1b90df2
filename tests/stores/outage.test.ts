/**
 * A server restarted under a running app (issue 21, item 6): the app process lives, its calls
 * answer STORE_UNAVAILABLE while the server is down, and work resumes once it is back, with the
 * app's own client (a pg `Pool` with no 'error' listener, an ioredis client) or the store's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { startRedisAndPostgres, type PostgresServer, type RedisServer, type TestServer } from '../support/servers';
import type { OutageWorkerArgs } from '../support/outage-worker';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/outage-worker.ts');

interface Worker {
  child: ChildProcess;
  lines: string[];
  stderr(): string;
  /** Resolves once `count` lines since line `from` equal `line`; rejects if the process exits first. */
  waitFor(line: string, count: number, from?: number): Promise<void>;
  exited: Promise<number | null>;
}

function startWorker(args: OutageWorkerArgs): Worker {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER, JSON.stringify(args)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let err = '';
  let partial = '';
  const waiters = new Set<() => void>();
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const check of [...waiters]) check();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const waitFor = (line: string, count: number, from = 0) =>
    new Promise<void>((ok, fail) => {
      const check = () => {
        if (lines.slice(from).filter((l) => l === line).length < count) return;
        waiters.delete(check);
        ok();
      };
      waiters.add(check);
      check();
      void exited.then((code) => {
        if (!waiters.has(check)) return;
        waiters.delete(check);
        fail(new Error(`the app process exited (${code}) before ${count} × ${line}:\n${lines.slice(-20).join('\n')}\n${err}`));
      });
    });
  return { child, lines, stderr: () => err, waitFor, exited };
}

let redis: RedisServer;
let postgres: PostgresServer;
beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
});
afterAll(async () => {
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

describe.each([
  ['postgres', 'app'],
  ['postgres', 'store'],
  ['redis', 'app'],
  ['redis', 'store'],
] as const)('%s with the %s client, the server killed and started again under load', (kind, client) => {
  it('keeps the process alive, answers STORE_UNAVAILABLE while down, and resumes', async () => {
    const server: TestServer = kind === 'redis' ? redis : postgres;
    const target = kind === 'redis' ? redis.url : postgres.connectionString;
    const worker = startWorker({ kind, client, target });
    let down = false;
    try {
      await worker.waitFor('ok', 5);
      await server.kill();
      down = true;
      await worker.waitFor('STORE_UNAVAILABLE', 5, worker.lines.length);
      expect(worker.child.exitCode).toBeNull();
      // The driver's own report of the lost connections reached the store's listener (and so no crash, no console noise).
      expect(worker.lines).toContain('driver-error');
      await server.start();
      down = false;
      const up = worker.lines.length;
      await worker.waitFor('ok', 5, up);
      worker.child.stdin!.end();
      expect(await worker.exited).toBe(0);
      expect(worker.lines).toContain('done');
      expect(worker.lines.filter((l) => l !== 'ok' && l !== 'STORE_UNAVAILABLE' && l !== 'driver-error' && l !== 'done')).toEqual([]);
      // Nothing on stderr: no crash, and no "[ioredis] Unhandled error event" per reconnect.
      expect(worker.stderr()).toBe('');
    } finally {
      worker.child.kill('SIGKILL');
      // The next case needs the server; a failure while it was down must not take the others with it.
      if (down) await server.start();
    }
  }, 90_000);
});
