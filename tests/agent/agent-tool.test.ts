/**
 * `agent.asTool`: an agent as a tool of another agent, through the registry's sourced-tool
 * pipeline, on a real SQLite store; ScriptedModel stands in for both models.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IsIn, IsInt, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  Param,
  ScriptedModel,
  SqliteStore,
  Tool,
  ToolCallFailedError,
  ToolRegistry,
  type AgentEvent,
  type ToolInterface,
} from 'toolwright';
import { childSessionId } from '../../src/agent/agent-tool';

class RefundSummary {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Refund in cents' }) @IsInt() @Min(0) refund_cents!: number;
  @Param({ description: 'Outcome' }) @IsIn(['refunded', 'declined']) outcome!: 'refunded' | 'declined';
}

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount in cents' }) @IsInt() @Min(1) amount_cents!: number;
}

const seen: { userId?: string; tenantId?: string; sessionId: string }[] = [];

@Tool({ name: 'ledger', description: 'Look up the ledger of an order', input: OrderInput })
class LedgerTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput, context: AgentContext) {
    seen.push({ userId: context.userId, tenantId: context.tenantId, sessionId: context.sessionId });
    return { order_id, paid_cents: 4200 };
  }
}

let started!: () => void;
let childSignal: AbortSignal | undefined;

@Tool({ name: 'slow', description: 'Waits until cancelled', input: OrderInput })
class SlowTool implements ToolInterface<OrderInput> {
  execute(_: OrderInput, context: AgentContext) {
    childSignal = context.signal;
    started();
    return new Promise((_resolve, reject) =>
      context.signal.addEventListener('abort', () => reject(new Error('cancelled', { cause: context.signal.reason }))),
    );
  }
}

@Tool({ name: 'refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    return { refunded: order_id };
  }
}

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-tool-'));
  store = new SqliteStore({ path: path.join(dir, 'state.db') });
  seen.length = 0;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ledgerCall = { id: 'c1', name: 'ledger', arguments: { order_id: 'A-1', amount_cents: 4200 } };

function billing(script: ConstructorParameters<typeof ScriptedModel>[0], tools: ToolInterface['constructor'][] = [LedgerTool]) {
  const model = new ScriptedModel(script, { name: 'billing-model' });
  const agent = new Agent({ name: 'billing', instructions: 'You do refunds.', model, tools: tools as never, store, output: RefundSummary });
  return { agent, model };
}

async function desk(child: Agent<RefundSummary>, script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const registry = await ToolRegistry.buildAsync({
    tools: [],
    sources: [child.asTool({ name: 'billing', description: 'Refunds and invoices' })],
  });
  const model = new ScriptedModel(script, { name: 'desk-model' });
  return { agent: new Agent({ name: 'desk', model, tools: registry, store }), model };
}

describe('agent.asTool', () => {
  it('runs the child as the parent’s user and tenant; the parent gets its structured output as the result', async () => {
    const { agent: child, model: childModel } = billing([
      { toolCalls: [ledgerCall] },
      { text: '{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}' },
    ]);
    const { agent: parent, model } = await desk(child, [
      { toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund order A-1 in full' } }] },
      { text: 'Refunded 42.00.' },
    ]);

    const result = await parent.run('Please refund A-1', { sessionId: 'chat-1', userId: 'alice', tenantId: 'acme' });

    expect(result.output).toBe('Refunded 42.00.');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ name: 'billing', status: 'ok' });
    expect(JSON.parse(result.toolCalls[0].result)).toEqual({ order_id: 'A-1', refund_cents: 4200, outcome: 'refunded' });
    // The child's model got the task, its own instructions, and only its own tools.
    expect(childModel.requests[0].messages.at(-1)).toMatchObject({ role: 'user', content: 'Refund order A-1 in full' });
    expect(childModel.requests[0].instructions).toMatch(/^You do refunds\./);
    expect(childModel.requests[0].tools.map((t) => t.name)).toEqual(['ledger', 'final_answer']); // ScriptedModel has no native format
    expect(model.requests[0].tools.map((t) => t.name)).toEqual(['billing']);
    // Identity flows down; the child runs in a session of its own under the parent's.
    expect(seen).toHaveLength(1);
    expect(seen[0].userId).toBe('alice');
    expect(seen[0].tenantId).toBe('acme');
    expect(seen[0].sessionId).toMatch(/^chat-1\/billing:[0-9a-f]{32}$/);
    const childSession = await store.loadSession({ sessionId: seen[0].sessionId, tenantId: 'acme' });
    expect(childSession?.userId).toBe('alice');
    expect(childSession?.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('an agent tool is an asynchronous source: `build` refuses it and names `buildAsync`', () => {
    const { agent: child } = billing([]);
    const source = child.asTool({ name: 'billing', description: 'Refunds' });
    for (const options of [{ sources: [source] }, { mcp: [source] }])
      expect(() => ToolRegistry.build({ tools: [], ...options })).toThrow(/buildAsync\(\{ tools, mcp, sources \}\)/);
  });

  it('answers a retried call from the child run that already completed: the child does not run twice', async () => {
    const { agent: child, model: childModel } = billing([
      { toolCalls: [ledgerCall] },
      { text: '{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}' },
    ]);
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [child.asTool({ name: 'billing', description: 'Refunds' })] });
    const context = new AgentContext({ sessionId: 'chat-2', userId: 'alice' });

    const first = await registry.call('billing', { input: 'Refund A-1' }, context, undefined, { toolCallId: 'call-7' });
    const again = await registry.call('billing', { input: 'Refund A-1' }, context, undefined, { toolCallId: 'call-7' });

    expect(JSON.parse(first)).toEqual({ order_id: 'A-1', refund_cents: 4200, outcome: 'refunded' });
    expect(again).toBe(first);
    expect(childModel.requests).toHaveLength(2); // one run: two model turns
    expect(seen).toHaveLength(1);
  });

  it('cancelling the parent cancels the child run and its running tool', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const { agent: child } = billing(
      [{ toolCalls: [{ id: 'c1', name: 'slow', arguments: { order_id: 'A-1', amount_cents: 1 } }] }],
      [SlowTool],
    );
    const { agent: parent } = await desk(child, [{ toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] }]);
    const controller = new AbortController();

    const run = parent.run('Refund A-1', { sessionId: 'chat-3', userId: 'alice', signal: controller.signal }).catch((e: unknown) => e);
    await running;
    controller.abort(new Error('user left'));
    const error = await run;

    expect(childSignal?.aborted).toBe(true);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toMatch(/RUN_ABORTED|ABORTED/);
  });

  it('a child call that needs approval pauses the calling run, listed with its path (see child-approvals.test.ts)', async () => {
    const { agent: child } = billing(
      [{ toolCalls: [{ id: 'r1', name: 'refund', arguments: { order_id: 'A-1', amount_cents: 4200 } }] }],
      [RefundTool],
    );
    const { agent: parent } = await desk(child, [{ toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] }]);

    const result = await parent.run('Refund A-1', { sessionId: 'chat-4', userId: 'alice' });

    expect(result.status).toBe('paused');
    expect(result.approvals.map((a) => [a.toolCallId, a.path])).toEqual([['p1/r1', ['billing#p1', 'refund#r1']]]);
    expect(await parent.pendingApprovals({ sessionId: 'chat-4', userId: 'alice' })).toEqual(result.approvals);
  });

  it('a streamed parent carries the child run’s events, tagged with the agent and the path; the child’s end is the parent’s tool result', async () => {
    const { agent: child } = billing([
      { toolCalls: [ledgerCall] },
      { text: '{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}' },
    ]);
    const { agent: parent } = await desk(child, [
      { toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] },
      { text: 'Refunded.' },
    ]);

    const events: AgentEvent[] = [];
    for await (const event of parent.stream('Refund A-1', { sessionId: 'chat-s', userId: 'alice' })) events.push(event);

    const nested = events.filter((e) => e.path !== undefined);
    expect(nested.every((e) => e.agent === 'billing' && e.path!.length === 1 && e.path![0] === 'billing#p1')).toBe(true);
    const kinds = (list: AgentEvent[]) => list.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
    expect(kinds(nested)).toEqual(['run-start', 'tool-call', 'tool-result', 'turn-end', 'text-delta', 'turn-end']);
    expect(nested.find((e) => e.type === 'tool-call')).toMatchObject({ toolCallId: 'c1', name: 'ledger' });
    expect(nested.find((e) => e.type === 'tool-result')).toMatchObject({ record: { name: 'ledger', status: 'ok' } });
    expect(nested.some((e) => e.type === 'run-end')).toBe(false);
    const own = events.filter((e) => e.path === undefined);
    expect(kinds(own)).toEqual(['run-start', 'tool-call', 'tool-result', 'turn-end', 'text-delta', 'turn-end', 'run-end']);
    // The parent's tool-result comes after the child's events; the run ends once.
    expect(events.indexOf(own[2])).toBeGreaterThan(events.indexOf(nested.at(-1)!));
    expect(events.filter((e) => e.type === 'run-end')).toHaveLength(1);
  });

  it('leaving a streamed parent early cancels the streamed child run and its running tool', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const { agent: child } = billing(
      [{ toolCalls: [{ id: 'c1', name: 'slow', arguments: { order_id: 'A-1', amount_cents: 1 } }] }],
      [SlowTool],
    );
    const { agent: parent } = await desk(child, [{ toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] }]);

    const seen: AgentEvent[] = [];
    const stream = parent.stream('Refund A-1', { sessionId: 'chat-sc', userId: 'alice' });
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'tool-call' && event.path !== undefined) {
        await running;
        break; // the reader leaves while the child's tool runs
      }
    }

    expect(childSignal?.aborted).toBe(true);
    expect(seen.find((e) => e.path !== undefined)).toMatchObject({ agent: 'billing', path: ['billing#p1'] });
  });

  it('bad arguments for the agent tool are the registry’s usual validation errors; the child never runs', async () => {
    const { agent: child, model: childModel } = billing([{ text: '{}' }]);
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [
        child.asTool({ name: 'billing', description: 'Refunds' }),
        child.asTool({ name: 'billing_order', description: 'Refund one order', input: OrderInput }),
      ],
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'p1', name: 'billing', arguments: { input: 42 } },
          { id: 'p2', name: 'billing_order', arguments: { order_id: 'A-1', amount_cents: 'lots' } },
          { id: 'p3', name: 'billing_order', arguments: { order_id: 'A-1', amount_cents: 0 } },
        ],
      },
      { text: 'Sorry.' },
    ]);
    const desk = new Agent({ name: 'desk', model, tools: registry, store, retryBudget: 5 });

    const result = await desk.run('Refund A-1', { sessionId: 'chat-5', userId: 'alice' });

    expect(result.output).toBe('Sorry.');
    expect(result.toolCalls.map((c) => [c.name, c.status, c.code])).toEqual([
      ['billing', 'error', 'INVALID_ARGUMENTS'],
      ['billing_order', 'error', 'INVALID_ARGUMENTS'],
      ['billing_order', 'error', expect.stringMatching(/INVALID_ARGUMENTS|MODEL_RETRY/)],
    ]);
    expect(result.toolCalls[0].result).toContain('input');
    expect(result.toolCalls[1].result).toContain('amount_cents');
    expect(childModel.requests).toHaveLength(0);
    expect(registry.definitions().find((d) => d.name === 'billing_order')?.parameters).toMatchObject({
      properties: { order_id: { type: 'string' }, amount_cents: { type: 'integer' } },
    });
  });

  it('an input class: the model fills its fields, the child gets them as JSON', async () => {
    const { agent: child, model: childModel } = billing([{ text: '{"order_id":"A-1","refund_cents":500,"outcome":"refunded"}' }]);
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [child.asTool({ name: 'billing_order', description: 'Refund one order', input: OrderInput })],
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'p1', name: 'billing_order', arguments: { order_id: 'A-1', amount_cents: 500 } }] },
      { text: 'Done.' },
    ]);
    const result = await new Agent({ name: 'desk', model, tools: registry, store }).run('Refund 5.00 on A-1', { sessionId: 'chat-6' });

    expect(childModel.requests[0].messages.at(-1)?.content).toBe('{"order_id":"A-1","amount_cents":500}');
    expect(JSON.parse(result.toolCalls[0].result)).toEqual({ order_id: 'A-1', refund_cents: 500, outcome: 'refunded' });
  });

  it('the agent tool’s timeout cancels the child run', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const { agent: child } = billing(
      [{ toolCalls: [{ id: 'c1', name: 'slow', arguments: { order_id: 'A-1', amount_cents: 1 } }] }],
      [SlowTool],
    );
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [child.asTool({ name: 'billing', description: 'Refunds', timeoutMs: 100 })],
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] }]);
    const desk = new Agent({ name: 'desk', model, tools: registry, store });

    const error = await desk.run('Refund A-1', { sessionId: 'chat-7' }).catch((e: unknown) => e);
    await running;

    expect(error).toBeInstanceOf(ToolCallFailedError);
    expect((error as ToolCallFailedError).code).toBe('TOOL_TIMEOUT');
    expect(childSignal?.aborted).toBe(true);
  });

  it('an approval policy on the agent tool pauses the calling run; approving runs the child once', async () => {
    const { agent: child, model: childModel } = billing([{ text: '{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}' }]);
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [child.asTool({ name: 'billing', description: 'Refunds', approval: true })],
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] },
      { text: 'Refunded.' },
    ]);
    const desk = new Agent({ name: 'desk', model, tools: registry, store });
    const session = { sessionId: 'chat-8', userId: 'alice' };

    const paused = await desk.run('Refund A-1', session);
    expect(paused.status).toBe('paused');
    expect(paused.approvals.map((a) => [a.name, a.args])).toEqual([['billing', { input: 'Refund A-1' }]]);
    expect(childModel.requests).toHaveLength(0);

    const done = await desk.approve({ ...session, approver: 'manager' }, 'p1');
    expect(done.output).toBe('Refunded.');
    expect(childModel.requests).toHaveLength(1);
    expect(JSON.parse(done.toolCalls[0].result)).toMatchObject({ outcome: 'refunded' });
  });

  it('a parent session id too long to nest in keeps the child’s id within the 512-byte limit', async () => {
    const { agent: child } = billing([{ text: '{"order_id":"A-1","refund_cents":1,"outcome":"refunded"}' }], [LedgerTool]);
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [child.asTool({ name: 'billing', description: 'Refunds' })] });
    const long = 'é'.repeat(250); // 500 bytes: valid alone, too long with the child's suffix
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'Refund A-1' } }] },
      { text: 'Done.' },
    ]);

    const result = await new Agent({ name: 'desk', model, tools: registry, store }).run('Refund A-1', { sessionId: long });

    expect(result.toolCalls[0].status).toBe('ok');
    expect(childSessionId(long, 'billing', 'k'.repeat(32))).toMatch(/^[0-9a-f]{32}\/billing:k{32}$/);
    expect(childSessionId('chat-1', 'billing', 'k')).toBe('chat-1/billing:k');
  });

  it('a tool’s own reported tokens (context.toolCall.onUsage) add to the run’s usage; malformed reports are ignored', async () => {
    @Tool({ name: 'summarize', description: 'Summarizes with a model of its own', input: OrderInput })
    class SummarizeTool implements ToolInterface<OrderInput> {
      execute({ amount_cents }: OrderInput, context: AgentContext) {
        const report = context.toolCall?.onUsage;
        if (amount_cents === 1 && report) {
          report({ inputTokens: 1000, outputTokens: 200 });
          report({ inputTokens: Number.NaN, outputTokens: 5 });
          report({ inputTokens: -1, outputTokens: 5 });
          report(JSON.parse('{"inputTokens":"7","outputTokens":7}') as { inputTokens: number; outputTokens: number });
        }
        return { ok: true };
      }
    }
    const run = (amount: number, sessionId: string) =>
      new Agent({
        name: 'desk',
        model: new ScriptedModel([
          { toolCalls: [{ id: 't1', name: 'summarize', arguments: { order_id: 'A-1', amount_cents: amount } }] },
          { text: 'ok' },
        ]),
        tools: [SummarizeTool],
        store,
      }).run('x', { sessionId });

    const plain = await run(2, 'u-1');
    const counted = await run(1, 'u-2');

    expect(plain.usage.inputTokens).toBeGreaterThan(0);
    expect(counted.usage).toEqual({ inputTokens: plain.usage.inputTokens + 1000, outputTokens: plain.usage.outputTokens + 200 });
  });
});
