/**
 * One slow client against the real chat endpoint: a node:net socket that sends its request and
 * never reads, on a real node:http server, with a real Agent whose model streams a 75 MB answer.
 * The server holds the socket's buffers and a few events, never the answer; the run goes at the
 * client's pace, ends when the client goes away, and is given up (CLIENT_TOO_SLOW) past writeTimeoutMs.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Agent, InMemoryStore, RunAbortedError, type Model } from 'toolwright';
import { type ModelResponse, type ModelStreamPart } from '../../src/agent/models';
import { type RunEndEvent } from '../../src/agent';
import { STREAM_HIGH_WATER } from '../../src/agent/event-stream';
import { ClientTooSlowError, createChatHandler, type ChatHandlerOptions } from '../../src/ai-sdk-ui';

const PART = 'x'.repeat(64 * 1024);
const PARTS = 1200; // 75 MiB

/** Streams PARTS deltas of 64 KiB, counting each one the run asked for. */
class CountingModel implements Model {
  readonly name = 'counting';
  pulled = 0;
  closed = false;
  constructor(private readonly parts = PARTS) {}
  generate(): Promise<ModelResponse> {
    return Promise.reject(new Error('unused: the run streams'));
  }
  async *stream(): AsyncGenerator<ModelStreamPart> {
    try {
      for (let i = 0; i < this.parts; i++) {
        this.pulled++;
        yield { type: 'text-delta', delta: PART };
      }
      const content = PART.repeat(this.parts);
      yield { type: 'finish', response: { content, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' } };
    } finally {
      this.closed = true;
    }
  }
}

interface Served {
  port: number;
  server: Server;
  /** SSE chunks the handler wrote to the response so far. */
  written: () => number;
  response: () => ServerResponse | undefined;
}

async function serve(model: Model, onRunEnd: (event: RunEndEvent) => void, options: Partial<ChatHandlerOptions> = {}): Promise<Served> {
  const agent = new Agent({ name: 'desk', model, tools: [], store: new InMemoryStore(), hooks: { onRunEnd } });
  const handler = createChatHandler(agent, { userId: () => 'u-1', ...options });
  let written = 0;
  let response: ServerResponse | undefined;
  const server = createServer((req, res) => {
    response = res;
    const write = res.write.bind(res) as (chunk: string) => boolean;
    res.write = ((chunk: string) => {
      written++;
      return write(chunk);
    }) as typeof res.write;
    void handler.node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, written: () => written, response: () => response };
}

const BODY = JSON.stringify({
  id: 'chat-slow',
  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'tell me everything' }] }],
});

/** Connects, sends the chat request, and never reads (no 'data' listener: the socket stays paused). */
async function silentClient(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY}`,
  );
  return socket;
}

/** Until nothing moves for 50 event-loop turns (I/O included): a server that buffers would have pulled the whole answer by then. */
async function untilStill(read: () => string): Promise<void> {
  let last = read();
  for (let still = 0; still < 50;) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = read();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

function runEnded(): { ended: Promise<RunEndEvent>; onRunEnd: (event: RunEndEvent) => void } {
  let onRunEnd!: (event: RunEndEvent) => void;
  const ended = new Promise<RunEndEvent>((resolve) => (onRunEnd = resolve));
  return { ended, onRunEnd };
}

let servers: Server[] = [];
let sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
  sockets = [];
});

describe('chat endpoint and a client that never reads its socket', () => {
  it('holds a few events beyond what the socket took, not the 75 MB answer; the client leaving aborts the run', async () => {
    const model = new CountingModel();
    const { ended, onRunEnd } = runEnded();
    const served = await serve(model, onRunEnd);
    servers.push(served.server);
    const client = await silentClient(served.port);
    sockets.push(client);

    await untilStill(() => `${model.pulled}/${served.written()}`);
    expect(served.written()).toBeGreaterThan(0);
    // Parts the server pulled and has not handed to the socket: the run's queue and one in flight.
    expect(model.pulled - served.written()).toBeLessThanOrEqual(STREAM_HIGH_WATER + 4);
    expect(model.pulled).toBeLessThan(PARTS);
    // In the process, beside the kernel's socket buffers: at most one chunk past the response's high-water mark.
    const res = served.response()!;
    expect(res.writableLength).toBeLessThanOrEqual(res.writableHighWaterMark + PART.length + 200);

    const pulled = model.pulled;
    client.destroy();
    const end = await ended;
    expect(end.status).toBe('failed');
    expect(end.error).toBeInstanceOf(RunAbortedError);
    expect(model.closed).toBe(true);
    expect(model.pulled).toBeLessThanOrEqual(pulled + 1);
  });

  it('past writeTimeoutMs the response is given up: the run is cancelled with CLIENT_TOO_SLOW and the socket closed', async () => {
    const model = new CountingModel();
    const { ended, onRunEnd } = runEnded();
    const served = await serve(model, onRunEnd, { writeTimeoutMs: 20 });
    servers.push(served.server);
    sockets.push(await silentClient(served.port));

    const end = await ended;
    expect(end.status).toBe('failed');
    expect(end.error).toBeInstanceOf(RunAbortedError);
    const cause = (end.error as RunAbortedError).cause;
    expect(cause).toBeInstanceOf(ClientTooSlowError);
    expect(cause).toMatchObject({ code: 'CLIENT_TOO_SLOW', timeoutMs: 20 });
    expect(model.closed).toBe(true);
    expect(model.pulled).toBeLessThan(PARTS);
    expect(served.response()!.destroyed).toBe(true);
  });

  it('a client that reads late gets the whole answer, paced: nothing is lost to the bound', async () => {
    const parts = 200; // 12.5 MiB
    const model = new CountingModel(parts);
    const { ended, onRunEnd } = runEnded();
    const served = await serve(model, onRunEnd);
    servers.push(served.server);
    const client = await silentClient(served.port);
    sockets.push(client);
    await untilStill(() => `${model.pulled}/${served.written()}`);
    expect(model.pulled).toBeLessThan(parts);

    const chunks: string[] = [];
    let tail = '';
    const complete = new Promise<void>((resolve) =>
      client.on('data', (chunk: string) => {
        chunks.push(chunk);
        tail = (tail + chunk).slice(-64); // the last SSE event may arrive split
        if (tail.includes('data: [DONE]')) resolve();
      }),
    );
    client.setEncoding('utf8');
    const end = await ended;
    expect(end.status).toBe('completed');
    await complete;
    const text = chunks.join('');
    const deltas = [...text.matchAll(/"type":"text-delta","id":"[^"]+","delta":"(x+)"/g)].map((m) => m[1].length);
    expect(deltas).toHaveLength(parts);
    expect(deltas.every((n) => n === PART.length)).toBe(true);
  });
});

describe('chat endpoint, fetch door, a body read once and then left', () => {
  it('pulls the run as the body is read, and past writeTimeoutMs errors the body with CLIENT_TOO_SLOW and cancels the run', async () => {
    const model = new CountingModel();
    const { ended, onRunEnd } = runEnded();
    const agent = new Agent({ name: 'desk', model, tools: [], store: new InMemoryStore(), hooks: { onRunEnd } });
    const handler = createChatHandler(agent, { userId: () => 'u-1', writeTimeoutMs: 20 });
    const response = await handler.fetch(
      new Request('http://app.test/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY }),
    );
    const reader = response.body!.getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(model.pulled).toBeLessThanOrEqual(5 + STREAM_HIGH_WATER + 4);

    const end = await ended;
    expect((end.error as RunAbortedError).cause).toBeInstanceOf(ClientTooSlowError);
    expect(model.closed).toBe(true);
    await expect(reader.read()).rejects.toBeInstanceOf(ClientTooSlowError);
  });
});
