/**
 * Issue 10, on every store: one owner per session, one decision per call, one execution per
 * decision, ids the stores cannot keep, and idempotency keys of the logical call.
 */
import { randomUUID } from 'node:crypto';
import { IsNumber, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  InvalidIdError,
  Param,
  PostgresStore,
  RedisStore,
  RunClaimedError,
  RunPausedError,
  ScriptedModel,
  SessionForbiddenError,
  SqliteStore,
  Tool,
  type Message,
  type SessionStore,
  type ToolInterface,
} from 'toolwright';
import { startRedisAndPostgres, type PostgresServer, type RedisServer } from '../support/servers';
import { Ledger } from '../support/ledger';

let ledger = new Ledger();
beforeEach(() => (ledger = new Ledger()));

class PayArgs {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount' }) @IsNumber() @Min(1) amount!: number;
}

@Tool({ name: 'pay_refund', description: 'Refund money (a human approves)', input: PayArgs, approval: true })
class PayRefundTool implements ToolInterface<PayArgs> {
  execute({ order_id, amount }: PayArgs, context: AgentContext) {
    return ledger.pay(order_id, amount, context.idempotencyKey);
  }
}

@Tool({ name: 'auto_refund', description: 'Refund money (no approval)', input: PayArgs })
class AutoRefundTool implements ToolInterface<PayArgs> {
  execute({ order_id, amount }: PayArgs, context: AgentContext) {
    return ledger.pay(order_id, amount, context.idempotencyKey);
  }
}

class NoteArgs {
  @Param({ description: 'Text' }) @IsString() text!: string;
}

@Tool({ name: 'remember', description: 'Remember a fact about the user', input: NoteArgs })
class RememberTool implements ToolInterface<NoteArgs> {
  execute({ text }: NoteArgs, _context: AgentContext, memory: AgentMemory) {
    memory.addFact(text);
    return { status: 'ok' };
  }
}

const tools = [PayRefundTool, AutoRefundTool, RememberTool];
const pay = (amount: number, id = 'call_0', name = 'pay_refund') => ({ toolCalls: [{ id, name, arguments: { order_id: 'A-1', amount } }] });
const toolResults = (messages: readonly Message[]) => messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: RedisServer;
let postgres: PostgresServer;
beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

describe.each([
  ['in-memory', () => new InMemoryStore()],
  ['sqlite', () => new SqliteStore({ path: ':memory:' })],
  ['redis', () => new RedisStore({ url: redis.url, keyPrefix: `tw-own-${randomUUID()}:` })],
  ['postgres', () => new PostgresStore({ connectionString: postgres.connectionString })],
] as Array<[string, () => SessionStore]>)('on the %s store', (_kind, makeStore) => {
  let store: SessionStore;
  beforeAll(() => {
    store = makeStore();
  });
  afterAll(async () => {
    await store.close();
  });
  const sid = () => `s-${randomUUID()}`;
  const agent = (model: ScriptedModel, name = 'support') => new Agent({ name, model, tools, store });

  it('refuses run, approve, resume and pendingApprovals without userId on an owned session: nothing of the owner is read or run', async () => {
    const sessionId = sid();
    const owner = { sessionId, userId: 'u-1' };
    await agent(new ScriptedModel([{ text: 'Your card ends in 4242.' }])).run('my card?', owner);
    const reader = new ScriptedModel([{ text: 'never' }]);
    await expect(agent(reader).run('what did I say?', { sessionId })).rejects.toBeInstanceOf(SessionForbiddenError);
    expect(reader.requests).toHaveLength(0);

    await agent(new ScriptedModel([pay(500)])).run('refund 500', owner);
    const approver = new ScriptedModel([{ text: 'never' }]);
    for (const attempt of [
      () => agent(approver).approve({ sessionId }, 'call_0'),
      () => agent(approver).reject({ sessionId }, 'call_0', 'no'),
      () => agent(approver).resume({ sessionId }, { call_0: { approve: true } }),
      () => agent(approver).approve({ sessionId, userId: 'mallory' }, 'call_0'),
      () => agent(approver).pendingApprovals({ sessionId }),
    ]) {
      await expect(attempt()).rejects.toBeInstanceOf(SessionForbiddenError);
    }
    expect(ledger.refunds).toHaveLength(0);
    expect(approver.requests).toHaveLength(0);
    await expect(agent(approver).pendingApprovals(owner)).resolves.toHaveLength(1);

    // Anonymous sessions belong to anonymous runs only, and stay usable by them.
    const anonymous = sid();
    await agent(new ScriptedModel([{ text: 'hi' }])).run('hi', { sessionId: anonymous });
    await expect(agent(new ScriptedModel([{ text: 'x' }])).run('mine now', { sessionId: anonymous, userId: 'u-1' })).rejects.toBeInstanceOf(
      SessionForbiddenError,
    );
    const again = new ScriptedModel([{ text: 'hello again' }]);
    await agent(again).run('hi again', { sessionId: anonymous });
    expect(again.requests[0].messages.map((m) => m.content)).toEqual(['hi', 'hi', 'hi again']);
  });

  it("a session deleted and claimed by another user while a run is in flight gets nothing of that run's turn", async () => {
    const sessionId = sid();
    for (const [owner, thief] of [
      ['u-1', 'mallory'],
      ['u-1', null],
      [null, 'mallory'],
    ] as const) {
      const key = { sessionId: `${sessionId}-${owner}-${thief}` };
      const me = owner === null ? key : { ...key, userId: owner };
      await agent(new ScriptedModel([{ text: 'hello' }])).run('hi', me);
      // While the model answers: the session is deleted and someone else claims it.
      const model = new ScriptedModel([
        async () => {
          await store.deleteSession(key);
          await store.claimSession(key, thief);
          return { text: 'my secret answer', toolCalls: [] };
        },
      ]);
      await expect(agent(model).run('tell me my secret', me)).rejects.toBeInstanceOf(SessionForbiddenError);
      const taken = (await store.loadSession(key))!;
      expect(taken.userId ?? null).toBe(thief);
      expect(taken.history).toEqual([]);
      expect(JSON.stringify(taken)).not.toContain('secret');
    }
  });

  it('keeps anonymous memory scopes apart from every user id', async () => {
    const sessionId = sid();
    const note = { toolCalls: [{ name: 'remember', arguments: { text: `anonymous secret of ${sessionId}` } }] };
    await agent(new ScriptedModel([note, { text: 'ok' }])).run('remember this', { sessionId });
    const instructions = (_c: AgentContext, memory: AgentMemory) =>
      memory
        .getFacts()
        .map((f) => f.content)
        .join('; ');
    for (const userId of [`session:${sessionId}`, `#session:${sessionId}`, `##session:${sessionId}`]) {
      const model = new ScriptedModel([{ text: 'hi' }]);
      await new Agent({ name: 'support', instructions, model, tools, store }).run('what do you know?', { sessionId: sid(), userId });
      expect(model.requests[0].instructions).toBe('');
    }
    // The anonymous session itself still has its memory.
    const same = new ScriptedModel([{ text: 'hi' }]);
    await new Agent({ name: 'support', instructions, model: same, tools, store }).run('again', { sessionId });
    expect(same.requests[0].instructions).toBe(`anonymous secret of ${sessionId}`);
  });

  it('lets exactly one of two users opening the same new session at once own it; nothing of the other is stored or run', async () => {
    const sessionId = sid();
    const slow = (who: string) =>
      new ScriptedModel([
        async () => {
          await sleep(50);
          return { toolCalls: [{ name: 'auto_refund', arguments: { order_id: who, amount: 5 } }] };
        },
        { text: `done for ${who}` },
      ]);
    const [alice, bob] = [slow('alice'), slow('bob')];
    const results = await Promise.allSettled([
      agent(alice).run('refund me', { sessionId, userId: 'alice' }),
      agent(bob).run('refund me', { sessionId, userId: 'bob' }),
    ]);
    const won = results.findIndex((r) => r.status === 'fulfilled');
    const lost = 1 - won;
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((results[lost] as PromiseRejectedResult).reason).toBeInstanceOf(SessionForbiddenError);
    const winner = ['alice', 'bob'][won];
    // The loser's model was never asked and its tool never ran.
    expect([alice, bob][lost].requests).toHaveLength(0);
    expect(ledger.refunds.map((r) => r.order)).toEqual([winner]);
    const saved = (await store.loadSession({ sessionId }))!;
    expect(saved.userId).toBe(winner);
    expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(saved.history.at(-1)!.content).toBe(`done for ${winner}`);
  });

  it('runs a paused call once when two approvers resume it at the same moment', async () => {
    const sessionId = sid();
    const owner = { sessionId, userId: 'u-1' };
    await agent(new ScriptedModel([pay(500)])).run('refund 500', owner);
    const models = [new ScriptedModel([{ text: 'done' }]), new ScriptedModel([{ text: 'done' }])];
    const results = await Promise.allSettled([
      agent(models[0]).approve({ ...owner, approver: 'manager-1' }, 'call_0'),
      agent(models[1]).approve({ ...owner, approver: 'manager-2' }, 'call_0'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(RunClaimedError);
    expect(ledger.refunds).toHaveLength(1);
    const saved = (await store.loadSession({ sessionId }))!;
    expect(saved.pendingRun).toBeNull();
    expect(toolResults(saved.history)).toHaveLength(1);
    expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('keeps one paused run when two runs of a session pause at once; the other fails with RunPausedError', async () => {
    const sessionId = sid();
    const owner = { sessionId, userId: 'u-1' };
    await agent(new ScriptedModel([{ text: 'hi' }])).run('hi', owner);
    const slowPay = (amount: number) =>
      new ScriptedModel([
        async () => {
          await sleep(150); // both runs have loaded the session before either pauses
          return pay(amount, `p-${amount}`);
        },
      ]);
    const results = await Promise.allSettled([agent(slowPay(100)).run('refund 100', owner), agent(slowPay(200)).run('refund 200', owner)]);
    const paused = results.filter((r): r is PromiseFulfilledResult<import('toolwright').RunResult> => r.status === 'fulfilled');
    expect(paused).toHaveLength(1);
    expect(paused[0].value.status).toBe('paused');
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(RunPausedError);
    const waiting = paused[0].value.approvals.map((a) => a.toolCallId);
    expect((await agent(new ScriptedModel([])).pendingApprovals(owner)).map((a) => a.toolCallId)).toEqual(waiting);
    await agent(new ScriptedModel([{ text: 'ok' }])).approve(owner, waiting[0]);
    expect(ledger.refunds.map((r) => `p-${r.amount}`)).toEqual(waiting);
  });

  it('derives idempotency keys from the logical call: a later refund with a restarted call id is a new refund', async () => {
    const sessionId = sid();
    const owner = { sessionId, userId: 'u-1' };
    // An OpenAI-compatible server that numbers calls from call_0 in every response.
    await agent(new ScriptedModel([pay(500, 'call_0', 'auto_refund'), { text: 'ok' }])).run('refund 500', owner);
    await agent(new ScriptedModel([pay(9000, 'call_0', 'auto_refund'), { text: 'ok' }])).run('and 9000 more', owner);
    expect(ledger.refunds.map((r) => r.amount)).toEqual([500, 9000]);
    expect(new Set(ledger.refunds.map((r) => r.key)).size).toBe(2);
    // Approved calls too: each run's call_0 is its own refund.
    await agent(new ScriptedModel([pay(70)])).run('refund 70', owner);
    await agent(new ScriptedModel([{ text: 'ok' }])).approve(owner, 'call_0');
    await agent(new ScriptedModel([pay(80)])).run('refund 80', owner);
    await agent(new ScriptedModel([{ text: 'ok' }])).approve(owner, 'call_0');
    expect(ledger.refunds.map((r) => r.amount)).toEqual([500, 9000, 70, 80]);
  });

  it('refuses ids no store can keep exactly with InvalidIdError before the model runs, the same on every store', async () => {
    const bad = ['a\u0000b', 'lone \uD800', '\uDFFF', 'x'.repeat(10_000), ''];
    for (const id of bad) {
      for (const options of [
        { sessionId: id, userId: 'u' },
        { sessionId: sid(), userId: id },
        { sessionId: sid(), tenantId: id },
      ]) {
        const model = new ScriptedModel([{ text: 'never' }]);
        const error = await agent(model)
          .run('hi', options)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidIdError);
        expect((error as InvalidIdError).code).toBe('INVALID_ID');
        expect(model.requests).toHaveLength(0);
      }
    }
    // Two lone-surrogate ids that an encoder would merge into one U+FFFD id are both refused.
    for (const sessionId of ['\uD800', '\uD801']) {
      await expect(agent(new ScriptedModel([{ text: 'x' }])).run('hi', { sessionId })).rejects.toBeInstanceOf(InvalidIdError);
    }
  });
});
