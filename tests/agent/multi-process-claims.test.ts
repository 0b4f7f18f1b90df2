/**
 * Two processes, one store (Redis, PostgreSQL, SQLite file): the claims that make a session have
 * one owner and a paused run one execution hold across processes, not only inside one.
 */
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Agent } from '../../src/agent/agent';
import { ScriptedModel } from '../../src/agent/models/scripted.model';
import type { Message } from '../../src/session/message';
import { MarkTool, openStore, treeAgent, type AgentWorkerArgs } from '../support/agent-worker';
import { useServers } from '../support/use-servers';
import { runWorkers } from '../support/workers';

const ROOT = resolve(__dirname, '../..');
const WORKER = join(ROOT, 'tests/support/agent-worker.ts');
const SESSIONS = 6;

interface WorkerReport {
  outcomes: Map<string, string>;
  /** What the worker wrote to stderr (failure details). */
  log: string;
  ran: string[];
}

/** The workers' outcomes per session and the sessions whose side effect each ran. */
async function runAgentWorkers(all: AgentWorkerArgs[]): Promise<WorkerReport[]> {
  return (await runWorkers(WORKER, all)).map(({ lines, log }) => {
    const outcomes = new Map<string, string>();
    for (const line of lines.filter((l) => l.startsWith('{'))) {
      const { session, outcome } = JSON.parse(line) as { session: string; outcome: string };
      outcomes.set(session, outcome);
    }
    return { outcomes, log, ran: lines.filter((l) => l.startsWith('ran ')).map((l) => l.split(' ')[1]) };
  });
}

const servers = useServers('tw-mp-agent-');
const dir = servers.dir;

const toolResults = (history: readonly Message[]) => history.filter((m) => m.role === 'tool');

describe.each([
  ['redis', () => servers.redis.url],
  ['postgres', () => servers.postgres.connectionString],
  ['sqlite', () => join(dir, 'agents.db')],
] as Array<[AgentWorkerArgs['kind'], () => string]>)('%s shared by two processes', (kind, target) => {
  it('gives each new session opened by two users at once exactly one owner; the other user runs nothing', async () => {
    const sessions = Array.from({ length: SESSIONS }, () => `open-${randomUUID()}`);
    const reports = await runAgentWorkers(
      ['alice', 'bob'].map((userId) => ({ kind, target: target(), sessions, mode: 'open' as const, userId, worker: userId })),
    );
    const store = openStore(kind, target());
    try {
      for (const session of sessions) {
        const outcomes = reports.map((r) => r.outcomes.get(session));
        expect(outcomes.sort()).toEqual(['SESSION_FORBIDDEN', 'completed']);
        const winner = ['alice', 'bob'][reports.findIndex((r) => r.outcomes.get(session) === 'completed')];
        // The loser's tool never ran; the session holds the winner's turn only.
        expect(reports.flatMap((r) => r.ran).filter((s) => s === session)).toHaveLength(1);
        const saved = (await store.loadSession({ sessionId: session }))!;
        expect(saved.userId).toBe(winner);
        expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(saved.history[0].content).toBe(`hello from ${winner}`);
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('runs a paused call once when two processes approve it at the same moment', async () => {
    const sessions = Array.from({ length: SESSIONS }, () => `approve-${randomUUID()}`);
    const store = openStore(kind, target());
    try {
      for (const sessionId of sessions) {
        const model = new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'mark', arguments: { what: 'approved' } }] }]);
        const paused = await new Agent({ name: 'mp', model, tools: [MarkTool], store }).run('mark it', { sessionId, userId: 'owner' });
        expect(paused.status).toBe('paused');
      }
      const reports = await runAgentWorkers(
        ['A', 'B'].map((worker) => ({ kind, target: target(), sessions, mode: 'approve' as const, userId: 'owner', worker })),
      );
      for (const sessionId of sessions) {
        const outcomes = reports.map((r) => r.outcomes.get(sessionId)!);
        // One resume ran it; the other got a typed error (claimed, or already decided when it looked).
        expect([outcomes, reports.map((r) => r.log)]).toEqual([expect.arrayContaining(['completed']), expect.anything()]);
        expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
        expect(outcomes.filter((o) => o !== 'completed')[0]).toMatch(/^(RUN_CLAIMED|APPROVAL_ALREADY_DECIDED)$/);
        expect(reports.flatMap((r) => r.ran).filter((s) => s === sessionId)).toHaveLength(1);
        const saved = (await store.loadSession({ sessionId }))!;
        expect(saved.pendingRun).toBeNull();
        expect(toolResults(saved.history)).toHaveLength(1);
        expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('runs a call inside a sub-agent once when two processes approve it on the top session at the same moment', async () => {
    const sessions = Array.from({ length: SESSIONS }, () => `tree-${randomUUID()}`);
    const store = openStore(kind, target());
    try {
      for (const sessionId of sessions) {
        const parent = new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'delegate', arguments: { input: 'mark it' } }] }]);
        const child = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'mark', arguments: { what: 'approved' } }] }]);
        const paused = await (await treeAgent(store, parent, child)).run('mark it', { sessionId, userId: 'owner' });
        expect(paused.approvals.map((a) => [a.toolCallId, a.path])).toEqual([['p1/c1', ['delegate#p1', 'mark#c1']]]);
      }
      const reports = await runAgentWorkers(
        ['A', 'B'].map((worker) => ({ kind, target: target(), sessions, mode: 'approve-tree' as const, userId: 'owner', worker })),
      );
      for (const sessionId of sessions) {
        const outcomes = reports.map((r) => r.outcomes.get(sessionId)!);
        expect([outcomes, reports.map((r) => r.log)]).toEqual([expect.arrayContaining(['completed']), expect.anything()]);
        expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
        expect(outcomes.filter((o) => o !== 'completed')[0]).toMatch(/^(RUN_CLAIMED|APPROVAL_ALREADY_DECIDED)$/);
        // The mark ran once, in the child's session under the top one.
        const ran = reports.flatMap((r) => r.ran).filter((s) => s.startsWith(`${sessionId}/delegate:`));
        expect(ran).toHaveLength(1);
        const saved = (await store.loadSession({ sessionId }))!;
        expect(saved.pendingRun).toBeNull();
        expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect((await store.loadSession({ sessionId: ran[0] }))!.pendingRun).toBeNull();
      }
    } finally {
      await store.close();
    }
  }, 120_000);
});
