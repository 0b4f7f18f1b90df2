import { ModelError, ToolwrightConfigError } from '../../errors/errors';
import { withIdleTimeout } from './sdk-errors';

/** One Server-Sent Event: its `event:` name (when it had one) and its `data:` lines joined. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

export interface SseReadOptions {
  provider: string;
  /** The most one event may hold, its field names and comments included. */
  maxEventBytes: number;
  /** Bounds each wait for the next bytes of the body; `onIdle` is called when it runs out. */
  timeoutMs: number | undefined;
  onIdle: () => void;
}

/** One event's size when a model is given no `maxEventBytes`: far above any delta, far below what would hurt. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * The events of a `text/event-stream` body, read in one pass over its bytes. The SDKs' own decoders
 * copy and rescan the whole pending buffer on every network chunk (quadratic in one event's size),
 * so one huge event could hold the process and starve the idle timer; here every byte is looked at
 * once, an event past `maxEventBytes` ends the stream with a non-retryable ModelError before it is
 * held whole, and `timeoutMs` counts the time without bytes, not without events.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array> | null, options: SseReadOptions): AsyncGenerator<SseEvent> {
  if (body === null) throw new ModelError(options.provider, 'the streamed response has no body', undefined, false);
  const reader = body.getReader();
  const chunks: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      return: async () => {
        await reader.cancel().catch(() => undefined); // an early exit closes the connection
        return { done: true, value: undefined };
      },
    }),
  };
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser(options);
  for await (const chunk of withIdleTimeout(chunks, options.timeoutMs, options.onIdle)) {
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  // An event the body ended inside of is dropped, as the SSE standard says.
}

const LINE_BREAK = /[\r\n]/g;

/** The line and field state of one stream; `push` takes text as it arrives and returns the events it completed. */
class SseParser {
  private line = '';
  private size = 0;
  private afterCR = false;
  private name: string | undefined;
  private data: string[] = [];

  constructor(private readonly options: SseReadOptions) {}

  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = this.afterCR && text.startsWith('\n') ? 1 : 0; // a CRLF split across two chunks is one break
    this.afterCR = false;
    LINE_BREAK.lastIndex = start;
    for (let match = LINE_BREAK.exec(text); match !== null; match = LINE_BREAK.exec(text)) {
      const end = match.index;
      this.append(text, start, end);
      start = end + 1;
      if (text[end] === '\r') {
        if (text[start] === '\n') start++;
        else if (start === text.length) this.afterCR = true;
      }
      LINE_BREAK.lastIndex = start;
      const event = this.endLine();
      if (event) events.push(event);
    }
    this.append(text, start, text.length);
    return events;
  }

  private append(text: string, start: number, end: number): void {
    if (end <= start) return;
    const piece = text.slice(start, end);
    this.size += Buffer.byteLength(piece);
    if (this.size > this.options.maxEventBytes) {
      throw new ModelError(
        this.options.provider,
        `a stream event is larger than maxEventBytes (${this.options.maxEventBytes} bytes)`,
        undefined,
        false,
      );
    }
    this.line += piece;
  }

  private endLine(): SseEvent | undefined {
    const line = this.line;
    this.line = '';
    if (line === '') {
      const event = this.data.length > 0 || this.name !== undefined ? { event: this.name, data: this.data.join('\n') } : undefined;
      this.name = undefined;
      this.data = [];
      this.size = 0;
      return event;
    }
    if (line.startsWith(':')) return undefined; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.name = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}

/** `maxEventBytes` as a model's options give it: a positive integer, else the default. */
export function maxEventBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_EVENT_BYTES;
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new ToolwrightConfigError(`maxEventBytes must be a positive integer (bytes), got ${String(value)}.`);
}
