import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake provider received, body parsed. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface WireServer {
  /** `http://127.0.0.1:<port>` plus the path prefix. */
  baseURL: string;
  /** What arrived, in order; emptied before each test. */
  received: Received[];
  /** What to answer, in order; each test queues its own. */
  replies: Reply[];
}

/**
 * A loopback HTTP server standing in for a model provider, speaking its real wire format as the
 * test queues it. Registers the jest hooks that start it, reset it before each test and stop it.
 */
export function useWireServer(prefix: string, noReply: Reply): WireServer {
  const wire: WireServer = { baseURL: '', received: [], replies: [] };
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        wire.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
        (wire.replies.shift() ?? noReply)(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    wire.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    wire.received = [];
    wire.replies = [];
  });
  return wire;
}

/** A JSON reply with the given status (and extra headers). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** One Server-Sent Event as a provider writes it: `event: <name>` (when named), then `data: <data>`. */
export interface SseEvent {
  event?: string;
  data: string;
}

export interface SseOptions {
  /** Bytes per socket write (the SDKs must reassemble events split anywhere); default: one write per event. */
  pieces?: number;
  /** Destroy the socket once this many events were flushed: the stream cut in the middle. */
  cutAfter?: number;
  /** Stop writing after this many events and keep the connection open, until the client goes away. */
  holdAfter?: number;
  headers?: Record<string, string>;
}

/** The exact text of events on the wire. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((e) => `${e.event !== undefined ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');
}

/** A `text/event-stream` reply (status 200), written the way the options say. */
export function sse(events: readonly SseEvent[], options: SseOptions = {}): Reply {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...options.headers });
    res.flushHeaders();
    const count = Math.min(events.length, options.cutAfter ?? Infinity, options.holdAfter ?? Infinity);
    // Pieces are cut in bytes, as a network would: anywhere, a UTF-8 sequence included.
    const bytes = Buffer.from(sseText(events.slice(0, count)));
    const size = options.pieces ?? 0;
    const writes =
      size > 0
        ? Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
        : events.slice(0, count).map((e) => sseText([e]));
    void (async () => {
      // Each write flushed before the next, so a cut really comes after the events before it arrived.
      for (const piece of writes)
        await new Promise<void>((resolve, reject) => res.write(piece, (error) => (error ? reject(error) : resolve())));
      if (options.cutAfter !== undefined) req.socket.destroy();
      else if (options.holdAfter === undefined) res.end();
    })().catch(() => undefined); // the client went away first
  };
}

type Json = any;

/** Splits a string into the pieces a provider would stream it in (here: every `size` characters, `size` ≥ 1). */
export function splitEvery(size: number): (text: string) => string[] {
  return (text) => text.match(new RegExp(`[^]{1,${Math.max(1, size)}}`, 'gu')) ?? [];
}

/**
 * A non-streaming `chat.completion` body as OpenAI streams the same answer (`stream: true`,
 * `stream_options.include_usage`): `chat.completion.chunk`s — role first, content pieces, each tool
 * call opened with its id and name then its arguments in pieces, the finish_reason chunk, a usage
 * chunk with no choices, then `data: [DONE]`.
 */
export function openAIStream(completion: Json, split: (text: string) => string[] = splitEvery(4)): SseEvent[] {
  const { choices, usage, object: _object, ...meta } = completion;
  const [choice] = choices;
  const message = choice.message;
  const chunk = (delta: Json, finishReason: string | null = null) => ({
    ...meta,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
    obfuscation: 'Qe4u',
  });
  const chunks: Json[] = [];
  const calls: Json[] = message.tool_calls ?? [];
  if (message.content !== null) {
    chunks.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of split(message.content)) chunks.push(chunk({ content: piece }));
  } else if (message.refusal !== null && message.refusal !== undefined) {
    chunks.push(chunk({ role: 'assistant', content: null, refusal: '' }));
    for (const piece of split(message.refusal)) chunks.push(chunk({ refusal: piece }));
  }
  calls.forEach((call, index) => {
    const open = { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } };
    chunks.push(
      chunk(chunks.length === 0 ? { role: 'assistant', content: null, tool_calls: [open], refusal: null } : { tool_calls: [open] }),
    );
    for (const piece of split(call.function.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, choice.finish_reason));
  chunks.push({ ...meta, object: 'chat.completion.chunk', choices: [], usage, obfuscation: 'x1' });
  return [...chunks.map((c) => ({ data: JSON.stringify(c) })), { data: '[DONE]' }];
}

/**
 * A non-streaming Messages API `message` as Anthropic streams the same answer (`stream: true`):
 * message_start (empty content), a ping, per block content_block_start / content_block_delta
 * (`text_delta`, or `input_json_delta` pieces of the input's JSON, the first one empty) /
 * content_block_stop, message_delta (stop_reason, cumulative output tokens), message_stop.
 */
export function anthropicStream(message: Json, split: (text: string) => string[] = splitEvery(4)): SseEvent[] {
  const event = (data: Json): SseEvent => ({ event: data.type, data: JSON.stringify(data) });
  const { content, stop_reason, stop_sequence, usage } = message;
  const events: SseEvent[] = [
    event({
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
    event({ type: 'ping' }),
  ];
  (content as Json[]).forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const text of split(block.text)) events.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    } else {
      events.push(
        event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }),
      );
      for (const partial_json of ['', ...split(JSON.stringify(block.input))]) {
        events.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }));
      }
    }
    events.push(event({ type: 'content_block_stop', index }));
  });
  events.push(
    event({ type: 'message_delta', delta: { stop_reason, stop_sequence }, usage: { output_tokens: usage.output_tokens } }),
    event({ type: 'message_stop' }),
  );
  return events;
}

/** Everything a model stream yielded, and what it threw (if it did), read to the end. */
export async function readStream<T>(stream: AsyncIterable<T>, onPart?: (part: T) => void): Promise<{ parts: T[]; error?: unknown }> {
  const parts: T[] = [];
  try {
    for await (const part of stream) {
      parts.push(part);
      onPart?.(part);
    }
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

/** A reply that records when the client's connection to it closed (the stream released). */
export function watchClose(reply: Reply): { reply: Reply; closed: Promise<void> } {
  let closed!: () => void;
  const promise = new Promise<void>((resolve) => (closed = resolve));
  return {
    reply: (req, res) => {
      res.on('close', () => closed());
      reply(req, res);
    },
    closed: promise,
  };
}
