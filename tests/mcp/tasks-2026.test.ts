/**
 * The MCP tasks extension (SEP-2663) on protocol 2026-07-28, across two server processes on one
 * real store (a SQLite file, Redis, PostgreSQL): the task is in the store before the tools/call
 * answer, either process answers tasks/get, tasks/update and tasks/cancel, a cancel reaches the tool
 * on the process that runs it, an approval waits on the task as `input_required` and its answer
 * resumes the call once, and a task is its creator's alone. Raw HTTP: the SDK's v1 client speaks no 2026-07-28.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskStore } from '../../src/mcp/tasks/task-store';
import type { TaskRecord } from '../../src/mcp/tasks/task-record';
import type { SessionStore } from '../../src/stores/store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import { startWorker, stopWorker } from '../support/mcp-processes';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';
import { rpc2026, TASKS, traceIn, until } from '../support/mcp-2026';

jest.setTimeout(60_000);

const TOKENS = { 'token-alice': { userId: 'alice' }, 'token-bob': { userId: 'bob' } };
const traces = mkdtempSync(join(tmpdir(), 'tw-task-traces-'));

afterAll(() => rmSync(traces, { recursive: true, force: true }));

const rpc = rpc2026;
const traceOf = (mark: string) => traceIn(traces, mark);

describe.each(['sqlite', 'redis', 'postgres'] as const)('MCP tasks across two processes on one %s store', (kind) => {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let dir: string | undefined;
  let store: SessionStore;
  const workers: ChildProcess[] = [];
  let a: string;
  let b: string;

  beforeAll(async () => {
    let target: string;
    if (kind === 'redis') target = (redis = await startRedis()).url;
    else if (kind === 'postgres') target = (postgres = await startPostgres()).connectionString;
    else target = join((dir = mkdtempSync(join(tmpdir(), 'tw-tasks-'))), 'store.db');
    // The first process creates the schema before the second opens it.
    const first = await startWorker({ kind, target, tools: 'tasks', tokens: TOKENS, traces });
    const second = await startWorker({ kind, target, tools: 'tasks', tokens: TOKENS, traces });
    workers.push(first.child, second.child);
    [a, b] = [first.url, second.url];
    store =
      kind === 'redis'
        ? new RedisStore({ url: target })
        : kind === 'postgres'
          ? new PostgresStore({ connectionString: target })
          : new SqliteStore({ path: target });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await Promise.all(workers.map(stopWorker));
    await redis?.destroy();
    await postgres?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The task as the store holds it, read the way any replica reads it. */
  async function stored(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    const tasks = new TaskStore(store);
    return tasks.load(tasks.key({ owner }, taskId)!);
  }

  it('writes the task to the store before answering; the other process answers tasks/get', async () => {
    const mark = `${kind}-durable`;
    const created = await rpc(a, 'token-alice', 'tools/call', { name: 'task_wait', arguments: { mark, ms: 1500 } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    // Read at once, before anything else happens: the record is there.
    expect(await stored('\u0000alice', taskId)).toMatchObject({ taskId, status: 'working' });
    expect((await rpc(b, 'token-alice', 'tasks/get', { taskId })).result).toMatchObject({ resultType: 'complete', taskId });
    const done = await until(
      () => rpc(b, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'completed',
      'completion',
    );
    expect(done.result!.result).toMatchObject({ content: [{ type: 'text', text: 'waited 1500 ms' }] });
  });

  it('a tasks/cancel on the other process aborts the tool where it runs, and the task stays cancelled', async () => {
    const mark = `${kind}-cancel`;
    const created = await rpc(a, 'token-alice', 'tools/call', { name: 'task_wait', arguments: { mark, ms: 30_000 } });
    const taskId = created.result!.taskId as string;
    await until(
      async () => traceOf(mark),
      (lines) => lines.length > 0,
      'the tool to start',
    );
    const ack = await rpc(b, 'token-alice', 'tasks/cancel', { taskId });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const lines = await until(
      async () => traceOf(mark),
      (l) => l.includes('aborted'),
      'the abort',
    );
    expect(lines).toEqual([expect.stringMatching(/^started \d+$/), 'aborted']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await rpc(a, 'token-alice', 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    expect((await stored('\u0000alice', taskId))?.result).toBeUndefined();
  });

  it('asks for the approval through the task; the answer sent to the other process resumes the call once', async () => {
    const mark = `${kind}-approval`;
    const created = await rpc(a, 'token-alice', 'tools/call', { name: 'task_approved', arguments: { mark } });
    const taskId = created.result!.taskId as string;
    const waiting = await until(
      () => rpc(b, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'input_required',
      'input_required',
    );
    const requests = waiting.result!.inputRequests as Record<string, { method: string; params: { message: string } }>;
    expect(Object.values(requests)).toEqual([
      { method: 'elicitation/create', params: expect.objectContaining({ message: expect.stringContaining('needs your approval') }) },
    ]);
    expect(traceOf(mark)).toEqual([]);
    const [key] = Object.keys(requests);
    const ack = await rpc(b, 'token-alice', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const done = await until(
      () => rpc(a, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'completed',
      'completion',
    );
    expect(done.result!.result).toMatchObject({ content: [{ type: 'text', text: `ran ${mark}` }] });
    // The same answer again changes nothing: the call ran once.
    await rpc(b, 'token-alice', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(traceOf(mark)).toEqual(['ran']);
  });

  it('a rejected approval completes the task with the rejection, and the tool never runs', async () => {
    const mark = `${kind}-rejected`;
    const taskId = (await rpc(a, 'token-alice', 'tools/call', { name: 'task_approved', arguments: { mark } })).result!.taskId as string;
    const waiting = await until(
      () => rpc(a, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'input_required',
      'input_required',
    );
    const [key] = Object.keys(waiting.result!.inputRequests as object);
    await rpc(b, 'token-alice', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { decision: 'reject', reason: 'no' } } },
    });
    const done = await until(
      () => rpc(b, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'completed',
      'completion',
    );
    expect(done.result!.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('REJECTED') }] });
    expect(traceOf(mark)).toEqual([]);
  });

  it("another identity cannot read, answer or cancel someone's task", async () => {
    const mark = `${kind}-owned`;
    const taskId = (await rpc(a, 'token-alice', 'tools/call', { name: 'task_wait', arguments: { mark, ms: 3000 } })).result!
      .taskId as string;
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/cancel', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
    ] as const) {
      const refused = await rpc(b, 'token-bob', method, params);
      expect(refused.error).toMatchObject({ code: -32602 });
      expect(refused.error!.message).not.toContain('alice');
    }
    expect((await rpc(b, 'token-alice', 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
    await rpc(a, 'token-alice', 'tasks/cancel', { taskId });
  });
});

describe('tasks/* requests that are malformed or not allowed', () => {
  let dir: string;
  let worker: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tw-tasks-bad-'));
    const started = await startWorker({ kind: 'sqlite', target: join(dir, 'store.db'), tools: 'tasks', tokens: TOKENS, traces });
    [worker, url] = [started.child, started.url];
  }, 60_000);

  afterAll(async () => {
    await stopWorker(worker);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['tasks/get', {}],
    ['tasks/get', { taskId: 42 }],
    ['tasks/get', { taskId: '../../etc/passwd' }],
    ['tasks/get', { taskId: '00000000-0000-4000-8000-000000000000' }],
    ['tasks/cancel', { taskId: ['x'] }],
    ['tasks/update', { taskId: '00000000-0000-4000-8000-000000000000' }],
    ['tasks/update', { taskId: '00000000-0000-4000-8000-000000000000', inputResponses: [] }],
    ['tasks/update', { taskId: '00000000-0000-4000-8000-000000000000', inputResponses: 'yes' }],
  ])('%s with %j is -32602', async (method, params) => {
    const answer = await rpc(url, 'token-alice', method, params);
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params/) });
  });

  it('tasks/update with prototype or unknown keys answers nothing: the task still waits for its one question', async () => {
    const taskId = (await rpc(url, 'token-alice', 'tools/call', { name: 'task_approved', arguments: { mark: 'proto' } })).result!
      .taskId as string;
    const waiting = await until(
      () => rpc(url, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'input_required',
      'input_required',
    );
    const hostile = JSON.parse(
      '{"__proto__": {"action": "accept"}, "constructor": {"action": "accept"}, "input-9": {"action": "accept"}}',
    ) as object;
    expect((await rpc(url, 'token-alice', 'tasks/update', { taskId, inputResponses: hostile })).result).toMatchObject({
      resultType: 'complete',
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const still = await rpc(url, 'token-alice', 'tasks/get', { taskId });
    expect(still.result).toMatchObject({ status: 'input_required', inputRequests: waiting.result!.inputRequests });
    expect(({} as Record<string, unknown>).action).toBeUndefined();
    await rpc(url, 'token-alice', 'tasks/cancel', { taskId });
    expect((await rpc(url, 'token-alice', 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
  });

  it('tasks/* from a client that did not declare the extension is -32021, naming it', async () => {
    const answer = await rpc(url, 'token-alice', 'tasks/get', { taskId: '00000000-0000-4000-8000-000000000000' }, false);
    expect(answer).toMatchObject({ status: 400, error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } });
  });

  it('a task tool the caller may not see is answered as unknown, with no task id and no run', async () => {
    const bob = await rpc(url, 'token-bob', 'tools/call', { name: 'task_private', arguments: { mark: 'hidden-bob' } });
    expect(bob.result).not.toHaveProperty('taskId');
    expect(JSON.stringify(bob)).toMatch(/TOOL_NOT_FOUND|Unknown tool|not found/i);
    const alice = await rpc(url, 'token-alice', 'tools/call', { name: 'task_private', arguments: { mark: 'hidden-alice' } });
    expect(alice.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
    await until(
      async () => traceOf('hidden-alice'),
      (lines) => lines.includes('ran'),
      "alice's run",
    );
    expect(traceOf('hidden-bob')).toEqual([]);
  });

  it('tasks/result and tasks/list are gone (-32601)', async () => {
    for (const method of ['tasks/result', 'tasks/list'])
      expect((await rpc(url, 'token-alice', method, { taskId: 'x' })).error).toMatchObject({ code: -32601 });
  });

  it('an optional task tool called by a client without the extension runs as a plain call', async () => {
    const plain = await rpc(url, 'token-alice', 'tools/call', { name: 'task_wait', arguments: { mark: 'plain', ms: 0 } }, false);
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'waited 0 ms' }] });
    expect(plain.result).not.toHaveProperty('taskId');
  });

  it('a task whose arguments are invalid completes with the validation error, as a plain call would answer', async () => {
    const taskId = (await rpc(url, 'token-alice', 'tools/call', { name: 'task_wait', arguments: { mark: 'bad', ms: -1 } })).result!
      .taskId as string;
    const done = await until(
      () => rpc(url, 'token-alice', 'tasks/get', { taskId }),
      (r) => r.result?.status === 'completed',
      'completion',
    );
    expect(done.result!.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('INVALID_ARGUMENTS') }] });
  });
});
