import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { IsNumber, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  ApprovalAlreadyDecidedError,
  ApprovalDecisionError,
  InMemoryStore,
  Param,
  RunNotFoundError,
  RunPausedError,
  ScriptedModel,
  SessionForbiddenError,
  StoreUnavailableError,
  Tool,
  ToolRegistry,
  type Message,
  type ToolInterface,
} from 'toolwright';
import { type SessionChanges, type SessionKey } from '../../src/stores';
import { SqliteStore } from '../../src/stores/sqlite.store';
import { Ledger } from '../support/ledger';

let ledger = new Ledger();
let seenKeys: string[] = [];

class PayArgs {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount' }) @IsNumber() @Min(1) amount!: number;
}

@Tool({ name: 'pay_refund', description: 'Refund money', input: PayArgs, approval: true })
class PayRefundTool implements ToolInterface<PayArgs> {
  execute({ order_id, amount }: PayArgs, context: AgentContext) {
    seenKeys.push(context.idempotencyKey!);
    return ledger.pay(order_id, amount, context.idempotencyKey);
  }
}

@Tool({
  name: 'big_refund',
  description: 'Refund money; large amounts need a human',
  input: PayArgs,
  approval: (args: PayArgs, context: AgentContext) => args.amount > 100 || context.userId === 'intern',
})
class ThresholdRefundTool implements ToolInterface<PayArgs> {
  execute({ order_id, amount }: PayArgs, context: AgentContext) {
    return ledger.pay(order_id, amount, context.idempotencyKey);
  }
}

beforeEach(() => {
  ledger = new Ledger();
  seenKeys = [];
});

const who = { sessionId: 's-1', userId: 'u-1' };
const pay = (amount: number, id = 'call-pay') => ({ toolCalls: [{ id, name: 'pay_refund', arguments: { order_id: 'A-1', amount } }] });
const lastTool = (messages: readonly Message[]) =>
  [...messages].reverse().find((m) => m.role === 'tool') as Extract<Message, { role: 'tool' }>;

describe('approvals', () => {
  it('pauses before a tool that needs approval, and runs it once approved', async () => {
    const store = new InMemoryStore();
    const model = new ScriptedModel([pay(30), (request) => ({ text: `done: ${lastTool(request.messages).content}` })]);
    const agent = new Agent({ name: 'support', model, tools: [PayRefundTool], store });

    const paused = await agent.run('refund 30', who);
    expect(paused.status).toBe('paused');
    expect(paused.output).toBeNull();
    expect(paused.approvals).toEqual([
      { toolCallId: 'call-pay', name: 'pay_refund', arguments: '{"order_id":"A-1","amount":30}', args: { order_id: 'A-1', amount: 30 } },
    ]);
    expect(ledger.refunds).toHaveLength(0);
    expect(await agent.pendingApprovals(who)).toHaveLength(1);

    const done = await agent.approve(who, 'call-pay');
    expect(done.status).toBe('completed');
    expect(done.runId).toBe(paused.runId);
    expect(done.output).toBe('done: {"status":"refunded","order":"A-1","amount":30}');
    expect(ledger.refunds).toEqual([expect.objectContaining({ order: 'A-1', amount: 30 })]);
    expect(done.toolCalls).toEqual([expect.objectContaining({ name: 'pay_refund', status: 'ok' })]);
    expect(await agent.pendingApprovals(who)).toEqual([]);
    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(saved!.pendingRun).toBeNull();
    expect(saved!.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('rejects with a reason the model sees; the tool never runs', async () => {
    const model = new ScriptedModel([pay(30), (request) => ({ text: lastTool(request.messages).content })]);
    const agent = new Agent({ store: new InMemoryStore(), name: 'support', model, tools: [PayRefundTool] });
    await agent.run('refund', who);

    const done = await agent.reject(who, 'call-pay', 'The order was already replaced');
    expect(ledger.refunds).toHaveLength(0);
    expect(JSON.parse(done.output!)).toEqual({
      status: 'error',
      code: 'REJECTED',
      message: 'A human rejected this call: The order was already replaced',
    });
    expect(done.toolCalls[0].status).toBe('rejected');
    expect(lastTool(model.requests[1].messages).isError).toBe(true);
  });

  it('approves with edited arguments, validated like the model’s', async () => {
    const model = new ScriptedModel([pay(80), { text: 'ok' }]);
    const agent = new Agent({ store: new InMemoryStore(), name: 'support', model, tools: [PayRefundTool] });
    await agent.run('refund 80', who);

    const done = await agent.approve(who, 'call-pay', { order_id: 'A-1', amount: 50 });
    expect(ledger.refunds.map((r) => r.amount)).toEqual([50]);
    expect(done.toolCalls[0].arguments).toBe('{"order_id":"A-1","amount":50}');
  });

  it('evaluates an approval function on the validated arguments and the real user', async () => {
    const calls = (amount: number) => ({ toolCalls: [{ name: 'big_refund', arguments: { order_id: 'A-1', amount } }] });
    const small = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model: new ScriptedModel([calls(20), { text: 'ok' }]),
      tools: [ThresholdRefundTool],
    }).run('x', who);
    expect(small.status).toBe('completed');
    const big = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model: new ScriptedModel([calls(500)]),
      tools: [ThresholdRefundTool],
    }).run('x', who);
    expect(big.status).toBe('paused');
    const intern = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model: new ScriptedModel([calls(20)]),
      tools: [ThresholdRefundTool],
    }).run('x', { sessionId: 's-2', userId: 'intern' });
    expect(intern.status).toBe('paused');
  });

  it('does not ask a human about invalid arguments: they go back to the model', async () => {
    const model = new ScriptedModel([pay(-1), pay(10, 'second'), { text: 'ok' }]);
    const agent = new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [PayRefundTool] });
    const result = await agent.run('x', who);
    expect(result.status).toBe('paused');
    expect(result.approvals.map((a) => a.toolCallId)).toEqual(['second']);
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'INVALID_ARGUMENTS' });
  });

  it('holds every call of the paused response; partial decisions keep the run paused', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'p1', name: 'pay_refund', arguments: { order_id: 'A-1', amount: 5 } },
          { id: 'p2', name: 'pay_refund', arguments: { order_id: 'A-2', amount: 6 } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [PayRefundTool] });
    await agent.run('x', who);

    const still = await agent.approve(who, 'p1');
    expect(still.status).toBe('paused');
    expect(still.approvals.map((a) => a.toolCallId)).toEqual(['p2']);
    expect(ledger.refunds).toHaveLength(0);
    expect(model.requests).toHaveLength(1);

    const done = await agent.reject(who, 'p2', 'no');
    expect(done.status).toBe('completed');
    expect(ledger.refunds.map((r) => r.order)).toEqual(['A-1']);
    expect(done.toolCalls.map((c) => c.status)).toEqual(['ok', 'rejected']);
  });

  it('guards the paused run: no new message, no unknown call ids, no stranger, no resume without a run', async () => {
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'a', model: new ScriptedModel([pay(5)]), tools: [PayRefundTool], store });
    await expect(agent.resume(who, {})).rejects.toBeInstanceOf(RunNotFoundError);
    await agent.run('x', who);
    await expect(agent.run('another message', who)).rejects.toBeInstanceOf(RunPausedError);
    await expect(agent.approve(who, 'nope')).rejects.toBeInstanceOf(ApprovalDecisionError);
    await expect(agent.resume(who, { 'call-pay': { approve: false, reason: '' } })).rejects.toBeInstanceOf(ApprovalDecisionError);
    await expect(agent.approve({ sessionId: 's-1', userId: 'mallory' }, 'call-pay')).rejects.toBeInstanceOf(SessionForbiddenError);
    // Another agent's name sees no run of its own.
    await expect(
      new Agent({ name: 'b', model: new ScriptedModel([]), tools: [PayRefundTool], store }).approve(who, 'call-pay'),
    ).rejects.toBeInstanceOf(RunNotFoundError);
    expect(ledger.refunds).toHaveLength(0);
  });

  describe('across processes', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'tw-approvals-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('pauses, stores the run as plain JSON, and a new Agent over a new store connection resumes it', async () => {
      const file = path.join(dir, 'state.db');
      const storeA = new SqliteStore({ path: file });
      const first = new Agent({ name: 'support', model: new ScriptedModel([pay(25)]), tools: [PayRefundTool], store: storeA });
      const paused = await first.run('refund 25', who);
      const snapshot = await storeA.loadSession({ sessionId: 's-1' });
      expect(JSON.parse(JSON.stringify(snapshot!.pendingRun))).toEqual(snapshot!.pendingRun);
      await storeA.close();

      // "Another process": a fresh store connection, registry, model and agent; only the file is shared.
      const storeB = new SqliteStore({ path: file });
      const model = new ScriptedModel([(request) => ({ text: `resumed: ${lastTool(request.messages).content}` })]);
      const second = new Agent({ name: 'support', model, tools: ToolRegistry.build({ tools: [PayRefundTool] }), store: storeB });
      const done = await second.resume(who, { 'call-pay': { approve: true } });

      expect(done.status).toBe('completed');
      expect(done.runId).toBe(paused.runId);
      expect(done.turns).toBe(2);
      expect(done.output).toBe('resumed: {"status":"refunded","order":"A-1","amount":25}');
      expect(model.requests[0].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect((await storeB.loadSession({ sessionId: 's-1' }))!.pendingRun).toBeNull();
      await storeB.close();
    });
  });
});

describe('idempotency keys', () => {
  it('derives a stable key from the session and the model tool call id', async () => {
    const registry = ToolRegistry.build({ tools: [PayRefundTool] });
    const ctx = (sessionId: string) => new AgentContext({ sessionId, userId: 'u-1' });
    await registry.call('pay_refund', { order_id: 'A-1', amount: 1 }, ctx('s-1'), undefined, { toolCallId: 'c-1', approved: true });
    await registry.call('pay_refund', { order_id: 'A-1', amount: 1 }, ctx('s-1'), undefined, { toolCallId: 'c-1', approved: true });
    await registry.call('pay_refund', { order_id: 'A-1', amount: 1 }, ctx('s-2'), undefined, { toolCallId: 'c-1', approved: true });
    await registry.call('pay_refund', { order_id: 'A-1', amount: 1 }, ctx('s-1'), undefined, { toolCallId: 'c-2', approved: true });
    expect(seenKeys[0]).toBe(seenKeys[1]);
    expect(new Set(seenKeys).size).toBe(3);
    expect(ledger.refunds).toHaveLength(3);
  });

  it('a resume retried after a crash (save failed) refunds once: the replayed call has the same key', async () => {
    /** A store whose next saveSession fails, as if the process died after the tool ran. */
    class FlakyStore extends InMemoryStore {
      failNext = false;
      override async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
        if (this.failNext) {
          this.failNext = false;
          throw new StoreUnavailableError('flaky', new Error('connection reset'));
        }
        return super.saveSession(key, changes);
      }
    }
    const store = new FlakyStore();
    await new Agent({ name: 'support', model: new ScriptedModel([pay(40)]), tools: [PayRefundTool], store }).run('refund 40', who);

    store.failNext = true;
    const crashed = new Agent({ name: 'support', model: new ScriptedModel([{ text: 'refunded' }]), tools: [PayRefundTool], store });
    await expect(crashed.approve(who, 'call-pay')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(ledger.refunds).toHaveLength(1);

    // The run is still paused in the store; resuming again replays the same call id.
    const retried = new Agent({
      name: 'support',
      model: new ScriptedModel([(r) => ({ text: lastTool(r.messages).content })]),
      tools: [PayRefundTool],
      store,
    });
    const done = await retried.approve(who, 'call-pay');
    expect(ledger.refunds).toHaveLength(1);
    expect(JSON.parse(done.output!)).toEqual({ status: 'already_refunded', order: 'A-1', amount: 40 });
    expect(seenKeys).toHaveLength(2);
    expect(seenKeys[0]).toBe(seenKeys[1]);
  });
});

describe('a second approver of a call already decided', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'tw-decided-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const stores = [
    ['in memory', () => new InMemoryStore()],
    ['SQLite', () => new SqliteStore({ path: path.join(dir, 'state.db') })],
  ] as const;

  it.each(stores)('hears it was decided once the run went on, not that there is no run (%s)', async (_, makeStore) => {
    const store = makeStore();
    const model = new ScriptedModel([pay(30), { text: 'refunded' }]);
    const agent = new Agent({ name: 'support', model, tools: [PayRefundTool], store });
    await agent.run('refund 30', who);
    expect((await agent.approve({ ...who, approver: 'alice' }, 'call-pay')).status).toBe('completed');

    for (const late of [
      () => agent.approve({ ...who, approver: 'bob' }, 'call-pay'),
      () => agent.reject({ ...who, approver: 'bob' }, 'call-pay', 'too much'),
    ]) {
      const error = await late().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApprovalAlreadyDecidedError);
      expect(error).toMatchObject({ code: 'APPROVAL_ALREADY_DECIDED', sessionId: 's-1', toolCallIds: ['call-pay'] });
      expect((error as Error).message).toMatch(/already decided/);
    }
    expect(ledger.refunds).toHaveLength(1);
    // A call id the session never saw is still "no run waiting".
    await expect(agent.approve(who, 'never-asked')).rejects.toBeInstanceOf(RunNotFoundError);
    await store.close();
  });

  it.each(stores)('hears it was decided while the run waits on a later call (%s)', async (_, makeStore) => {
    const store = makeStore();
    const model = new ScriptedModel([pay(30), pay(5, 'call-2'), { text: 'both refunded' }]);
    const agent = new Agent({ name: 'support', model, tools: [PayRefundTool], store });
    await agent.run('refund 30, then 5', who);
    const next = await agent.approve(who, 'call-pay');
    expect(next.approvals.map((a) => a.toolCallId)).toEqual(['call-2']);

    await expect(agent.reject(who, 'call-pay', 'no')).rejects.toMatchObject({
      code: 'APPROVAL_ALREADY_DECIDED',
      toolCallIds: ['call-pay'],
    });
    // Nothing was decided: the later call still waits, and still runs once approved.
    expect((await agent.pendingApprovals(who)).map((a) => a.toolCallId)).toEqual(['call-2']);
    expect((await agent.approve(who, 'call-2')).status).toBe('completed');
    expect(ledger.refunds.map((r) => r.amount)).toEqual([30, 5]);
    await store.close();
  });
});
