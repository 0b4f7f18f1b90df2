/**
 * An agent called as a tool (`agent.asTool`): its `invoke_agent` span is a child of the calling
 * run's `execute_tool` span, in the same trace, with the child's own model calls and tools under it.
 */
import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import { Agent, InMemoryStore, Param, ScriptedModel, Tool, ToolRegistry } from 'toolwright';
import { parentOf, startTracing } from '../support/tracing';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool {
  execute({ order_id }: OrderInput) {
    return { refunded: order_id };
  }
}

@Tool({ name: 'ledger', description: 'Look up the ledger of an order', input: OrderInput })
class LedgerTool {
  execute({ order_id }: OrderInput) {
    return { order_id, paid_cents: 4200 };
  }
}

const tracing = startTracing();
afterAll(() => tracing.stop());

describe('agent tool spans', () => {
  it('nests the child run under the parent’s execute_tool span', async () => {
    const store = new InMemoryStore();
    const child = new Agent({
      name: 'billing',
      model: new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'ledger', arguments: { order_id: 'A-1' } }] }, { text: 'Paid 42.00.' }], {
        name: 'acme:billing-1',
      }),
      tools: [LedgerTool],
      store,
    });
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [child.asTool({ name: 'billing', description: 'Billing questions' })],
    });
    const parent = new Agent({
      name: 'desk',
      model: new ScriptedModel(
        [{ toolCalls: [{ id: 'p1', name: 'billing', arguments: { input: 'What was paid for A-1?' } }] }, { text: 'You paid 42.00.' }],
        {
          name: 'acme:desk-1',
        },
      ),
      tools: registry,
      store,
    });

    const result = await parent.run('What did I pay?', { sessionId: 'chat-1', userId: 'alice' });

    expect(JSON.parse(result.toolCalls[0].result)).toEqual({ output: 'Paid 42.00.' });
    const spans = tracing.spans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [top] = byName('invoke_agent desk');
    const [call] = byName('execute_tool billing');
    const [nested] = byName('invoke_agent billing');
    const [ledger] = byName('execute_tool ledger');
    expect([top, call, nested, ledger].every(Boolean)).toBe(true);
    expect(parentOf(top)).toBeUndefined();
    expect(parentOf(call)).toBe(top.spanContext().spanId);
    expect(parentOf(nested)).toBe(call.spanContext().spanId);
    expect(parentOf(ledger)).toBe(nested.spanContext().spanId);
    expect(byName('chat billing-1').map(parentOf)).toEqual([nested.spanContext().spanId, nested.spanContext().spanId]);
    expect(nested.attributes['gen_ai.conversation.id']).toMatch(/^chat-1\/billing:[0-9a-f]{32}$/);
    for (const span of spans) expect(span.spanContext().traceId).toBe(top.spanContext().traceId);
    // Each run's span counts its own model calls; the parent's RunResult adds the child's.
    const tokens = (span: typeof top, kind: string) => span.attributes[`gen_ai.usage.${kind}_tokens`] as number;
    expect(tokens(nested, 'input')).toBeGreaterThan(0);
    expect(result.usage).toEqual({
      inputTokens: tokens(top, 'input') + tokens(nested, 'input'),
      outputTokens: tokens(top, 'output') + tokens(nested, 'output'),
    });
  });

  it('a child call approved on the top session: the child’s resumed invoke_agent nests under the resumed parent’s execute_tool', async () => {
    const store = new InMemoryStore();
    const build = async (
      childScript: ConstructorParameters<typeof ScriptedModel>[0],
      script: ConstructorParameters<typeof ScriptedModel>[0],
    ) => {
      const child = new Agent({ name: 'refunds', model: new ScriptedModel(childScript), tools: [RefundTool], store });
      const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [child.asTool({ name: 'refunds', description: 'Refunds' })] });
      return new Agent({ name: 'front', model: new ScriptedModel(script), tools: registry, store });
    };
    const first = await build(
      [{ toolCalls: [{ id: 'r1', name: 'refund', arguments: { order_id: 'A-1' } }] }],
      [{ toolCalls: [{ id: 'p1', name: 'refunds', arguments: { input: 'Refund A-1' } }] }],
    );
    expect((await first.run('Refund A-1', { sessionId: 'chat-2' })).status).toBe('paused');
    tracing.exporter.reset();

    const done = await (await build([{ text: 'Refunded.' }], [{ text: 'Done.' }])).approve({ sessionId: 'chat-2' }, 'p1/r1');

    expect(done.status).toBe('completed');
    const spans = tracing.spans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [top] = byName('invoke_agent front');
    const [call] = byName('execute_tool refunds');
    const [nested] = byName('invoke_agent refunds');
    const [refund] = byName('execute_tool refund');
    expect([top, call, nested, refund].every(Boolean)).toBe(true);
    expect(parentOf(call)).toBe(top.spanContext().spanId);
    expect(parentOf(nested)).toBe(call.spanContext().spanId);
    expect(parentOf(refund)).toBe(nested.spanContext().spanId);
  });
});
