import { IsIn, IsInt, IsString, Min, MinLength } from 'class-validator';
import { Agent, AgentContext, InMemoryStore, Param, RetryBudgetExceededError, ScriptedModel, Tool, type ToolInterface } from 'toolwright';

class TicketSummary {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Refund in cents' }) @IsInt() @Min(0) refund_cents!: number;
  @Param({ description: 'Outcome' }) @IsIn(['refunded', 'declined']) outcome!: 'refunded' | 'declined';
}

class OrderIdInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderIdInput })
class LookupTool implements ToolInterface<OrderIdInput> {
  execute({ order_id }: OrderIdInput, context: AgentContext) {
    context.setState('last_order_id', order_id);
    return { order_id, total: 4200 };
  }
}

const session = (id = 's-1') => ({ sessionId: id, userId: 'u-1' });

describe('Agent({ output }): a structured final answer', () => {
  it('tells the model the schema and returns the validated instance', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 't1', name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { text: '```json\n{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}\n```' },
    ]);
    const agent = new Agent({
      name: 'desk',
      instructions: 'Be brief.',
      model,
      tools: [LookupTool],
      store: new InMemoryStore(),
      output: TicketSummary,
    });

    const result = await agent.run('Refund A-1', session());

    expect(result.status).toBe('completed');
    expect(result.output).toBeInstanceOf(TicketSummary);
    expect(result.output).toEqual({ order_id: 'A-1', refund_cents: 4200, outcome: 'refunded' });
    // Typed: the instance's fields, no cast.
    const refund: number | undefined = result.output?.refund_cents;
    expect(refund).toBe(4200);
    expect(result.text).toBe('```json\n{"order_id":"A-1","refund_cents":4200,"outcome":"refunded"}\n```');
    expect(model.requests[0].instructions).toMatch(/^Be brief\.\n\nAnswer with one JSON object/);
    expect(model.requests[0].instructions).toContain('"refund_cents"');
  });

  it('sends an invalid answer back with its field errors, and takes the corrected one', async () => {
    const model = new ScriptedModel([
      { text: '{"order_id":"A-1","refund_cents":-5,"outcome":"maybe"}' },
      { text: '{"order_id":"A-1","refund_cents":0,"outcome":"declined"}' },
    ]);
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model, tools: [LookupTool], store, output: TicketSummary });

    const result = await agent.run('Refund A-1', session());

    expect(result.turns).toBe(2);
    expect(result.output).toEqual({ order_id: 'A-1', refund_cents: 0, outcome: 'declined' });
    expect(result.text).toBe('{"order_id":"A-1","refund_cents":0,"outcome":"declined"}');
    const correction = model.requests[1].messages.at(-1);
    expect(correction?.role).toBe('user');
    expect(correction?.content).toContain('refund_cents');
    expect(correction?.content).toContain('outcome');
    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(saved?.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('fails with RetryBudgetExceededError once the model keeps answering wrong past the budget', async () => {
    const model = new ScriptedModel([{ text: 'not json' }, { text: '{"order_id":""}' }]);
    const agent = new Agent({
      name: 'desk',
      model,
      tools: [LookupTool],
      store: new InMemoryStore(),
      output: TicketSummary,
      retryBudget: 1,
    });

    const error = await agent.run('Refund A-1', session()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect((error as RetryBudgetExceededError).attempts).toBe(2);
    expect(model.requests).toHaveLength(2);
  });

  it('leaves runs without `output` as they were: text only', async () => {
    const model = new ScriptedModel([{ text: 'hello' }]);
    const agent = new Agent({ name: 'desk', instructions: 'Hi.', model, tools: [LookupTool], store: new InMemoryStore() });
    const result = await agent.run('Hi', session());
    expect(result.output).toBe('hello');
    expect(result.text).toBe('hello');
    expect(model.requests[0].instructions).toBe('Hi.');
  });
});
