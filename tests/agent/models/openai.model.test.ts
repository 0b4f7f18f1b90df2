import { ModelError } from '../../../src/errors/errors';
import { OpenAIChatModel } from '../../../src/agent/models/openai.model';
import type { ToolDefinition } from '../../../src/metadata/json-schema';
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { json, openAIStream, readStream, splitEvery, sse, useWireServer, watchClose } from '../../support/wire-server';

/** A local server speaking the Chat Completions wire format; each test queues its replies. */
const wire = useWireServer('/v1', (req, res) => json(500, { error: { message: 'no reply queued' } })(req, res));

/** The shape api.openai.com returns for a non-streaming chat completion. */
function completion(message: Record<string, unknown>, finishReason: string, usage = { prompt_tokens: 57, completion_tokens: 17 }) {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-4.1-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      ...usage,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_b705f0c291',
  };
}

const refundTool: ToolDefinition = {
  name: 'process_refund',
  description: 'Process a refund for an order',
  parameters: {
    type: 'object',
    properties: {
      order_id: { type: 'string', minLength: 1, description: 'The order ID to refund' },
      amount: { type: 'number', minimum: 0, description: 'Refund amount (optional for partial refunds)' },
      reason: { type: 'string', minLength: 1, description: 'Reason for refund' },
    },
    required: ['order_id', 'reason'],
  },
};

function model(options: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}) {
  return new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0, ...options });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('OpenAIChatModel', () => {
  it('returns a text reply with usage and finish reason, sending instructions as the system message', async () => {
    wire.replies.push(json(200, completion({ content: 'Hello! How can I help?' }, 'stop')));

    const response = await model({ temperature: 0.2, maxTokens: 300 }).generate({
      instructions: 'You are a support agent.',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [],
    });

    expect(response).toEqual({
      content: 'Hello! How can I help?',
      toolCalls: [],
      usage: { inputTokens: 57, outputTokens: 17 },
      finishReason: 'stop',
    });
    expect(wire.received).toHaveLength(1);
    expect(wire.received[0].method).toBe('POST');
    expect(wire.received[0].url).toBe('/v1/chat/completions');
    expect(wire.received[0].headers.authorization).toBe('Bearer test');
    // With a baseURL (a compatible server), maxTokens goes out as the widely supported `max_tokens`.
    expect(wire.received[0].body).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.2,
      max_tokens: 300,
    });
  });

  it('maps one tool call and sends the tools array', async () => {
    wire.replies.push(
      json(
        200,
        completion(
          {
            tool_calls: [
              {
                id: 'call_Qk1',
                type: 'function',
                function: { name: 'process_refund', arguments: '{"order_id":"A-100","reason":"broken"}' },
              },
            ],
          },
          'tool_calls',
        ),
      ),
    );

    const response = await model().generate({
      messages: [{ role: 'user', content: 'Refund A-100, it arrived broken' }],
      tools: [refundTool],
    });

    expect(response.content).toBeNull();
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([{ id: 'call_Qk1', name: 'process_refund', arguments: '{"order_id":"A-100","reason":"broken"}' }]);
    expect(wire.received[0].body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'process_refund', description: 'Process a refund for an order', parameters: refundTool.parameters },
      },
    ]);
  });

  it('maps parallel tool calls in order, with text alongside', async () => {
    wire.replies.push(
      json(
        200,
        completion(
          {
            content: 'Checking both orders.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_order', arguments: '{"order_id":"A-1"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_order', arguments: '{"order_id":"A-2"}' } },
            ],
          },
          'tool_calls',
        ),
      ),
    );

    const response = await model().generate({ messages: [{ role: 'user', content: 'Status of A-1 and A-2?' }], tools: [] });

    expect(response.content).toBe('Checking both orders.');
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_order', arguments: '{"order_id":"A-1"}' },
      { id: 'call_b', name: 'get_order', arguments: '{"order_id":"A-2"}' },
    ]);
  });

  it('sends prior tool calls and results with their ids, and strict tools when asked', async () => {
    wire.replies.push(json(200, completion({ content: 'Refund R-1 issued.' }, 'stop')));

    await model({ strictTools: true }).generate({
      messages: [
        { role: 'user', content: 'Refund A-100 and A-101' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'call_1', name: 'process_refund', arguments: '{"order_id":"A-100","reason":"broken"}' },
            { id: 'call_2', name: 'process_refund', arguments: '{"order_id":"A-101","reason":"late"}' },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', name: 'process_refund', content: '{"status":"success","refund_id":"R-1"}' },
        { role: 'tool', toolCallId: 'call_2', name: 'process_refund', content: '{"status":"error","code":"TOOL_FAILED"}', isError: true },
        { role: 'assistant', content: 'One refund failed.' },
        { role: 'user', content: 'OK, thanks' },
      ],
      tools: [refundTool],
    });

    const body = wire.received[0].body;
    expect(body.messages).toEqual([
      { role: 'user', content: 'Refund A-100 and A-101' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'process_refund', arguments: '{"order_id":"A-100","reason":"broken"}' } },
          { id: 'call_2', type: 'function', function: { name: 'process_refund', arguments: '{"order_id":"A-101","reason":"late"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"status":"success","refund_id":"R-1"}' },
      { role: 'tool', tool_call_id: 'call_2', content: '{"status":"error","code":"TOOL_FAILED"}' },
      { role: 'assistant', content: 'One refund failed.' },
      { role: 'user', content: 'OK, thanks' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'process_refund',
          description: 'Process a refund for an order',
          strict: true,
          parameters: {
            type: 'object',
            properties: {
              order_id: { type: 'string', minLength: 1, description: 'The order ID to refund' },
              amount: { type: ['number', 'null'], minimum: 0, description: 'Refund amount (optional for partial refunds)' },
              reason: { type: 'string', minLength: 1, description: 'Reason for refund' },
            },
            required: ['order_id', 'amount', 'reason'],
            additionalProperties: false,
          },
        },
      },
    ]);
  });

  it('maps strict-mode nulls back to absent for optional arguments', async () => {
    wire.replies.push(
      json(
        200,
        completion(
          {
            tool_calls: [
              {
                id: 'call_s',
                type: 'function',
                function: { name: 'process_refund', arguments: '{"order_id":"A-1","amount":null,"reason":"late"}' },
              },
            ],
          },
          'tool_calls',
        ),
      ),
    );

    const response = await model({ strictTools: true }).generate({
      messages: [{ role: 'user', content: 'Refund A-1' }],
      tools: [refundTool],
    });

    expect(JSON.parse(response.toolCalls[0].arguments)).toEqual({ order_id: 'A-1', reason: 'late' });
  });

  it('passes broken argument JSON through unchanged so the runner can report it', async () => {
    wire.replies.push(
      json(
        200,
        completion(
          { tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'process_refund', arguments: '{"order_id":' } }] },
          'tool_calls',
        ),
      ),
    );

    const response = await model({ strictTools: true }).generate({ messages: [{ role: 'user', content: 'Refund' }], tools: [refundTool] });

    expect(response.toolCalls[0].arguments).toBe('{"order_id":');
  });

  it('sends max_completion_tokens to api.openai.com (no baseURL), through a caller-provided client', async () => {
    const OpenAI = (await import('openai')).default;
    wire.replies.push(json(200, completion({ content: 'ok' }, 'stop')));
    const custom = new OpenAIChatModel({
      model: 'o4-mini',
      maxTokens: 50,
      client: new OpenAI({ apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0 }),
    });

    await custom.generate({ messages: [{ role: 'user', content: 'x' }], tools: [] });

    expect(wire.received[0].body.max_completion_tokens).toBe(50);
    expect(wire.received[0].body.max_tokens).toBeUndefined();
  });

  it('maps 429 to a retryable ModelError with status 429', async () => {
    wire.replies.push(
      json(429, { error: { message: 'Rate limit reached for gpt-4.1', type: 'requests', param: null, code: 'rate_limit_exceeded' } }),
    );

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.code).toBe('MODEL_FAILED');
    expect(error.provider).toBe('openai');
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('Rate limit reached');
  });

  it('maps 500 to a retryable ModelError with status 500', async () => {
    wire.replies.push(
      json(500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
      }),
    );

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
  });

  it('maps 400 to a non-retryable ModelError', async () => {
    wire.replies.push(
      json(400, {
        error: {
          message: "Invalid schema for function 'process_refund'",
          type: 'invalid_request_error',
          param: 'tools[0].function.parameters',
          code: 'invalid_function_parameters',
        },
      }),
    );

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [refundTool] }));

    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
  });

  it('maps a malformed JSON body to a ModelError carrying the HTTP status', async () => {
    wire.replies.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"chatcmpl-1","choices":[{"message":');
    });

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(200);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not JSON');
  });

  it('maps a JSON body without choices to a ModelError', async () => {
    wire.replies.push(json(200, { object: 'chat.completion', choices: [] }));

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBe(200);
    expect(error.message).toContain('choices[0].message');
  });

  it('maps the server closing the connection to a retryable ModelError without status', async () => {
    wire.replies.push((req) => req.socket.destroy());

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }));

    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('connection failed');
  });

  it("uses the SDK's retries when configured", async () => {
    wire.replies.push(json(503, { error: { message: 'overloaded' } }), json(200, completion({ content: 'second try' }, 'stop')));

    const response = await model({ maxRetries: 1 }).generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });

    expect(response.content).toBe('second try');
    expect(wire.received).toHaveLength(2);
  });

  it('maps an aborted request to a non-retryable ModelError', async () => {
    const controller = new AbortController();
    controller.abort();

    const error = await failure(model().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [], signal: controller.signal }));

    expect(error.message).toContain('aborted');
    expect(error.retryable).toBe(false);
  });
});

describe('OpenAIChatModel.stream', () => {
  const ask = { messages: [{ role: 'user' as const, content: 'Refund A-1 and A-2' }], tools: [refundTool] };
  const twoCalls = completion(
    {
      content: 'Refunding both.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'process_refund', arguments: '{"order_id":"A-1","reason":"broken"}' } },
        { id: 'call_b', type: 'function', function: { name: 'process_refund', arguments: '{"order_id":"A-2","reason":"late"}' } },
      ],
    },
    'tool_calls',
  );

  it('streams text deltas, then parallel tool calls assembled from argument pieces, then finish = what generate returns', async () => {
    wire.replies.push(json(200, twoCalls), sse(openAIStream(twoCalls, splitEvery(3))));

    const generated = await model({ temperature: 0 }).generate(ask);
    const { parts, error } = await readStream(model({ temperature: 0 }).stream(ask));

    expect(error).toBeUndefined();
    const deltas = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Refunding both.');
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'process_refund', arguments: '{"order_id":"A-1","reason":"broken"}' } },
      { type: 'tool-call', toolCall: { id: 'call_b', name: 'process_refund', arguments: '{"order_id":"A-2","reason":"late"}' } },
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    // The same request, asking for a stream with usage at its end.
    expect(wire.received[1].body).toEqual({ ...wire.received[0].body, stream: true, stream_options: { include_usage: true } });
  });

  it("finish equals generate's response for any answer, however the chunks and the bytes are cut (property)", async () => {
    const args = fc.record(
      {
        order_id: fc.string({ minLength: 1, unit: 'grapheme' }),
        amount: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
        reason: fc.string({ unit: 'grapheme' }),
      },
      { requiredKeys: ['order_id', 'reason'] },
    );
    const answer = fc.record({
      content: fc.option(fc.string({ minLength: 1, unit: 'grapheme' })),
      calls: fc.array(fc.tuple(fc.stringMatching(/^call_[A-Za-z0-9]{1,12}$/), args), { maxLength: 3 }),
      usage: fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat() }),
    });
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        async (a, size, pieces, strict) => {
          const body = completion(
            {
              content: a.content,
              ...(a.calls.length > 0
                ? {
                    tool_calls: a.calls.map(([id, input]) => ({
                      id,
                      type: 'function',
                      function: { name: 'process_refund', arguments: JSON.stringify(input) },
                    })),
                  }
                : {}),
            },
            a.calls.length > 0 ? 'tool_calls' : 'stop',
            a.usage,
          );
          wire.replies.push(json(200, body), sse(openAIStream(body, splitEvery(size)), { pieces }));
          const generated = await model({ strictTools: strict }).generate(ask);
          const { parts, error } = await readStream(model({ strictTools: strict }).stream(ask));
          expect(error).toBeUndefined();
          expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
          expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('')).toBe(generated.content ?? '');
          expect(parts.flatMap((p) => (p.type === 'tool-call' ? [p.toolCall] : []))).toEqual(generated.toolCalls);
        },
      ),
      { numRuns: 40 },
    );
  });

  it.each([
    ['gives every parallel call index 0', (part: Record<string, unknown>) => ({ ...part, index: 0 })],
    ['sends no index', ({ index: _index, ...part }: Record<string, unknown>) => part],
  ])('keeps parallel tool calls apart when a compatible server (Ollama) %s', async (_case, reindex) => {
    const events = openAIStream(twoCalls, splitEvery(6)).map((event) => {
      if (event.data === '[DONE]') return event;
      const chunk = JSON.parse(event.data);
      for (const choice of chunk.choices) if (choice.delta.tool_calls) choice.delta.tool_calls = choice.delta.tool_calls.map(reindex);
      return { data: JSON.stringify(chunk) };
    });
    expect(events.filter((e) => e.data.includes('"tool_calls"')).length).toBeGreaterThan(4);
    wire.replies.push(json(200, twoCalls), sse(events));

    const generated = await model().generate(ask);
    const { parts } = await readStream(model().stream(ask));

    expect(generated.toolCalls).toHaveLength(2);
    expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
  });

  it('streams a refusal as text, as generate reports it', async () => {
    const refusal = completion({ refusal: "I'm sorry, I can't help with that." }, 'stop');
    wire.replies.push(json(200, refusal), sse(openAIStream(refusal)));

    const generated = await model().generate(ask);
    const { parts } = await readStream(model().stream(ask));

    expect(generated.content).toBe("I'm sorry, I can't help with that.");
    expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
  });

  it('a stream cut in the middle (socket destroyed after some chunks) throws a retryable ModelError after the deltas that arrived', async () => {
    wire.replies.push(sse(openAIStream(twoCalls, splitEvery(3)), { cutAfter: 4 }));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'text-delta', 'text-delta']);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).status).toBeUndefined();
    expect((error as ModelError).message).toContain('connection lost mid-stream');
  });

  it('a stream the server ends cleanly before any finish_reason is a cut too, and no tool call is half-reported', async () => {
    const events = openAIStream(twoCalls, splitEvery(3));
    wire.replies.push(sse(events.slice(0, events.length - 4)));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts.some((p) => p.type === 'tool-call' || p.type === 'finish')).toBe(false);
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).message).toContain('finish_reason');
  });

  it('an error chunk inside the stream is a ModelError with its type’s status', async () => {
    const events = openAIStream(twoCalls);
    const failure = {
      error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
    };
    wire.replies.push(sse([...events.slice(0, 3), { data: JSON.stringify(failure) }]));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts.length).toBe(2);
    expect([(error as ModelError).status, (error as ModelError).retryable]).toEqual([500, true]);
    expect((error as ModelError).message).toContain('The server had an error');
  });

  it('a chunk that is not JSON is a non-retryable ModelError', async () => {
    wire.replies.push(sse([openAIStream(twoCalls)[0], { data: '{"id":"chatcmpl-1","choices":[{' }]));
    const OpenAI = (await import('openai')).default;
    // The SDK logs the chunk it could not parse unless told not to.
    const client = new OpenAI({ apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0, logLevel: 'off' });

    const { error } = await readStream(new OpenAIChatModel({ model: 'gpt-4.1', client }).stream(ask));

    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(false);
    expect((error as ModelError).message).toContain('not JSON');
  });

  it.each([
    [429, true, { error: { message: 'Rate limit reached for gpt-4.1', type: 'requests', param: null, code: 'rate_limit_exceeded' } }],
    [500, true, { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } }],
    [400, false, { error: { message: 'Invalid schema', type: 'invalid_request_error', param: null, code: null } }],
  ])('HTTP %i before the first byte is a ModelError with that status (retryable: %s)', async (status, retryable, body) => {
    wire.replies.push(json(status, body));

    const { parts, error } = await readStream(model().stream(ask));

    expect(parts).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect([(error as ModelError).status, (error as ModelError).retryable]).toEqual([status, retryable]);
  });

  it("retries an HTTP error before the first byte with the SDK's retries", async () => {
    wire.replies.push(json(503, { error: { message: 'overloaded' } }), sse(openAIStream(completion({ content: 'second try' }, 'stop'))));

    const { parts } = await readStream(model({ maxRetries: 1 }).stream(ask));

    expect(parts.at(-1)).toMatchObject({ type: 'finish', response: { content: 'second try' } });
    expect(wire.received).toHaveLength(2);
  });

  it('the request signal aborts a stream under way: a non-retryable ModelError, and the connection is closed', async () => {
    const held = watchClose(sse(openAIStream(twoCalls), { holdAfter: 2 }));
    wire.replies.push(held.reply);
    const controller = new AbortController();

    const { parts, error } = await readStream(model().stream({ ...ask, signal: controller.signal }), () => controller.abort());

    expect(parts).toEqual([{ type: 'text-delta', delta: 'Refu' }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('aborted');
    expect((error as ModelError).retryable).toBe(false);
    await held.closed;
  });

  it('a stream that goes quiet longer than timeoutMs is a retryable ModelError, and the connection is closed', async () => {
    const held = watchClose(sse(openAIStream(twoCalls), { holdAfter: 3 }));
    wire.replies.push(held.reply);

    const { parts, error } = await readStream(model({ timeoutMs: 300 }).stream(ask));

    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'text-delta']);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).message).toContain('no data for 300 ms');
    await held.closed;
  });

  it('time the consumer spends between parts does not count against timeoutMs', async () => {
    wire.replies.push(sse(openAIStream(twoCalls, splitEvery(8))));
    const slow = model({ timeoutMs: 50 }).stream(ask);

    const { parts, error } = await readStream(slow, (part) =>
      part.type === 'text-delta' ? Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150) : undefined,
    );

    expect(error).toBeUndefined();
    expect(parts.at(-1)?.type).toBe('finish');
  });

  it('streams leave no listener on a long-lived request signal', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) wire.replies.push(sse(openAIStream(twoCalls)));

    for (let i = 0; i < 3; i++) expect((await readStream(model().stream({ ...ask, signal: controller.signal }))).error).toBeUndefined();

    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an already aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();

    const { error } = await readStream(model().stream({ ...ask, signal: controller.signal }));

    expect((error as ModelError).message).toContain('aborted');
    expect(wire.received).toHaveLength(0);
  });

  it('a consumer that stops reading early releases the connection', async () => {
    const held = watchClose(sse(openAIStream(twoCalls), { holdAfter: 3 }));
    wire.replies.push(held.reply);

    for await (const part of model().stream(ask)) {
      expect(part.type).toBe('text-delta');
      break;
    }

    await held.closed;
  });
});
