/**
 * The handler's two doors: fetch-style (`Request` → `Response`: Next.js, Hono, Bun, Deno) and
 * node:http (also Express). Each turns its request into an Incoming and the Answer into its response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '../request-body/read-body';
import type { Answer } from './chat-answer';
import type { Incoming } from './chat-incoming';
import type { ChatSettings } from './chat-options';
import { readableResponse, writeNodeResponse } from './response-stream';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-stream';

type Answerer = (incoming: Incoming) => Promise<Answer>;

export function fetchDoor(answer: Answerer, { writeTimeoutMs }: ChatSettings): (request: Request) => Promise<Response> {
  return async (request) => {
    const result = await answer({
      method: request.method,
      url: request.url,
      headers: request.headers,
      read: (limit) => readWebBody(request, limit),
      signal: request.signal,
      request,
    });
    if (!('stream' in result)) return new Response(JSON.stringify(result.json), { status: result.status, headers: result.headers });
    const { stream, abort } = result;
    const body = readableResponse(stream, writeTimeoutMs, abort, abort);
    return new Response(body, { status: 200, headers: { ...UI_MESSAGE_STREAM_HEADERS } });
  };
}

export function nodeDoor(
  answer: Answerer,
  { writeTimeoutMs, report }: ChatSettings,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const closed = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) closed.abort();
    });
    const result = await answer({
      method: req.method,
      url: req.url ?? '/',
      headers: nodeHeaders(req),
      read: (limit) => readNodeBody(req, limit),
      signal: closed.signal,
      incoming: req,
    });
    if (!('stream' in result)) {
      res.writeHead(result.status, result.headers);
      res.end(JSON.stringify(result.json));
      return;
    }
    res.writeHead(200, UI_MESSAGE_STREAM_HEADERS);
    try {
      await writeNodeResponse(res, result.stream, closed.signal, writeTimeoutMs, result.abort);
    } catch (error) {
      // Only ending the run can fail here (its save): the events were all sent.
      report(error);
    } finally {
      res.end();
    }
  };
}

function nodeHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

async function readNodeBody(req: IncomingMessage, limit: number): Promise<string | object> {
  // A framework's JSON body parser (Express, Fastify's raw node req) may have read it already.
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined) {
    if (typeof parsed === 'string') return parsed;
    if (Buffer.isBuffer(parsed)) return parsed.toString('utf8');
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  }
  return readBody(req, limit);
}

async function readWebBody(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
