import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line (one JSON-RPC message) read from stdin, in bytes: a longer one is answered, not buffered. */
export const STDIO_MAX_LINE_BYTES = 4 * 1024 * 1024;

type Id = string | number;

/**
 * MCP over stdin/stdout, one JSON-RPC message per line, where every line gets an answer. The SDK's
 * StdioServerTransport drops a line that is not JSON or not a JSON-RPC message (a request with a
 * bad progress token, a batch) with no response, so its client waits forever, and closes the
 * session when a line outgrows its buffer. Here a line that is not JSON is answered -32700, a
 * message of the wrong shape -32600 under its id (or null), a batch message by message, and a line
 * over `maxLineBytes` is skipped to its end and answered -32600; the session stays open.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = STDIO_MAX_LINE_BYTES,
  ) {}

  start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.oninputError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.input.off('data', this.ondata);
    this.input.off('error', this.oninputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly oninputError = (error: Error) => this.onerror?.(error);

  private readonly ondata = (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.hold(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    this.hold(chunk.subarray(start));
  };

  private hold(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxLineBytes) {
      this.skipping = true;
      this.chunks = [];
      this.size = 0;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      return this.reply(null, -32600, `Invalid Request: a message over ${this.maxLineBytes} bytes.`);
    }
    const text = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (text.trim()) this.receive(text);
  }

  private receive(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.reply(null, -32700, 'Parse error: the line is not valid JSON.');
    }
    if (!Array.isArray(value)) return this.deliver(value);
    if (value.length === 0) return this.reply(null, -32600, 'Invalid Request: an empty batch.');
    for (const item of value) this.deliver(item);
  }

  private deliver(value: unknown): void {
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return this.onmessage?.(parsed.data);
    const record = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
    const id = record?.id;
    // A notification (a method, no id) gets no response, even a wrong one (JSON-RPC 2.0).
    if (record && typeof record.method === 'string' && !('id' in record)) return;
    this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, -32600, invalidRequest(parsed.error.issues[0]));
  }

  private reply(id: Id | null, code: number, message: string): void {
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }
}

/** Why a parsed JSON value is not a JSON-RPC 2.0 message MCP takes (for a -32600 answer), or undefined when it is one. */
export function invalidMessage(value: unknown): string | undefined {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? undefined : invalidRequest(parsed.error.issues[0]);
}

function invalidRequest(issue: { path: readonly PropertyKey[]; message: string } | undefined): string {
  const detail = issue?.path.length
    ? `${issue.path.map(String).join('.')}: ${issue.message}`
    : 'not a JSON-RPC 2.0 message (jsonrpc "2.0", a string or number id, a method, params an object; progressToken a string or number)';
  return `Invalid Request: ${detail}`;
}
