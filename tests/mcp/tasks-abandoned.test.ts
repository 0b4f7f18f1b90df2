/**
 * A task whose runner dies: two server processes on one real store (a SQLite file, Redis,
 * PostgreSQL) with a short lease (500 ms heartbeat, 1.5 s lease). The replica running a task renews
 * its lease while the tool works or waits for an answer, so a live task outlives many lease periods;
 * once that process is SIGKILLed, the other replica's tasks/get (or tasks/update) fails the task as
 * TASK_ABANDONED, once, however many replicas ask at the same moment.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abandoned, heartbeatMs, leaseEnd } from '../../src/mcp/tasks/task-lease';
import { newTask, type TaskRecord } from '../../src/mcp/tasks/task-record';
import { TaskStore } from '../../src/mcp/tasks/task-store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import { startWorker, stopWorker } from '../support/mcp-processes';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';
import { pause, rpc2026, traceIn, until } from '../support/mcp-2026';

jest.setTimeout(90_000);

const HEARTBEAT_MS = 500;
const LEASE_MS = 3 * HEARTBEAT_MS;
const TOKENS = { 'token-alice': { userId: 'alice' } };
const ALICE = { owner: '\u0000alice' };
const traces = mkdtempSync(join(tmpdir(), 'tw-task-lease-traces-'));

afterAll(() => rmSync(traces, { recursive: true, force: true }));

const rpc = (url: string, method: string, params: Record<string, unknown>) => rpc2026(url, 'token-alice', method, params);
const traceOf = (mark: string) => traceIn(traces, mark);

const ABANDONED = {
  code: -32603,
  message: expect.stringContaining('server running this task stopped'),
  data: { code: 'TASK_ABANDONED' },
};

describe.each(['sqlite', 'redis', 'postgres'] as const)('MCP tasks whose runner dies, on one %s store', (kind) => {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let dir: string | undefined;
  let store: SessionStore;
  let tasks: TaskStore;
  const workers: ChildProcess[] = [];
  let runner: ChildProcess;
  let a: string;
  let b: string;

  beforeAll(async () => {
    let target: string;
    if (kind === 'redis') target = (redis = await startRedis()).url;
    else if (kind === 'postgres') target = (postgres = await startPostgres()).connectionString;
    else target = join((dir = mkdtempSync(join(tmpdir(), 'tw-task-lease-'))), 'store.db');
    const args = { kind, target, tools: 'tasks', tokens: TOKENS, traces, heartbeatMs: HEARTBEAT_MS } as const;
    // The first process creates the schema before the second opens it.
    const first = await startWorker(args);
    const second = await startWorker(args);
    workers.push(first.child, second.child);
    runner = first.child;
    [a, b] = [first.url, second.url];
    store =
      kind === 'redis'
        ? new RedisStore({ url: target })
        : kind === 'postgres'
          ? new PostgresStore({ connectionString: target })
          : new SqliteStore({ path: target });
    tasks = new TaskStore(store);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await Promise.all(workers.map(stopWorker));
    await redis?.destroy();
    await postgres?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function stored(taskId: string): Promise<TaskRecord | undefined> {
    return tasks.load(tasks.key(ALICE, taskId)!);
  }

  /** Asks the other replica about the task every 200 ms for `ms`: the statuses it answered, in order. */
  async function watch(taskId: string, ms: number): Promise<string[]> {
    const seen: string[] = [];
    for (const end = Date.now() + ms; Date.now() < end; await pause(200)) {
      seen.push((await rpc(b, 'tasks/get', { taskId })).result!.status as string);
    }
    return seen;
  }

  it('a live task that works through four lease periods is never failed, and completes', async () => {
    const mark = `${kind}-live`;
    const created = await rpc(a, 'tools/call', { name: 'task_wait', arguments: { mark, ms: 4 * LEASE_MS } });
    const taskId = created.result!.taskId as string;
    const seen = await watch(taskId, 4 * LEASE_MS - 500);
    expect(new Set(seen)).toEqual(new Set(['working']));
    expect(seen.length).toBeGreaterThan(10);
    const done = await until(
      () => rpc(b, 'tasks/get', { taskId }),
      (r) => r.result?.status !== 'working',
      'completion',
    );
    expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: `waited ${4 * LEASE_MS} ms` }] } });
  });

  it('a live task waiting for an answer through four lease periods is never failed, and the answer resumes it', async () => {
    const mark = `${kind}-live-waiting`;
    const taskId = (await rpc(a, 'tools/call', { name: 'task_approved', arguments: { mark } })).result!.taskId as string;
    const waiting = await until(
      () => rpc(b, 'tasks/get', { taskId }),
      (r) => r.result?.status === 'input_required',
      'input_required',
    );
    expect(new Set(await watch(taskId, 4 * LEASE_MS))).toEqual(new Set(['input_required']));
    const [key] = Object.keys(waiting.result!.inputRequests as object);
    await rpc(b, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } } });
    const done = await until(
      () => rpc(b, 'tasks/get', { taskId }),
      (r) => r.result?.status === 'completed',
      'completion',
    );
    expect(done.result!.result).toMatchObject({ content: [{ type: 'text', text: `ran ${mark}` }] });
    expect(traceOf(mark)).toEqual(['ran']);
  });

  it('SIGKILL on the runner: its working and input_required tasks fail as TASK_ABANDONED, once, within the lease', async () => {
    const working = (await rpc(a, 'tools/call', { name: 'task_wait', arguments: { mark: `${kind}-killed`, ms: 60_000 } })).result!
      .taskId as string;
    const asking = (await rpc(a, 'tools/call', { name: 'task_approved', arguments: { mark: `${kind}-killed-asking` } })).result!
      .taskId as string;
    await until(
      async () => traceOf(`${kind}-killed`),
      (lines) => lines.length > 0,
      'the tool to start',
    );
    await until(
      () => rpc(b, 'tasks/get', { taskId: asking }),
      (r) => r.result?.status === 'input_required',
      'input_required',
    );
    const exited = new Promise((done) => runner.once('exit', done));
    runner.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();

    // The last lease the dead runner took ends at most one lease after it died.
    const record = (await stored(working))!;
    expect(record.status).toBe('working');
    expect(record.leaseUntil).toBeLessThanOrEqual(killedAt + LEASE_MS);
    while (Date.now() <= record.leaseUntil!) await pause(50);

    // Five tasks/get on the live replica and five replicas' worth of changes from this process, all at once.
    const key = tasks.key(ALICE, working)!;
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => rpc(b, 'tasks/get', { taskId: working })),
      ...Array.from({ length: 5 }, () => new TaskStore(store).change(key, (current) => abandoned(current))),
    ]);
    const records = answers.map((answer) => ((answer && 'taskId' in answer ? answer : answer?.result) ?? {}) as Record<string, unknown>);
    for (const seen of records) expect(seen).toMatchObject({ status: 'failed', error: ABANDONED });
    // One write failed it: every reader saw the same change.
    expect(new Set(records.map((seen) => seen.lastUpdatedAt)).size).toBe(1);
    expect(await stored(working)).toMatchObject({ status: 'failed', lastUpdatedAt: records[0].lastUpdatedAt });

    // The task waiting for an answer: the answer comes too late, and the task says why.
    const [question] = Object.keys((await stored(asking))!.inputRequests!);
    const ack = await rpc(b, 'tasks/update', {
      taskId: asking,
      inputResponses: { [question]: { action: 'accept', content: { decision: 'approve' } } },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const failed = (await rpc(b, 'tasks/get', { taskId: asking })).result!;
    expect(failed).toMatchObject({ status: 'failed', error: ABANDONED });
    expect(failed.inputRequests).toBeUndefined();
    expect(traceOf(`${kind}-killed-asking`)).toEqual([]);
  });
});

describe('the lease rule', () => {
  const base: TaskRecord = { ...newTask('00000000-0000-4000-8000-000000000000', 60_000, 200, 1_000), leaseUntil: 5_000 };

  it('fails a running or waiting task only once its lease has ended', () => {
    expect(abandoned(base, 4_999)).toBeUndefined();
    expect(abandoned(base, 5_000)).toMatchObject({ status: 'failed', error: ABANDONED });
    const waiting = { ...base, status: 'input_required' as const, inputRequests: { 'input-0': { method: 'elicitation/create' } } };
    const failed = abandoned(waiting, 6_000)!;
    expect(failed).toMatchObject({ status: 'failed', error: ABANDONED, lastUpdatedAt: new Date(6_000).toISOString() });
    expect(failed.inputRequests).toBeUndefined();
  });

  it('leaves an ended task, and one written without a lease, as they are', () => {
    for (const status of ['completed', 'failed', 'cancelled'] as const) expect(abandoned({ ...base, status }, 9_000)).toBeUndefined();
    const { leaseUntil: _none, ...unleased } = base;
    expect(abandoned(unleased, 9_000)).toBeUndefined();
  });

  it('renews every 5 s unless TOOLWRIGHT_TASK_HEARTBEAT_MS gives a positive whole number', () => {
    const saved = process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS;
    try {
      for (const bad of ['', 'abc', '-5', '0', '1.5']) {
        process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS = bad;
        expect(heartbeatMs()).toBe(5_000);
      }
      process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS = '250';
      expect(heartbeatMs()).toBe(250);
      expect(leaseEnd(1_000)).toBe(1_750);
    } finally {
      if (saved === undefined) delete process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS;
      else process.env.TOOLWRIGHT_TASK_HEARTBEAT_MS = saved;
    }
  });
});
