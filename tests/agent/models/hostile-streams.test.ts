/**
 * A hostile provider at the stream: events of the wrong JSON types, block indexes that are no
 * positions (huge, negative, `__proto__`, `length`), and one event of megabytes. Through the real
 * SDK clients against a loopback server writing each wire format, every such stream ends with a
 * non-retryable ModelError (MODEL_FAILED) saying what was wrong — never a TypeError, never a
 * retryable "connection lost", never "no data" while bytes arrive — and the good streams still work.
 */
import { ModelError, ToolwrightConfigError } from '../../../src/errors/errors';
import { AnthropicModel } from '../../../src/agent/models/anthropic.model';
import { OpenAIChatModel } from '../../../src/agent/models/openai.model';
import type { ModelStreamPart } from '../../../src/agent/model';
import {
  anthropicStream,
  openAIStream,
  readStream,
  sse,
  sseText,
  useWireServer,
  type Reply,
  type SseEvent,
} from '../../support/wire-server';

const anthropicWire = useWireServer('', (_req, res) => res.writeHead(500).end());
const openaiWire = useWireServer('/v1', (_req, res) => res.writeHead(500).end());

const ask = { messages: [{ role: 'user' as const, content: 'Hi' }], tools: [] };

const claude = (options: { timeoutMs?: number; maxEventBytes?: number } = {}) =>
  new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: anthropicWire.baseURL, maxRetries: 0, ...options });
const gpt = (options: { timeoutMs?: number; maxEventBytes?: number } = {}) =>
  new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: openaiWire.baseURL, maxRetries: 0, ...options });

const hello = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'Hello there' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 3, output_tokens: 2 },
};
const helloChunks = openAIStream({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

/** The Anthropic stream of `hello` with the event at `at` (by its type and place) replaced by `data`. */
function anthropicWith(type: string, data: unknown): SseEvent[] {
  const events = anthropicStream(hello);
  const at = events.findIndex((e) => e.event === type);
  return events.map((e, i) => (i === at ? { event: type, data: JSON.stringify(data) } : e));
}

/** The OpenAI chunks of `hello` with one more chunk, `data`, after the role chunk. */
function openaiWith(data: unknown): SseEvent[] {
  return [helloChunks[0], { data: JSON.stringify(data) }, ...helloChunks.slice(1)];
}

/** What the stream threw, checked to be the non-retryable ModelError a broken server gets. */
async function refused(stream: AsyncIterable<ModelStreamPart>): Promise<ModelError> {
  const { parts, error } = await readStream(stream);
  expect(parts.some((p) => p.type === 'finish')).toBe(false);
  expect(error).toBeInstanceOf(ModelError);
  const failure = error as ModelError;
  expect([failure.code, failure.retryable, failure.status]).toEqual(['MODEL_FAILED', false, undefined]);
  return failure;
}

const chunk = (choice: unknown) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [choice] });

describe('Anthropic stream events of the wrong shape', () => {
  it.each<[string, SseEvent[]]>([
    [
      'a block index of 100000000',
      anthropicWith('content_block_start', { type: 'content_block_start', index: 1e8, content_block: { type: 'text', text: '' } }),
    ],
    [
      'a block index "__proto__"',
      anthropicWith('content_block_start', { type: 'content_block_start', index: '__proto__', content_block: { type: 'text', text: '' } }),
    ],
    [
      'a block index "length"',
      anthropicWith('content_block_start', { type: 'content_block_start', index: 'length', content_block: { type: 'text', text: '' } }),
    ],
    [
      'a negative block index',
      anthropicWith('content_block_start', { type: 'content_block_start', index: -1, content_block: { type: 'text', text: '' } }),
    ],
    [
      'a fractional block index',
      anthropicWith('content_block_start', { type: 'content_block_start', index: 0.5, content_block: { type: 'text', text: '' } }),
    ],
    [
      'a delta index "__proto__"',
      anthropicWith('content_block_delta', { type: 'content_block_delta', index: '__proto__', delta: { type: 'text_delta', text: 'x' } }),
    ],
    ['a stop index "length"', anthropicWith('content_block_stop', { type: 'content_block_stop', index: 'length' })],
    ['a content_block that is null', anthropicWith('content_block_start', { type: 'content_block_start', index: 0, content_block: null })],
    [
      'a text delta that is a number',
      anthropicWith('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 5 } }),
    ],
    ['a delta that is a string', anthropicWith('content_block_delta', { type: 'content_block_delta', index: 0, delta: 'text' })],
    [
      'usage counts that are text',
      anthropicWith('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 'many' } }),
    ],
    ['a stop_reason that is an object', anthropicWith('message_delta', { type: 'message_delta', delta: { stop_reason: {} }, usage: {} })],
    ['a message_start without a message', anthropicWith('message_start', { type: 'message_start', message: 7 })],
    ['an event that is a number', anthropicWith('message_start', 42)],
    ['an event that is null', anthropicWith('message_start', null)],
  ])('%s is a non-retryable ModelError naming the wrong shape', async (_label, events) => {
    anthropicWire.replies.push(sse(events));

    const error = await refused(claude().stream(ask));

    expect(error.message).toContain('wrong shape');
  });

  it('the well-formed stream beside them still streams', async () => {
    anthropicWire.replies.push(sse(anthropicStream(hello)));

    const { parts, error } = await readStream(claude().stream(ask));

    expect(error).toBeUndefined();
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      response: { content: 'Hello there', usage: { inputTokens: 3, outputTokens: 2 } },
    });
  });
});

describe('OpenAI stream chunks of the wrong JSON types', () => {
  it.each<[string, unknown]>([
    ['a chunk that is null', null],
    ['a chunk that is a number', 5],
    ['a chunk that is an array', [chunk({ index: 0, delta: { content: 'x' } })]],
    ['choices that is text', { choices: 'x' }],
    ['a choice that is a number', { choices: [5] }],
    ['a delta that is a number', chunk({ index: 0, delta: 5 })],
    ['content that is a number', chunk({ index: 0, delta: { content: 5 } })],
    ['refusal that is an object', chunk({ index: 0, delta: { refusal: {} } })],
    ['tool_calls that is an object', chunk({ index: 0, delta: { tool_calls: { index: 0 } } })],
    ['a tool call that is text', chunk({ index: 0, delta: { tool_calls: ['call'] } })],
    [
      'a tool call index "__proto__"',
      chunk({ index: 0, delta: { tool_calls: [{ index: '__proto__', id: 'c', function: { name: 'f' } }] } }),
    ],
    ['a tool call index of 100000000', chunk({ index: 0, delta: { tool_calls: [{ index: 1e8, id: 'c', function: { name: 'f' } }] } })],
    ['a function that is a number', chunk({ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: 5 }] } })],
    ['a finish_reason that is a number', chunk({ index: 0, delta: {}, finish_reason: 1 })],
    ['usage that is text', { choices: [], usage: 'lots' }],
    ['usage counts that are text', { choices: [], usage: { prompt_tokens: 'a', completion_tokens: 1 } }],
  ])('%s is a non-retryable ModelError naming the wrong shape', async (_label, data) => {
    openaiWire.replies.push(sse(openaiWith(data)));

    const error = await refused(gpt().stream(ask));

    expect(error.message).toContain('wrong shape');
  });

  it('the well-formed stream beside them still streams', async () => {
    openaiWire.replies.push(sse(helloChunks));

    const { parts, error } = await readStream(gpt().stream(ask));

    expect(error).toBeUndefined();
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      response: { content: 'Hello there', usage: { inputTokens: 3, outputTokens: 2 } },
    });
  });
});

describe('one event larger than maxEventBytes', () => {
  const huge = 'x'.repeat(10 * 1024 * 1024);
  const hugeAnthropic = anthropicWith('content_block_delta', {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: huge },
  });
  const hugeOpenAI = openaiWith(chunk({ index: 0, delta: { content: huge } }));

  it.each<[string, () => AsyncIterable<ModelStreamPart>, () => void]>([
    [
      'Anthropic',
      () => claude({ timeoutMs: 5_000 }).stream(ask),
      () => anthropicWire.replies.push(sse(hugeAnthropic, { pieces: 64 * 1024 })),
    ],
    ['OpenAI', () => gpt({ timeoutMs: 5_000 }).stream(ask), () => openaiWire.replies.push(sse(hugeOpenAI, { pieces: 64 * 1024 }))],
  ])(
    '%s: a 10 MB delta arriving in pieces, with timeoutMs, is refused by its size (the 4 MiB default), not reported as "no data"',
    async (_label, stream, queue) => {
      queue();

      const error = await refused(stream());

      expect(error.message).toContain('larger than maxEventBytes (4194304 bytes)');
    },
  );

  it.each<[string, (limit: number) => AsyncIterable<ModelStreamPart>, (events: SseEvent[]) => void, SseEvent[]]>([
    [
      'Anthropic',
      (limit) => claude({ maxEventBytes: limit }).stream(ask),
      (e) => anthropicWire.replies.push(sse(e, { pieces: 7 })),
      anthropicWith('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: 'y'.repeat(3000) },
      }),
    ],
    [
      'OpenAI',
      (limit) => gpt({ maxEventBytes: limit }).stream(ask),
      (e) => openaiWire.replies.push(sse(e, { pieces: 7 })),
      openaiWith(chunk({ index: 0, delta: { content: 'y'.repeat(3000) } })),
    ],
  ])('%s: maxEventBytes is the app’s to set; an event under it streams', async (_label, stream, queue, events) => {
    queue(events);
    const { error } = await readStream(stream(4000));
    expect(error).toBeUndefined();

    queue(events);
    expect((await refused(stream(2000))).message).toContain('larger than maxEventBytes (2000 bytes)');
  });
});

it.each([0, -1, 1.5, Number.NaN])('maxEventBytes %p is refused when the model is made', (limit) => {
  expect(() => claude({ maxEventBytes: limit })).toThrow(ToolwrightConfigError);
  expect(() => gpt({ maxEventBytes: limit })).toThrow(ToolwrightConfigError);
});

describe('the SSE framing the SDKs accept', () => {
  /** The same events with CRLF line ends, written one byte at a time (a CRLF split across writes). */
  function crlf(events: SseEvent[]): Reply {
    return (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const bytes = Buffer.from(`: keep-alive\r\n\r\n${sseText(events).replace(/\n/g, '\r\n')}`);
      void (async () => {
        for (let i = 0; i < bytes.length; i++) await new Promise<void>((resolve) => res.write(bytes.subarray(i, i + 1), () => resolve()));
        res.end();
      })();
    };
  }

  it('CRLF line ends, split anywhere, and comments: the same answer', async () => {
    anthropicWire.replies.push(crlf(anthropicStream(hello)));
    openaiWire.replies.push(crlf(helloChunks));

    const [anthropic, openai] = [await readStream(claude().stream(ask)), await readStream(gpt().stream(ask))];

    for (const { parts, error } of [anthropic, openai]) {
      expect(error).toBeUndefined();
      expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('')).toBe('Hello there');
      expect(parts.at(-1)).toMatchObject({ type: 'finish', response: { content: 'Hello there' } });
    }
  });
});
