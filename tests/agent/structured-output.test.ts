import { Equals, IsIn, IsInt, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  Param,
  RetryBudgetExceededError,
  ScriptedModel,
  Tool,
  ToolwrightConfigError,
  type AgentEvent,
  type Model,
  type ToolInterface,
} from 'toolwright';

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

class Refunded {
  @Param() @Equals('refunded') outcome!: 'refunded';
  @Param({ description: 'Refund in cents' }) @IsInt() @Min(1) refund_cents!: number;
}

class Escalated {
  @Param() @Equals('escalated') outcome!: 'escalated';
  @Param({ description: 'Who takes it over' }) @IsString() @MinLength(1) team!: string;
}

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

  it('offers a model without a native format the final_answer tool: its arguments are the answer, its calls beside it are not run', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 't1', name: 'lookup', arguments: { order_id: 'A-9' } },
          { id: 't2', name: 'final_answer', arguments: { order_id: 'A-1', refund_cents: 10, outcome: 'refunded' } },
        ],
      },
    ]);
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model, tools: [LookupTool], store, output: TicketSummary });

    const result = await agent.run('Refund A-1', session());

    expect(model.requests[0].tools.map((t) => t.name)).toEqual(['lookup', 'final_answer']);
    expect(model.requests[0].tools[1].parameters).toEqual(expect.objectContaining({ required: expect.arrayContaining(['outcome']) }));
    expect(model.requests[0].output).toBeUndefined();
    expect(result.output).toBeInstanceOf(TicketSummary);
    expect(result.output).toEqual({ order_id: 'A-1', refund_cents: 10, outcome: 'refunded' });
    expect(JSON.parse(result.text!)).toEqual({ order_id: 'A-1', refund_cents: 10, outcome: 'refunded' });
    expect(result.toolCalls).toHaveLength(0); // `lookup` beside the answer did not run
    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(saved?.history.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(saved?.history[1]).not.toHaveProperty('toolCalls');
  });
});

describe('Agent({ output }): its edges', () => {
  it('refuses a tool named final_answer beside an output the model answers through that tool', () => {
    @Tool({ name: 'final_answer', description: 'Mine', input: OrderIdInput })
    class MyFinalAnswer implements ToolInterface<OrderIdInput> {
      execute() {
        return { ok: true };
      }
    }
    const build = (model: Model) =>
      new Agent({ name: 'desk', model, tools: [MyFinalAnswer], store: new InMemoryStore(), output: TicketSummary });
    expect(() => build(new ScriptedModel([]))).toThrow(ToolwrightConfigError);
    expect(() => build(new ScriptedModel([]))).toThrow(/a tool is named "final_answer"/);
    // A model that takes the schema natively offers no final_answer tool: no clash.
    const native: Model = { name: 'native', generate: () => Promise.reject(new Error('unused')), nativeOutput: () => true };
    expect(build(native)).toBeInstanceOf(Agent);
  });

  it('streams a model without `stream` as one output-partial, and tells a native model the format in each request', async () => {
    const requests: Parameters<Model['generate']>[0][] = [];
    const model: Model = {
      name: 'plain',
      nativeOutput: (format) => format.name === 'desk_output',
      generate: (request) => {
        requests.push(request);
        return Promise.resolve({ content: '{"order_id":"A-1","refund_cents":1,"outcome":"refunded"}', toolCalls: [] });
      },
    };
    const agent = new Agent({ name: 'desk', model, tools: [LookupTool], store: new InMemoryStore(), output: TicketSummary });
    const events: AgentEvent<TicketSummary>[] = [];

    for await (const event of agent.stream('Refund A-1', session())) events.push(event);

    expect(events.filter((e) => e.type === 'output-partial')).toEqual([
      expect.objectContaining({ turn: 1, partial: { order_id: 'A-1', refund_cents: 1, outcome: 'refunded' } }),
    ]);
    const end = events.at(-1)!;
    expect(end.type === 'run-end' && end.result.output).toBeInstanceOf(TicketSummary);
    expect(requests[0].output?.name).toBe('desk_output');
    expect(requests[0].output?.schema.required).toEqual(['order_id', 'refund_cents', 'outcome']);
    expect(requests[0].tools.map((t) => t.name)).toEqual(['lookup']);
  });
});

describe('Agent({ output: [A, B] }): a union keyed by a literal field', () => {
  const unionAgent = (model: ScriptedModel) =>
    new Agent<Refunded | Escalated>({
      name: 'desk',
      model,
      tools: [LookupTool],
      store: new InMemoryStore(),
      output: [Refunded, Escalated],
    });

  it('tells the model every variant and returns an instance of the class the answer names', async () => {
    const model = new ScriptedModel([
      { text: '{"outcome":"refunded","refund_cents":500}' },
      { toolCalls: [{ name: 'final_answer', arguments: { outcome: 'escalated', team: 'billing' } }] },
    ]);
    const agent = unionAgent(model);

    const first = await agent.run('Refund A-1', session('s-a'));
    const second = await agent.run('Escalate A-2', session('s-b'));

    expect(first.output).toBeInstanceOf(Refunded);
    expect(first.output).toEqual({ outcome: 'refunded', refund_cents: 500 });
    expect(second.output).toBeInstanceOf(Escalated);
    expect(second.output).toEqual({ outcome: 'escalated', team: 'billing' });
    const told = model.requests[0].tools.find((t) => t.name === 'final_answer')!.parameters;
    expect(told.anyOf?.map((s) => s.properties?.outcome)).toEqual([
      expect.objectContaining({ const: 'refunded' }),
      expect.objectContaining({ const: 'escalated' }),
    ]);
    // Narrowed by the literal, typed without a cast.
    const out = first.output;
    expect(out?.outcome === 'refunded' ? out.refund_cents : out?.team).toBe(500);
  });

  it("sends an unknown variant back with the field's allowed values, then checks the corrected one against its own class", async () => {
    const model = new ScriptedModel([
      { text: '{"outcome":"lost","team":"x"}' },
      { text: '{"outcome":"refunded","refund_cents":0}' },
      { text: '{"outcome":"refunded","refund_cents":1}' },
    ]);
    const agent = unionAgent(model);

    const result = await agent.run('Refund A-1', session());

    expect(result.turns).toBe(3);
    expect(result.output).toBeInstanceOf(Refunded);
    expect(result.output).toEqual({ outcome: 'refunded', refund_cents: 1 });
    const unknown = model.requests[1].messages.at(-1)!.content!;
    expect(unknown).toContain('- outcome: must be one of "refunded", "escalated"');
    const tooSmall = model.requests[2].messages.at(-1)!.content!;
    expect(tooSmall).toContain('refund_cents');
    expect(tooSmall).not.toContain('team');
  });

  it('refuses a union without a common literal field when the agent is built', () => {
    class NoTag {
      @Param() @IsString() note!: string;
    }
    expect(() => new Agent<Refunded | NoTag>({ name: 'desk', model: new ScriptedModel([]), tools: [], output: [Refunded, NoTag] })).toThrow(
      /no common literal field/,
    );
  });
});
