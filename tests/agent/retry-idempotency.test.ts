/**
 * A run whose end-of-run save failed (STORE_UNAVAILABLE, "retry") is retried with the same input on
 * the same session: the model asks for the same refund, and the tool must get the idempotency key of
 * the first attempt, on every store. Keys never follow the provider's call ids (providers reuse them).
 */
import { join } from 'node:path';
import { IsInt, IsString } from 'class-validator';
import {
  Agent,
  IdempotencyLedger,
  InMemoryStore,
  Param,
  PostgresStore,
  RedisStore,
  ScriptedModel,
  SqliteStore,
  StoreUnavailableError,
  Tool,
  type AgentContext,
  type SessionStore,
} from 'toolwright';
import { failingSaves } from '../support/failing-saves';
import { useServers } from '../support/use-servers';

class RefundArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
  @Param({ description: 'Amount in cents' }) @IsInt() cents!: number;
}

/** The side effect: money moves once per idempotency key (the ledger replays the rest). */
class Payments {
  readonly paid: Array<{ order: string; cents: number }> = [];
  readonly keys: string[] = [];
  readonly ledger = new IdempotencyLedger<{ refund: number }>();
}

function refundTool(payments: Payments) {
  @Tool({ name: 'refund', description: 'Refunds an order', input: RefundArgs })
  class RefundTool {
    async execute(args: RefundArgs, context: AgentContext) {
      payments.keys.push(context.idempotencyKey!);
      const { result, replayed } = await payments.ledger.once(context.idempotencyKey, { ...args }, () => {
        payments.paid.push({ ...args });
        return { refund: payments.paid.length };
      });
      return { ...result, replayed };
    }
  }
  return RefundTool;
}

const refundScript = (order: string, cents: number, id = 'call_1') =>
  new ScriptedModel([{ toolCalls: [{ id, name: 'refund', arguments: { order, cents } }] }, { text: 'Refunded.' }]);

const servers = useServers('tw-retry-keys-');
const dir = servers.dir;

let n = 0;
describe.each([
  ['in-memory', () => new InMemoryStore()],
  ['sqlite', () => new SqliteStore({ path: join(dir, `s-${n++}.db`) })],
  ['redis', () => new RedisStore({ url: servers.redis.url, keyPrefix: `rk${n++}:`, commandTimeoutMs: 10_000 })],
  [
    'postgres',
    () => new PostgresStore({ connectionString: servers.postgres.connectionString, schema: `rk${n++}`, statementTimeoutMs: 10_000 }),
  ],
] as Array<[string, () => SessionStore]>)('%s: a run retried after its save failed', (_kind, open) => {
  let real: SessionStore;
  beforeEach(() => {
    real = open();
  });
  afterEach(() => real.close());

  const durable = _kind !== 'in-memory';
  const rows: Array<[string, string[], boolean]> = [
    ['a new session', [], false],
    ['a session with earlier turns, loaded through a history window', ['hello', 'how are you'], false],
  ];
  if (durable)
    rows.push(
      ['a new session', [], true],
      ['a session with earlier turns, loaded through a history window', ['hello', 'how are you'], true],
    );
  it.each(rows)(
    'refunds once in %s (durable steps: %s): the retry gets the key, or the recorded result, of the first attempt',
    async (_case, earlier, durableSteps) => {
      const { store, failNext } = failingSaves(real);
      const payments = new Payments();
      const tools = [refundTool(payments)];
      const who = { sessionId: 'retry-1', userId: 'u-1' };
      const agent = (model: ScriptedModel) => new Agent({ name: 'desk', model, tools, store, historyLimit: 2, durableSteps });
      for (const text of earlier) await agent(new ScriptedModel([{ text: 'Hi.' }])).run(text, who);

      failNext();
      const failed = await agent(refundScript('A-1', 500))
        .run('refund A-1', who)
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(StoreUnavailableError);
      expect(payments.paid).toHaveLength(1);

      const model = refundScript('A-1', 500);
      const retried = await agent(model).run('refund A-1', who);
      expect(retried.status).toBe('completed');
      expect(retried.output).toBe('Refunded.');
      expect(payments.paid).toEqual([{ order: 'A-1', cents: 500 }]);
      if (durableSteps) {
        // Every step of the first attempt was recorded: the retry replays them, asking the model nothing and running no tool.
        expect(JSON.parse(retried.toolCalls[0].result)).toEqual({ refund: 1, replayed: false });
        expect(model.requests).toHaveLength(0);
        expect(payments.keys).toHaveLength(1);
      } else {
        expect(JSON.parse(retried.toolCalls[0].result)).toEqual({ refund: 1, replayed: true });
        expect(payments.keys).toHaveLength(2);
        expect(payments.keys[1]).toBe(payments.keys[0]);
      }
      const saved = (await real.loadSession({ sessionId: 'retry-1' }))!;
      expect(saved.history.slice(-4).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    },
  );

  it('gives every call its own key when the provider reuses call ids across model turns and runs', async () => {
    const payments = new Payments();
    const tools = [refundTool(payments)];
    const who = { sessionId: 'reused-ids', userId: 'u-1' };
    // Turns 1 and 2 of one run both call `call_1` (the runner renames the second), and the next run's first call is `call_1` again.
    const twoTurns = new ScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { order: 'A-1', cents: 100 } }] },
      { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { order: 'B-2', cents: 200 } }] },
      { text: 'Both refunded.' },
    ]);
    await new Agent({ name: 'desk', model: twoTurns, tools, store: real }).run('refund A-1 and B-2', who);
    await new Agent({ name: 'desk', model: refundScript('C-3', 300), tools, store: real }).run('refund C-3', who);
    // The same input again on the same session, later in its history: a new request, not a retry.
    await new Agent({ name: 'desk', model: refundScript('C-3', 300), tools, store: real }).run('refund C-3', who);
    expect(new Set(payments.keys).size).toBe(4);
    expect(payments.paid.map((p) => p.order)).toEqual(['A-1', 'B-2', 'C-3', 'C-3']);
  });

  it('gives a session deleted and created again under its id new keys', async () => {
    const payments = new Payments();
    const tools = [refundTool(payments)];
    const who = { sessionId: 'recreated', userId: 'u-1' };
    await new Agent({ name: 'desk', model: refundScript('A-1', 100), tools, store: real }).run('refund A-1', who);
    await real.deleteSession({ sessionId: 'recreated' });
    await new Agent({ name: 'desk', model: refundScript('A-1', 100), tools, store: real }).run('refund A-1', who);
    expect(payments.keys[1]).not.toBe(payments.keys[0]);
    expect(payments.paid).toHaveLength(2);
  });
});
