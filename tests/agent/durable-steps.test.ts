/**
 * Durable steps under kill -9: a real child process runs a refund run and is killed at a step
 * boundary (in the first model turn, in the tool before it pays, in the second model turn after the
 * tool's result was recorded, or mid-resume of an approved call); another process then retries the
 * run (same input, same session) or resumes it. On SQLite, Redis and PostgreSQL: the refund is paid
 * once, no finished model turn is asked again, and the session ends well-formed. (A retry while a
 * step's claim still holds is refused typed: tests/agent/step-journal.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStore } from '../support/agent-worker';
import { useServers } from '../support/use-servers';
import type { KillPoint, StepWorkerArgs } from '../support/step-worker';
import { runOnce } from '../support/workers';

const WORKER = resolve(__dirname, '../support/step-worker.ts');
const LEASE_MS = 400; // the worker's stepLeaseMs and resumeLeaseMs
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const servers = useServers('tw-durable-');
const dir = servers.dir;

type Kind = StepWorkerArgs['kind'];
const targets: Record<Kind, () => string> = {
  redis: () => servers.redis.url,
  postgres: () => servers.postgres.connectionString,
  sqlite: () => join(dir, 'steps.db'),
};

async function work(kind: Kind, sessionId: string, log: string, rest: Pick<StepWorkerArgs, 'mode' | 'killAt' | 'approval'>) {
  const run = await runOnce(WORKER, { kind, target: targets[kind](), sessionId, log, ...rest } satisfies StepWorkerArgs);
  if (run.code !== 0 && run.signal !== 'SIGKILL') throw new Error(`worker failed (${run.code}):\n${run.out}\n${run.err}`);
  const line = run.out.split('\n').find((l) => l.startsWith('{'));
  return {
    killed: run.signal === 'SIGKILL',
    answer: line ? (JSON.parse(line) as { status?: string; output?: string; error?: string }) : undefined,
  };
}

const lines = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean);

async function history(kind: Kind, sessionId: string) {
  const store = openStore(kind, targets[kind]());
  try {
    const saved = await store.loadSession({ sessionId });
    return { roles: saved?.history.map((m) => m.role), pendingRun: saved?.pendingRun ?? null };
  } finally {
    await store.close();
  }
}

describe.each(['sqlite', 'redis', 'postgres'] as Kind[])('%s: a run killed mid-step', (kind) => {
  it.each([
    // Killed where, then what the log holds after the retry: each model turn answered and each payment, in order.
    ['model-1', ['model 1', 'effect A-1', 'model 2']],
    ['tool', ['model 1', 'effect A-1', 'model 2']],
    ['model-2', ['model 1', 'effect A-1', 'model 2']],
  ] as Array<[KillPoint, string[]]>)(
    'killed at %s: the retry goes on from the last finished step, paying once',
    async (killAt, expected) => {
      const sessionId = `kill-${killAt}-${randomUUID()}`;
      const log = join(dir, `${sessionId}.log`);
      writeFileSync(log, '');
      const first = await work(kind, sessionId, log, { mode: 'run', killAt, approval: false });
      expect(first.killed).toBe(true);

      await sleep(LEASE_MS + 200);
      const retry = await work(kind, sessionId, log, { mode: 'run', killAt: 'none', approval: false });
      expect(retry.answer).toEqual({ status: 'completed', output: 'Refunded A-1.' });
      // No step ran twice: a model turn answered before the kill is not asked again, the refund is paid once.
      expect(lines(log)).toEqual(expected);
      expect(await history(kind, sessionId)).toEqual({ roles: ['user', 'assistant', 'tool', 'assistant'], pendingRun: null });
    },
    60_000,
  );

  it('killed while resuming an approved call (after its result, in the next model turn): another resume finishes it, paying once', async () => {
    const sessionId = `resume-${randomUUID()}`;
    const log = join(dir, `${sessionId}.log`);
    writeFileSync(log, '');
    const paused = await work(kind, sessionId, log, { mode: 'run', killAt: 'none', approval: true });
    expect(paused.answer).toMatchObject({ status: 'paused' });
    expect((await history(kind, sessionId)).pendingRun).not.toBeNull();

    const resumer = await work(kind, sessionId, log, { mode: 'approve', killAt: 'model-2', approval: true });
    expect(resumer.killed).toBe(true);
    expect(lines(log)).toEqual(['model 1', 'effect A-1']);

    await sleep(LEASE_MS + 200);
    const second = await work(kind, sessionId, log, { mode: 'approve', killAt: 'none', approval: true });
    expect(second.answer).toEqual({ status: 'completed', output: 'Refunded A-1.' });
    expect(lines(log)).toEqual(['model 1', 'effect A-1', 'model 2']);
    expect(await history(kind, sessionId)).toEqual({ roles: ['user', 'assistant', 'tool', 'assistant'], pendingRun: null });
  }, 60_000);
});
