/**
 * Approvals through the tree: a call inside an agent tool's child run that needs approval (or asks
 * the person with `context.elicit`) pauses the whole run; the top session lists it with its path;
 * deciding it there (from another Agent over another store connection) resumes the child exactly
 * at that call, then the parent; the call runs once. On memory, SQLite, Redis and PostgreSQL.
 */
import { join } from 'node:path';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  ChildRunPausedError,
  InMemoryStore,
  Param,
  ScriptedModel,
  Tool,
  ToolRegistry,
  ToolwrightError,
  type Message,
  type Model,
  type SessionStore,
  type ToolInterface,
} from '../../src';
import type { ModelUsage } from '../../src/agent/model';
import { openStore } from '../support/agent-worker';
import { failingSaves } from '../support/failing-saves';
import { useServers } from '../support/use-servers';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount in cents' }) @IsInt() @Min(1) amount_cents!: number;
}

class Reason {
  @Param({ description: 'Why the refund' }) @IsString() @MinLength(1) reason!: string;
}

let refunds: string[] = [];
let refundSessions: string[] = [];

@Tool({ name: 'process_refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  async execute({ order_id, amount_cents }: OrderInput, context: AgentContext) {
    await new Promise((r) => setTimeout(r, 20)); // a second resume at once would overlap it
    refunds.push(order_id);
    refundSessions.push(context.sessionId);
    return { refunded: order_id, amount_cents };
  }
}

@Tool({ name: 'ask_reason', description: 'Asks the customer why', input: OrderInput })
class AskReasonTool implements ToolInterface<OrderInput> {
  async execute({ order_id }: OrderInput, context: AgentContext) {
    const answer = await context.elicit('Why do you want a refund?', Reason);
    return answer.action === 'accept' ? { order_id, reason: answer.content.reason } : { order_id, reason: null };
  }
}

const servers = useServers('tw-child-approvals-');
type Kind = 'memory' | 'sqlite' | 'redis' | 'postgres';
let memory: InMemoryStore | undefined;
function connect(kind: Kind): SessionStore {
  if (kind === 'memory') return (memory ??= new InMemoryStore());
  return openStore(
    kind,
    kind === 'redis' ? servers.redis.url : kind === 'postgres' ? servers.postgres.connectionString : join(servers.dir, 'tree.db'),
  );
}

/** A scripted model whose every turn reports `usage`: what the runs add up is then known. */
function counted(script: ConstructorParameters<typeof ScriptedModel>[0], usage: ModelUsage) {
  const scripted = new ScriptedModel(script);
  const model: Model = { name: 'counted', generate: async (request) => ({ ...(await scripted.generate(request)), usage }) };
  return { model, requests: scripted.requests };
}

const refundCall = { id: 'r1', name: 'process_refund', arguments: { order_id: 'A-1', amount_cents: 4200 } };
const delegate = { toolCalls: [{ id: 'p1', name: 'billing_agent', arguments: { input: 'Refund order A-1 in full' } }] };
const lastTool = (messages: readonly Message[]) => [...messages].reverse().find((m) => m.role === 'tool')!;
const echo = (request: { messages: readonly Message[] }) => ({ text: `billing said: ${lastTool(request.messages).content}` });

let sessionN = 0;
beforeEach(() => {
  refunds = [];
  refundSessions = [];
  memory = undefined;
});

describe.each(['memory', 'sqlite', 'redis', 'postgres'] as Kind[])('approvals inside a sub-agent (%s)', (kind) => {
  const open: SessionStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  /** One "process": its own store connection, a billing agent as a tool of a desk agent. */
  async function desk(
    childScript: ConstructorParameters<typeof ScriptedModel>[0],
    parentScript: ConstructorParameters<typeof ScriptedModel>[0],
    store = connect(kind),
  ) {
    if (kind !== 'memory') open.push(store);
    const childModel = counted(childScript, { inputTokens: 10, outputTokens: 5 });
    const billing = new Agent({ name: 'billing', model: childModel.model, tools: [RefundTool, AskReasonTool], store });
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds and invoices' })],
    });
    const model = counted(parentScript, { inputTokens: 100, outputTokens: 50 });
    return { agent: new Agent({ name: 'desk', model: model.model, tools: registry, store }), billing, model, childModel };
  }
  const who = () => ({ sessionId: `tree-${kind}-${++sessionN}`, userId: 'alice' });

  it('pauses the whole run, lists the child’s call with its path, and an approval from another Agent runs it once', async () => {
    const session = who();
    const first = await desk([{ toolCalls: [refundCall] }], [delegate]);
    const paused = await first.agent.run('Please refund A-1', session);

    expect(paused.status).toBe('paused');
    expect(paused.approvals).toEqual([
      {
        toolCallId: 'p1/r1',
        name: 'process_refund',
        arguments: JSON.stringify(refundCall.arguments),
        args: refundCall.arguments,
        path: ['billing_agent#p1', 'process_refund#r1'],
      },
    ]);
    expect(refunds).toEqual([]);
    expect(paused.usage).toEqual({ inputTokens: 110, outputTokens: 55 }); // the child's turn counted

    const second = await desk([(request) => ({ text: `refund: ${lastTool(request.messages).content}` })], [echo]);
    expect(await second.agent.pendingApprovals(session)).toEqual(paused.approvals);
    const done = await second.agent.approve({ ...session, approver: 'manager-1' }, 'p1/r1');

    expect(done.status).toBe('completed');
    expect(refunds).toEqual(['A-1']);
    expect(done.output).toBe('billing said: {"output":"refund: {\\"refunded\\":\\"A-1\\",\\"amount_cents\\":4200}"}');
    // The child resumed exactly at its call: its model got the refund's result, no new task.
    expect(second.childModel.requests).toHaveLength(1);
    expect(lastTool(second.childModel.requests[0].messages)).toMatchObject({ name: 'process_refund', toolCallId: 'r1' });
    // Usage: parent 2 turns + child 2 turns, each counted once.
    expect(done.usage).toEqual({ inputTokens: 220, outputTokens: 110 });
    expect(await second.agent.pendingApprovals(session)).toEqual([]);
    // The child's record carries the approver; the child session holds no paused run.
    const childSession = await second.billing.loadConversation({ sessionId: refundSessions[0], userId: 'alice' });
    expect(refundSessions[0]).toMatch(new RegExp(`^${session.sessionId}/billing_agent:`));
    expect(childSession.pendingRun).toBeUndefined();
    expect(childSession.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    await expect(second.agent.approve(session, 'p1/r1')).rejects.toBeInstanceOf(ToolwrightError);
    expect(refunds).toEqual(['A-1']);
  });

  it('two approvers of the top session at once: one resumes, the other gets RUN_CLAIMED; the refund runs once', async () => {
    const session = who();
    await (await desk([{ toolCalls: [refundCall] }], [delegate])).agent.run('Please refund A-1', session);
    const a = await desk([{ text: 'refunded' }], [{ text: 'done' }]);
    const b = await desk([{ text: 'refunded' }], [{ text: 'done' }]);

    const outcomes = await Promise.all(
      [a, b].map((d, i) =>
        d.agent.approve({ ...session, approver: `m-${i}` }, 'p1/r1').then(
          (r) => r.status,
          (e: unknown) => (e instanceof ToolwrightError ? e.code : String(e)),
        ),
      ),
    );

    expect(outcomes.sort()).toEqual(['RUN_CLAIMED', 'completed'].sort());
    expect(refunds).toEqual(['A-1']);
  });

  it('an approver’s edit the child’s tool refuses: nothing runs, the call still waits on the top session', async () => {
    const session = who();
    await (await desk([{ toolCalls: [refundCall] }], [delegate])).agent.run('Please refund A-1', session);
    const second = await desk([], []);

    const after = await second.agent.approve(session, 'p1/r1', { order_id: 'A-1', amount_cents: 0 });

    expect(after.status).toBe('paused');
    expect(after.approvals.map((a) => a.toolCallId)).toEqual(['p1/r1']);
    expect(refunds).toEqual([]);
    expect((await second.agent.pendingApprovals(session)).map((a) => a.toolCallId)).toEqual(['p1/r1']);
    const third = await desk([(request) => ({ text: lastTool(request.messages).content ?? '' })], [echo]);
    expect((await third.agent.approve(session, 'p1/r1')).status).toBe('completed');
    expect(refunds).toEqual(['A-1']);
  });

  it('rejecting the child’s call: the child sees the reason, nothing runs, both runs complete', async () => {
    const session = who();
    await (await desk([{ toolCalls: [refundCall] }], [delegate])).agent.run('Please refund A-1', session);
    const second = await desk([(request) => ({ text: lastTool(request.messages).content ?? '' })], [echo]);

    const done = await second.agent.reject(session, 'p1/r1', 'over the limit');

    expect(done.status).toBe('completed');
    expect(refunds).toEqual([]);
    expect(done.output).toContain('over the limit');
  });

  it('a child’s context.elicit is the top run’s input, with its path; the answer reaches the child’s call', async () => {
    const session = who();
    const askCall = { id: 'q1', name: 'ask_reason', arguments: { order_id: 'A-1', amount_cents: 1 } };
    const first = await desk([{ toolCalls: [askCall] }], [delegate]);
    const paused = await first.agent.run('Please refund A-1', session);

    expect(paused.status).toBe('paused');
    expect(paused.approvals).toEqual([]);
    expect(paused.inputs).toEqual([
      expect.objectContaining({ toolCallId: 'p1/q1', name: 'ask_reason', path: ['billing_agent#p1', 'ask_reason#q1'] }),
    ]);
    expect(paused.inputs![0].request).toMatchObject({ mode: 'form', message: 'Why do you want a refund?' });

    const second = await desk([(request) => ({ text: lastTool(request.messages).content ?? '' })], [echo]);
    expect((await second.agent.pendingInputs(session)).map((i) => i.toolCallId)).toEqual(['p1/q1']);
    const done = await second.agent.answer(session, 'p1/q1', { action: 'accept', content: { reason: 'broken on arrival' } });

    expect(done.status).toBe('completed');
    expect(done.output).toContain('broken on arrival');
  });

  it('a crash between the child’s call and the parent’s save: the retried approval runs the refund no second time', async () => {
    const session = who();
    await (await desk([{ toolCalls: [refundCall] }], [delegate])).agent.run('Please refund A-1', session);
    // The desk saves through a store whose next save fails (the process "dies" there); the child saves normally.
    const base = connect(kind);
    if (kind !== 'memory') open.push(base);
    const failing = failingSaves(base);
    const child = new Agent({ name: 'billing', model: new ScriptedModel([{ text: 'refunded' }]), tools: [RefundTool], store: base });
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [child.asTool({ name: 'billing_agent', description: 'Refunds' })] });
    const crashing = new Agent({
      name: 'desk',
      model: new ScriptedModel([{ text: 'done' }]),
      tools: registry,
      store: failing.store,
      resumeLeaseMs: 60_000,
    });
    failing.failNext();

    await expect(crashing.approve(session, 'p1/r1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(refunds).toEqual(['A-1']);

    const retry = await desk([], [echo]);
    const done = await retry.agent.approve(session, 'p1/r1');

    expect(done.status).toBe('completed');
    expect(refunds).toEqual(['A-1']);
    // Durable stores replay the crashed attempt's steps (the child's call, then the desk's answer); memory runs the answer again.
    expect(done.output).toBe(kind === 'memory' ? 'billing said: {"output":"refunded"}' : 'done');
    expect(retry.childModel.requests).toHaveLength(0);
  });
});

describe('a surface that cannot pause (a direct registry call)', () => {
  it('gets ChildRunPausedError with the child’s calls; the child keeps its paused run, nothing is approved', async () => {
    const store = new InMemoryStore();
    const billing = new Agent({ name: 'billing', model: new ScriptedModel([{ toolCalls: [refundCall] }]), tools: [RefundTool], store });
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })] });
    const context = new AgentContext({ sessionId: 'direct-1', userId: 'alice' });

    const error = await registry
      .call('billing_agent', { input: 'Refund A-1' }, context, undefined, { toolCallId: 'x1' })
      .catch((e: unknown) => e);

    let cause: unknown = error;
    while (cause instanceof Error && !(cause instanceof ChildRunPausedError)) cause = cause.cause;
    expect(cause).toBeInstanceOf(ChildRunPausedError);
    const paused = cause as ChildRunPausedError;
    expect(paused.code).toBe('CHILD_RUN_PAUSED');
    expect(paused.pendingToolCallIds).toEqual(['r1']);
    expect(paused.approvals.map((a) => a.name)).toEqual(['process_refund']);
    expect(await billing.pendingApprovals({ sessionId: paused.childSessionId, userId: 'alice' })).toHaveLength(1);
    expect(refunds).toEqual([]);
  });
});
