/**
 * Starts real redis-server and PostgreSQL processes for integration tests and the bench: each on
 * a free loopback port, in its own temp dir, stopped (and the dir removed) by `stop()`.
 * A missing binary fails loudly (never a skip): run `.ci/install-servers.sh`.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** PATH first, then where Debian and this image put PostgreSQL (/usr/lib/postgresql/<v>/bin). */
export function findBinary(name: string): string {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  dirs.push('/usr/local/bin', '/usr/bin', '/usr/sbin');
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    for (const v of versions) dirs.push(join('/usr/lib/postgresql', v, 'bin'));
  }
  for (const dir of dirs) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  const where = process.env.CI === 'true' ? 'CI must install it first' : 'install it first';
  throw new Error(`${name} not found (searched PATH and /usr/lib/postgresql/*/bin): ${where} with \`bash .ci/install-servers.sh\``);
}

/** Resolves once `port` accepts TCP connections and `probe` succeeds, or throws with the log. */
async function waitReady(child: ChildProcess, name: string, probe: () => Promise<boolean>, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} while starting:\n${log()}`);
    if (await probe().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`${name} did not become ready in 30s:\n${log()}`);
}

function sendAndRead(port: number, payload: string, expect: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1' });
    let buf = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write(payload));
    sock.on('data', (d) => {
      buf += d.toString();
      if (buf.includes(expect)) done(true);
    });
  });
}

/** Sends `sig` to a server that is still running and waits until it has exited. */
async function signalChild(child: ChildProcess | undefined, sig: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(sig);
  await exited(child);
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** A server that did not become ready is stopped before the error goes on: a child left running keeps jest from exiting. */
async function stopUnready(child: ChildProcess, sig: NodeJS.Signals, ready: Promise<void>): Promise<void> {
  try {
    await ready;
  } catch (error) {
    await signalChild(child, sig);
    throw error;
  }
}

/**
 * Redis and PostgreSQL, started at once. If either fails (a missing binary, say), the one that
 * started is destroyed before the error is thrown: `Promise.all` would leave it running, and jest
 * would hang after its summary.
 */
export async function startRedisAndPostgres(): Promise<[RedisServer, PostgresServer]> {
  const [redis, postgres] = await Promise.allSettled([startRedis(), startPostgres()]);
  if (redis.status === 'fulfilled' && postgres.status === 'fulfilled') return [redis.value, postgres.value];
  await Promise.all([redis, postgres].flatMap((started) => (started.status === 'fulfilled' ? [started.value.destroy()] : [])));
  throw redis.status === 'rejected' ? redis.reason : (postgres as PromiseRejectedResult).reason;
}

export interface TestServer {
  port: number;
  dir: string;
  /** Graceful stop of the process; data stays in `dir`, so `start()` brings it back. */
  stop(): Promise<void>;
  /** SIGKILL: a crash, mid-write if something was writing. */
  kill(): Promise<void>;
  /** Starts the process again on the same port and data. */
  start(): Promise<void>;
  /** Stops and deletes the data dir. */
  destroy(): Promise<void>;
}

export interface RedisServer extends TestServer {
  url: string;
}

export async function startRedis(): Promise<RedisServer> {
  const bin = findBinary('redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'tw-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const start = async () => {
    log = '';
    // appendfsync always: a write acknowledged before a crash is still there after the restart.
    child = spawn(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    await stopUnready(
      child,
      'SIGKILL',
      waitReady(
        child,
        'redis-server',
        () => sendAndRead(port, 'PING\r\n', '+PONG'),
        () => log,
      ),
    );
  };
  const signal = (sig: NodeJS.Signals) => signalChild(child, sig);
  await start();
  return {
    port,
    dir,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    destroy: async () => {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PostgresServer extends TestServer {
  connectionString: string;
}

/** initdb refuses to run as root: as root, run the server as the `postgres` (else `nobody`) user. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
      return { uid, gid };
    } catch {
      // try the next one
    }
  }
  throw new Error('running as root and neither a `postgres` nor a `nobody` user exists to run PostgreSQL');
}

export async function startPostgres(): Promise<PostgresServer> {
  const initdb = findBinary('initdb');
  const postgres = findBinary('postgres');
  const as = unprivilegedUser();
  const dir = mkdtempSync(join(tmpdir(), 'tw-pg-'));
  if (as) chownSync(dir, as.uid, as.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const ids = as ? { uid: as.uid, gid: as.gid } : {};
  try {
    execFileSync(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      ...ids,
      stdio: 'pipe',
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`initdb failed: ${e.stderr?.toString() ?? e.message}`);
  }
  let child: ChildProcess | undefined;
  let log = '';
  const start = async () => {
    log = '';
    // fsync off only risks an OS crash, which tests do not simulate; synchronous_commit stays on so
    // a commit acknowledged before the server is killed survives the restart.
    child = spawn(
      postgres,
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
      { ...ids, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    await stopUnready(
      child,
      'SIGQUIT',
      waitReady(
        child,
        'postgres',
        () => pgReady(port),
        () => log,
      ),
    );
  };
  const signal = (sig: NodeJS.Signals) => signalChild(child, sig);
  await start();
  return {
    port,
    dir,
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start,
    // SIGINT is PostgreSQL's "fast" shutdown.
    stop: () => signal('SIGINT'),
    // SIGKILL of the postmaster leaves its backends running; SIGQUIT is the "immediate" stop,
    // a crash as far as the data is concerned (recovery replays the WAL on the next start).
    kill: () => signal('SIGQUIT'),
    destroy: async () => {
      await signal('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgReady(port: number): Promise<boolean> {
  const { Client } = await import('pg');
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
