import { ModelError } from '../../../src/errors/errors';
import { AnthropicModel } from '../../../src/agent/models/anthropic.model';
import type { ToolDefinition } from '../../../src/metadata/json-schema';
import fc from 'fast-check';
import { anthropicStream, json, readStream, splitEvery, sse, useWireServer, watchClose } from '../../support/wire-server';

/** A local server speaking the Messages API wire format; each test queues its replies. */
const wire = useWireServer('', (req, res) => answer(500, apiError('api_error', 'no reply queued'))(req, res));

/** Every Anthropic reply carries a request id header. */
function answer(status: number, body: unknown) {
  return json(status, body, { 'request-id': 'req_011CTest' });
}

function apiError(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: 'req_011CTest' };
}

/** The shape api.anthropic.com returns for a non-streaming message. */
function message(content: unknown[], stopReason: string, usage = { input_tokens: 412, output_tokens: 93 }) {
  return {
    id: 'msg_01Aq9w938a90dw8q',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { ...usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
  };
}

const orderTool: ToolDefinition = {
  name: 'get_order',
  description: 'Look up an order',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '^A-\\d+$', description: 'The order ID' } },
    required: ['order_id'],
  },
};

function model(options: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}) {
  return new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0, ...options });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('AnthropicModel', () => {
  it('returns a text reply with usage and stop reason, sending instructions as system', async () => {
    wire.replies.push(answer(200, message([{ type: 'text', text: 'Hello! How can I help?' }], 'end_turn')));

    const response = await model({ maxTokens: 512, temperature: 0 }).generate({
      instructions: 'You are a support agent.',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [],
    });

    expect(response).toEqual({
      content: 'Hello! How can I help?',
      toolCalls: [],
      usage: { inputTokens: 412, outputTokens: 93 },
      finishReason: 'end_turn',
    });
    expect(wire.received[0].method).toBe('POST');
    expect(wire.received[0].url).toBe('/v1/messages');
    expect(wire.received[0].headers['anthropic-version']).toBeDefined();
    // SDK 1.x sends the key as a bearer token; older majors used x-api-key.
    expect(wire.received[0].headers.authorization ?? wire.received[0].headers['x-api-key']).toMatch(/\btest$/);
    expect(wire.received[0].body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 512,
      system: 'You are a support agent.',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0,
    });
  });

  it('maps one tool_use block, serializing its input to a JSON string, and sends the tools array', async () => {
    wire.replies.push(
      answer(
        200,
        message(
          [
            { type: 'text', text: 'Let me look that up.' },
            { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_order', input: { order_id: 'A-100' } },
          ],
          'tool_use',
        ),
      ),
    );

    const response = await model().generate({ messages: [{ role: 'user', content: 'Where is A-100?' }], tools: [orderTool] });

    expect(response.content).toBe('Let me look that up.');
    expect(response.finishReason).toBe('tool_use');
    expect(response.toolCalls).toEqual([{ id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_order', arguments: '{"order_id":"A-100"}' }]);
    expect(wire.received[0].body.max_tokens).toBe(4096);
    expect(wire.received[0].body.tools).toEqual([
      { name: 'get_order', description: 'Look up an order', input_schema: orderTool.parameters },
    ]);
  });

  it('sends tools with strict tool use when strictTools is set, and non-strict those strict mode cannot express', async () => {
    wire.replies.push(answer(200, message([{ type: 'text', text: 'OK' }], 'end_turn')));
    const freeForm: ToolDefinition = {
      name: 'tag',
      description: 'Attach metadata',
      parameters: { type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] },
    };

    await model({ strictTools: true }).generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [orderTool, freeForm] });

    expect(wire.received[0].body.tools).toEqual([
      {
        name: 'get_order',
        description: 'Look up an order',
        strict: true,
        input_schema: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'The order ID (pattern: "^A-\\\\d+$")' } },
          required: ['order_id'],
          additionalProperties: false,
        },
      },
      { name: 'tag', description: 'Attach metadata', strict: false, input_schema: freeForm.parameters },
    ]);
  });

  it('maps parallel tool_use blocks in order, and a text-less reply to null content', async () => {
    wire.replies.push(
      answer(
        200,
        message(
          [
            { type: 'tool_use', id: 'toolu_a', name: 'get_order', input: { order_id: 'A-1' } },
            { type: 'tool_use', id: 'toolu_b', name: 'get_order', input: { order_id: 'A-2' } },
          ],
          'tool_use',
        ),
      ),
    );

    const response = await model().generate({ messages: [{ role: 'user', content: 'A-1 and A-2?' }], tools: [orderTool] });

    expect(response.content).toBeNull();
    expect(response.toolCalls).toEqual([
      { id: 'toolu_a', name: 'get_order', arguments: '{"order_id":"A-1"}' },
      { id: 'toolu_b', name: 'get_order', arguments: '{"order_id":"A-2"}' },
    ]);
  });

  it('sends prior tool calls as tool_use and groups consecutive results in one user message', async () => {
    wire.replies.push(answer(200, message([{ type: 'text', text: 'A-1 shipped; A-2 was not found.' }], 'end_turn')));

    await model().generate({
      instructions: 'Be brief.',
      messages: [
        { role: 'system', content: 'The user is on the Pro plan.' },
        { role: 'user', content: 'A-1 and A-2?' },
        {
          role: 'assistant',
          content: 'Checking.',
          toolCalls: [
            { id: 'toolu_a', name: 'get_order', arguments: '{"order_id":"A-1"}' },
            { id: 'toolu_b', name: 'get_order', arguments: '{"order_id":"A-2"}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_a', name: 'get_order', content: '{"status":"found","state":"shipped"}' },
        { role: 'tool', toolCallId: 'toolu_b', name: 'get_order', content: '{"status":"error","code":"TOOL_FAILED"}', isError: true },
        { role: 'assistant', content: null, toolCalls: [{ id: 'toolu_c', name: 'get_order', arguments: '{not json' }] },
        { role: 'tool', toolCallId: 'toolu_c', name: 'get_order', content: '{"status":"error","code":"INVALID_JSON"}', isError: true },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [orderTool],
    });

    const body = wire.received[0].body;
    expect(body.system).toBe('Be brief.\n\nThe user is on the Pro plan.');
    expect(body.messages).toEqual([
      { role: 'user', content: 'A-1 and A-2?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_order', input: { order_id: 'A-1' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_order', input: { order_id: 'A-2' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"status":"found","state":"shipped"}' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"status":"error","code":"TOOL_FAILED"}', is_error: true },
        ],
      },
      // A call the model once wrote as broken JSON is replayed with an empty input object.
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_c', name: 'get_order', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_c', content: '{"status":"error","code":"INVALID_JSON"}', is_error: true }],
      },
      { role: 'user', content: 'Thanks' },
    ]);
    expect(body.tools).toEqual([{ name: 'get_order', description: 'Look up an order', input_schema: orderTool.parameters }]);
  });

  it('maps 429 to a retryable ModelError with status 429', async () => {
    wire.replies.push(answer(429, apiError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')));

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.code).toBe('MODEL_FAILED');
    expect(error.provider).toBe('anthropic');
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('rate limit');
  });

  it('maps 500 and 529 (overloaded) to retryable ModelErrors', async () => {
    wire.replies.push(answer(500, apiError('api_error', 'Internal server error')), answer(529, apiError('overloaded_error', 'Overloaded')));

    const first = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));
    const second = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect([first.status, first.retryable]).toEqual([500, true]);
    expect([second.status, second.retryable]).toEqual([529, true]);
  });

  it('maps 400 to a non-retryable ModelError', async () => {
    wire.replies.push(
      answer(400, apiError('invalid_request_error', 'messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks')),
    );

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
  });

  it('maps a malformed JSON body to a ModelError carrying the HTTP status', async () => {
    wire.replies.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"msg_1","type":"message","content":[{"type":"te');
    });

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(200);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not JSON');
  });

  it('maps a JSON body without a content array to a ModelError', async () => {
    wire.replies.push(answer(200, { id: 'msg_1', type: 'message', role: 'assistant' }));

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(200);
    expect(error.message).toContain('content array');
  });

  it('maps the server closing the connection to a retryable ModelError without status', async () => {
    wire.replies.push((req) => req.socket.destroy());

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('connection failed');
  });

  it('maps an aborted request to a non-retryable ModelError', async () => {
    const controller = new AbortController();
    controller.abort();

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [], signal: controller.signal }));

    expect(error.message).toContain('aborted');
    expect(error.retryable).toBe(false);
  });
});

describe('AnthropicModel.stream', () => {
  const ask = { messages: [{ role: 'user' as const, content: 'Where are A-1 and A-2?' }], tools: [orderTool] };
  const twoCalls = message(
    [
      { type: 'text', text: 'Let me look both up.' },
      { type: 'tool_use', id: 'toolu_a', name: 'get_order', input: { order_id: 'A-1' } },
      { type: 'tool_use', id: 'toolu_b', name: 'get_order', input: { order_id: 'A-2' } },
    ],
    'tool_use',
  );

  it('streams text deltas, parallel tool_use blocks assembled from input_json_delta pieces, then finish = what generate returns', async () => {
    wire.replies.push(answer(200, twoCalls), sse(anthropicStream(twoCalls, splitEvery(5)), { headers: { 'request-id': 'req_011CTest' } }));

    const generated = await model({ temperature: 0 }).generate(ask);
    const { parts, error } = await readStream(model({ temperature: 0 }).stream(ask));

    expect(error).toBeUndefined();
    const deltas = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
    expect(deltas).toEqual(['Let m', 'e loo', 'k bot', 'h up.']);
    // Each call as soon as its block stops, before the message ends.
    expect(parts.slice(deltas.length)).toEqual([
      { type: 'tool-call', toolCall: { id: 'toolu_a', name: 'get_order', arguments: '{"order_id":"A-1"}' } },
      { type: 'tool-call', toolCall: { id: 'toolu_b', name: 'get_order', arguments: '{"order_id":"A-2"}' } },
      { type: 'finish', response: generated },
    ]);
    expect(generated.usage).toEqual({ inputTokens: 412, outputTokens: 93 });
    expect(wire.received[1].body).toEqual({ ...wire.received[0].body, stream: true });
  });

  it("finish equals generate's response for any answer, however the events and the bytes are cut (property)", async () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string({ minLength: 1, unit: 'grapheme' }) }),
      fc.record({
        type: fc.constant('tool_use'),
        id: fc.stringMatching(/^toolu_[A-Za-z0-9]{1,20}$/),
        name: fc.constant('get_order'),
        input: fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue()),
      }),
    );
    const usage = fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat() });
    const stop = fc.constantFrom('end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal');
    await fc.assert(
      fc.asyncProperty(
        fc.array(block, { maxLength: 4 }),
        usage,
        stop,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 40 }),
        async (content, u, reason, size, pieces) => {
          const body = message(content, reason, u);
          wire.replies.push(answer(200, body), sse(anthropicStream(body, splitEvery(size)), { pieces }));
          const generated = await model().generate(ask);
          const { parts, error } = await readStream(model().stream(ask));
          expect(error).toBeUndefined();
          expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
          expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('')).toBe(generated.content ?? '');
          expect(parts.flatMap((p) => (p.type === 'tool-call' ? [p.toolCall] : []))).toEqual(generated.toolCalls);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a tool_use block whose input arrives empty is a call with {}', async () => {
    const noInput = message([{ type: 'tool_use', id: 'toolu_n', name: 'get_order', input: {} }], 'tool_use');
    const events = anthropicStream(noInput).filter((e) => !e.data.includes('"partial_json":"{}"'));
    wire.replies.push(sse(events));

    const { parts } = await readStream(model().stream(ask));

    expect(parts[0]).toEqual({ type: 'tool-call', toolCall: { id: 'toolu_n', name: 'get_order', arguments: '{}' } });
  });

  it('a stream cut in the middle (socket destroyed after some events) throws a retryable ModelError after the deltas that arrived', async () => {
    wire.replies.push(sse(anthropicStream(twoCalls, splitEvery(5)), { cutAfter: 5 }));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts).toEqual([
      { type: 'text-delta', delta: 'Let m' },
      { type: 'text-delta', delta: 'e loo' },
    ]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).status).toBeUndefined();
    expect((error as ModelError).message).toContain('connection lost mid-stream');
  });

  it('a stream the server ends cleanly before message_stop is a cut too', async () => {
    const events = anthropicStream(twoCalls);
    wire.replies.push(sse(events.slice(0, -1)));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).message).toContain('message_stop');
  });

  it('an overloaded_error event inside the stream is a retryable ModelError with status 529', async () => {
    const events = anthropicStream(twoCalls, splitEvery(5));
    const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    wire.replies.push(sse([...events.slice(0, 4), { event: 'error', data: JSON.stringify(overloaded) }]));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts).toEqual([{ type: 'text-delta', delta: 'Let m' }]);
    expect(error).toBeInstanceOf(ModelError);
    expect([(error as ModelError).status, (error as ModelError).retryable]).toEqual([529, true]);
    expect((error as ModelError).message).toContain('overloaded_error: Overloaded');
  });

  it('an invalid_request_error event inside the stream is not retryable', async () => {
    const invalid = { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } };
    wire.replies.push(sse([anthropicStream(twoCalls)[0], { event: 'error', data: JSON.stringify(invalid) }]));

    const { error } = await readStream(model().stream(ask));

    expect([(error as ModelError).status, (error as ModelError).retryable]).toEqual([400, false]);
  });

  it.each([
    [429, true, apiError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')],
    [500, true, apiError('api_error', 'Internal server error')],
    [529, true, apiError('overloaded_error', 'Overloaded')],
    [400, false, apiError('invalid_request_error', 'max_tokens: Field required')],
  ])('HTTP %i before the first byte is a ModelError with that status (retryable: %s)', async (status, retryable, body) => {
    wire.replies.push(answer(status, body));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect([(error as ModelError).status, (error as ModelError).retryable]).toEqual([status, retryable]);
  });

  it('the request signal aborts a stream under way: a non-retryable ModelError, and the connection is closed', async () => {
    const held = watchClose(sse(anthropicStream(twoCalls, splitEvery(5)), { holdAfter: 4 }));
    wire.replies.push(held.reply);
    const controller = new AbortController();

    const { parts, error } = await readStream(model().stream({ ...ask, signal: controller.signal }), () => controller.abort());

    expect(parts).toEqual([{ type: 'text-delta', delta: 'Let m' }]);
    expect((error as ModelError).message).toContain('aborted');
    expect((error as ModelError).retryable).toBe(false);
    await held.closed;
  });

  it('a stream that goes quiet longer than timeoutMs is a retryable ModelError, and the connection is closed', async () => {
    const held = watchClose(sse(anthropicStream(twoCalls, splitEvery(5)), { holdAfter: 4 }));
    wire.replies.push(held.reply);

    const { parts, error } = await readStream(model({ timeoutMs: 300 }).stream(ask));

    expect(parts).toEqual([{ type: 'text-delta', delta: 'Let m' }]);
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).message).toContain('no data for 300 ms');
    await held.closed;
  });

  it('a consumer that stops reading early releases the connection', async () => {
    const held = watchClose(sse(anthropicStream(twoCalls), { holdAfter: 5 }));
    wire.replies.push(held.reply);

    for await (const part of model().stream(ask)) {
      expect(part.type).toBe('text-delta');
      break;
    }

    await held.closed;
  });
});
