import { Equals, IsIn, IsInt, IsOptional, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  AnthropicModel,
  InMemoryStore,
  OpenAIChatModel,
  Param,
  Tool,
  type AgentEvent,
  type ToolInterface,
} from 'toolwright';
import { anthropicStream, json, openAIStream, splitEvery, sse, useWireServer } from '../support/wire-server';

/** The structured answer, told to each provider in its native way (and checked here as tool arguments are). */
class TicketSummary {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Refund in cents' }) @IsInt() @Min(0) refund_cents!: number;
  @Param({ description: 'Outcome' }) @IsIn(['refunded', 'declined']) outcome!: 'refunded' | 'declined';
  @Param({ description: 'A note for the customer' }) @IsOptional() @IsString() note?: string;
}

class OrderIdInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderIdInput })
class LookupTool implements ToolInterface<OrderIdInput> {
  execute({ order_id }: OrderIdInput, _context: AgentContext) {
    return { order_id, total: 4200 };
  }
}

class Refunded {
  @Param() @Equals('refunded') outcome!: 'refunded';
  @Param({ description: 'Refund in cents' }) @IsInt() @Min(1) refund_cents!: number;
}

class Escalated {
  @Param() @Equals('escalated') outcome!: 'escalated';
  @Param({ description: 'Who takes it over' }) @IsString() @MinLength(1) team!: string;
}

const session = (id = 's-1') => ({ sessionId: id, userId: 'u-1' });
const VALID = { order_id: 'A-1', refund_cents: 4200, outcome: 'refunded' };

describe('structured output over the OpenAI Chat Completions wire', () => {
  const wire = useWireServer('/v1', (req, res) => json(500, { error: { message: 'no reply queued' } })(req, res));

  function completion(message: Record<string, unknown>, finishReason = 'stop') {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1741570283,
      model: 'gpt-4.1-2025-04-14',
      choices: [
        { index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finishReason },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
    };
  }

  function agent(options: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}) {
    const model = new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0, ...options });
    return new Agent({ name: 'desk', model, tools: [LookupTool], store: new InMemoryStore(), output: TicketSummary });
  }

  it('asks for the schema as a strict response_format and maps its nulls back to absent', async () => {
    wire.replies.push(json(200, completion({ content: JSON.stringify({ ...VALID, note: null }) })));

    const result = await agent().run('Refund A-1', session());

    const body = wire.received[0].body;
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'desk_output', strict: true, schema: expect.objectContaining({ additionalProperties: false }) },
    });
    const schema = body.response_format.json_schema.schema;
    expect(schema.required).toEqual(['order_id', 'refund_cents', 'outcome', 'note']);
    expect(schema.properties.note.type).toEqual(['string', 'null']);
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['lookup']); // no final_answer tool
    expect(body.messages[0].content).toBe('Answer with one JSON object (no prose) matching the response format.');
    expect(result.output).toBeInstanceOf(TicketSummary);
    expect(result.output).toEqual(VALID);
    expect('note' in result.output!).toBe(false);
  });

  it('sends an invalid answer back with its field errors and takes the corrected one', async () => {
    wire.replies.push(
      json(200, completion({ content: '{"order_id":"A-1","refund_cents":-1,"outcome":"refunded","note":null}' })),
      json(200, completion({ content: JSON.stringify({ ...VALID, note: 'Sorry!' }) })),
    );

    const result = await agent().run('Refund A-1', session());

    expect(result.turns).toBe(2);
    expect(result.output).toEqual({ ...VALID, note: 'Sorry!' });
    const retry = wire.received[1].body.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: '{"order_id":"A-1","refund_cents":-1,"outcome":"refunded"}' });
    expect(retry.at(-1).role).toBe('user');
    expect(retry.at(-1).content).toMatch(/- refund_cents: .*0/);
  });

  it('streams the answer: output-partial events grow as the chunks arrive, run-end carries the validated instance', async () => {
    wire.replies.push(sse(openAIStream(completion({ content: JSON.stringify(VALID) }), splitEvery(5))));
    const events: AgentEvent<TicketSummary>[] = [];

    for await (const event of agent().stream('Refund A-1', session())) events.push(event);

    const partials = events.flatMap((e) => (e.type === 'output-partial' ? [e.partial] : []));
    expect(partials.length).toBeGreaterThan(3);
    expect(partials[0]).not.toEqual(VALID);
    expect(partials.some((p) => p.order_id === 'A-1' && !('outcome' in p))).toBe(true);
    expect(partials.at(-1)).toEqual(VALID);
    const end = events.at(-1)!;
    expect(end.type).toBe('run-end');
    const output = end.type === 'run-end' ? end.result.output : null;
    expect(output).toBeInstanceOf(TicketSummary);
    expect(output).toEqual(VALID);
  });

  it('without a native format (nativeOutput: false) offers final_answer and takes its arguments', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'final_answer', arguments: JSON.stringify(VALID) } };
    wire.replies.push(json(200, completion({ tool_calls: [call] }, 'tool_calls')));

    const result = await agent({ nativeOutput: false }).run('Refund A-1', session());

    const body = wire.received[0].body;
    expect(body.response_format).toBeUndefined();
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['lookup', 'final_answer']);
    expect(result.output).toBeInstanceOf(TicketSummary);
    expect(result.output).toEqual(VALID);
  });

  it('sends a union non-strict (strict mode has no root anyOf), saying why, and returns the matched class', async () => {
    const reasons: string[] = [];
    const model = new OpenAIChatModel({
      model: 'gpt-4.1',
      apiKey: 'test',
      baseURL: wire.baseURL,
      maxRetries: 0,
      onStrictFallback: (reason) => reasons.push(reason),
    });
    const union = new Agent<Refunded | Escalated>({
      name: 'desk',
      model,
      tools: [],
      store: new InMemoryStore(),
      output: [Refunded, Escalated],
    });
    wire.replies.push(json(200, completion({ content: '{"outcome":"escalated","team":"billing"}' })));

    const result = await union.run('Escalate', session());

    expect(wire.received[0].body.response_format.json_schema.strict).toBe(false);
    expect(wire.received[0].body.response_format.json_schema.schema.anyOf).toHaveLength(2);
    expect(reasons).toHaveLength(1);
    expect(result.output).toBeInstanceOf(Escalated);
  });
});

describe('structured output over the Anthropic Messages wire', () => {
  const wire = useWireServer('', (req, res) =>
    json(500, { type: 'error', error: { type: 'api_error', message: 'no reply queued' } })(req, res),
  );

  function message(content: unknown[], stopReason = 'end_turn') {
    return {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 20 },
    };
  }

  function model(options: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}) {
    return new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0, ...options });
  }

  const desk = (m = model()) =>
    new Agent({ name: 'desk', model: m, tools: [LookupTool], store: new InMemoryStore(), output: TicketSummary });

  it('asks for the schema as output_config.format and validates the answer', async () => {
    wire.replies.push(json(200, message([{ type: 'text', text: JSON.stringify(VALID) }])));

    const result = await desk().run('Refund A-1', session());

    const body = wire.received[0].body;
    expect(body.output_config.format.type).toBe('json_schema');
    expect(body.output_config.format.schema).toEqual(
      expect.objectContaining({ type: 'object', additionalProperties: false, required: ['order_id', 'refund_cents', 'outcome'] }),
    );
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['lookup']);
    expect(result.output).toBeInstanceOf(TicketSummary);
    expect(result.output).toEqual(VALID);
  });

  it('sends an invalid answer back with its field errors and takes the corrected one', async () => {
    wire.replies.push(
      json(200, message([{ type: 'text', text: '{"order_id":"","refund_cents":5,"outcome":"refunded"}' }])),
      json(200, message([{ type: 'text', text: JSON.stringify(VALID) }])),
    );

    const result = await desk().run('Refund A-1', session());

    expect(result.turns).toBe(2);
    expect(result.output).toEqual(VALID);
    const last = wire.received[1].body.messages.at(-1);
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('order_id');
    expect(wire.received[1].body.output_config).toEqual(wire.received[0].body.output_config);
  });

  it('streams the answer as output-partial events', async () => {
    wire.replies.push(sse(anthropicStream(message([{ type: 'text', text: JSON.stringify(VALID) }]), splitEvery(6))));
    const partials: Record<string, unknown>[] = [];
    let output: unknown;

    for await (const event of desk().stream('Refund A-1', session())) {
      if (event.type === 'output-partial') partials.push(event.partial);
      if (event.type === 'run-end') output = event.result.output;
    }

    expect(partials.length).toBeGreaterThan(3);
    expect(partials.at(-1)).toEqual(VALID);
    expect(output).toBeInstanceOf(TicketSummary);
  });

  it('a schema structured outputs cannot take (a union) goes through final_answer, its fallback reason told', async () => {
    const reasons: string[] = [];
    const union = new Agent<Refunded | Escalated>({
      name: 'desk',
      model: model({ onStrictFallback: (reason) => reasons.push(reason) }),
      tools: [LookupTool],
      store: new InMemoryStore(),
      output: [Refunded, Escalated],
    });
    wire.replies.push(
      json(200, message([{ type: 'tool_use', id: 'toolu_1', name: 'final_answer', input: { outcome: 'unknown' } }], 'tool_use')),
      json(
        200,
        message([{ type: 'tool_use', id: 'toolu_2', name: 'final_answer', input: { outcome: 'refunded', refund_cents: 9 } }], 'tool_use'),
      ),
    );

    const result = await union.run('Refund A-1', session());

    const body = wire.received[0].body;
    expect(body.output_config).toBeUndefined();
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['lookup', 'final_answer']);
    expect(reasons.length).toBeGreaterThan(0);
    expect(JSON.stringify(wire.received[1].body.messages.at(-1))).toContain('must be one of');
    expect(result.output).toBeInstanceOf(Refunded);
    expect(result.output).toEqual({ outcome: 'refunded', refund_cents: 9 });
  });
});
