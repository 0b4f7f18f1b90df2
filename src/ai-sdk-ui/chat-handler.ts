/**
 * The HTTP endpoint a `useChat` front end posts to (the AI SDK's `DefaultChatTransport`): reads
 * the request, runs (or resumes) the agent, answers with the run as a UI message stream; a GET
 * with the chat id answers the stored chat as UI messages, for a page that was reloaded.
 * One core, two doors: fetch-style (`Request` → `Response`: Next.js, Hono, Bun, Deno) and node:http
 * (also Express, whose `req.body` is used when a JSON body parser ran first).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalDecision, Approver, ResumeOptions, RunOptions, RunResult } from '../agent/agent';
import type { StoredConversation } from '../agent/run-state';
import type { AgentEvent } from '../agent/events';
import { ToolwrightConfigError, ToolwrightError, type ErrorCode } from '../errors/errors';
import {
  UI_MESSAGE_STREAM_HEADERS,
  approvalIdOf,
  defaultErrorText,
  runResultEvents,
  toServerSentEvents,
  toUIMessageStream,
} from './ui-message-stream';
import { BodyTooLarge, readBody } from '../request-body/read-body';
import { readableResponse, writeNodeResponse } from './response-stream';
import { toUIMessages, type RestoredUIMessage } from './ui-messages';

/** What the handler needs of an Agent: `stream`, and a streaming or plain resume for approvals. */
export interface ChatAgent {
  stream(input: string, options: RunOptions): AsyncIterable<AgentEvent>;
  resume(options: ResumeOptions, decisions: Readonly<Record<string, ApprovalDecision>>): Promise<RunResult>;
  /** When the agent has it, approvals stream too; otherwise `resume`'s result is sent when it is done. */
  streamResume?(options: ResumeOptions, decisions: Readonly<Record<string, ApprovalDecision>>): AsyncIterable<AgentEvent>;
  /** The stored chat, for `GET ?id=` (an Agent has it); without it the endpoint takes POST only. */
  loadConversation?(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation>;
}

/** A part of a UIMessage as the client sends it (only what the handler reads is typed). */
export interface ChatMessagePart {
  type: string;
  [key: string]: unknown;
}

export interface ChatMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: ChatMessagePart[];
}

/** The body `DefaultChatTransport` posts, plus whatever the app added (`body` option). */
export interface ChatRequestBody {
  /** The chat's id (the client's, not trusted for anything but naming the session). */
  id?: string;
  messages: ChatMessage[];
  trigger?: 'submit-message' | 'regenerate-message';
  messageId?: string;
  [key: string]: unknown;
}

/** What the resolvers see of a request. */
export interface ChatRequestInfo {
  headers: Headers;
  /** A GET (restoring a chat) has no body: `{ id: <the ?id= chat id>, messages: [] }`. */
  body: ChatRequestBody;
  /** 'POST' (a message or an approval) or 'GET' (restoring the chat's messages). */
  method: 'POST' | 'GET';
  /** The fetch-style handler's request. */
  request?: Request;
  /** The node:http handler's request (an app's auth middleware may have put its user on it). */
  incoming?: IncomingMessage;
}

type Resolver<T> = (info: ChatRequestInfo) => T | Promise<T>;

export interface ChatHandlerOptions {
  /**
   * The signed-in user, from the request (a verified cookie, token or the app's middleware); never
   * from the body. Return undefined for an anonymous chat; throw `ChatRequestError(401, …)` to refuse (code `UNAUTHORIZED`).
   * Sessions remember their user: another user's chat id answers 403.
   */
  userId: Resolver<string | undefined>;
  /** The session of this chat. Default: the chat id `useChat` sends (`body.id`). */
  sessionId?: Resolver<string>;
  tenantId?: Resolver<string | undefined>;
  /**
   * Who decides an approval sent from the chat, recorded with the decision. Default: the user.
   * Return null to refuse approvals from this request (403): for tools a reviewer, not the user, approves.
   */
  approver?: (
    info: ChatRequestInfo,
    userId: string | undefined,
  ) => string | Approver | null | undefined | Promise<string | Approver | null | undefined>;
  /** Largest accepted request body (useChat sends the whole conversation). Default 4 MiB. */
  maxBodyBytes?: number;
  /** The `errorText` the browser gets for a run that failed. Default: the error code only. */
  errorText?: (error: unknown) => string;
  /** Failures that are not the client's (answered 500, or a run that failed mid-stream). Default: `process.emitWarning`. */
  onError?: (error: unknown) => void;
  /** Send tool progress as `data-tool-progress` parts. Default true. */
  progress?: boolean;
  /**
   * How long a response waits for a client that stopped reading (a chunk it has not taken: node's
   * `write()` returned false and no 'drain' came, or the fetch body was not pulled). Past it the
   * response is given up (node: the socket is closed; fetch: the body errors) and the run is
   * cancelled with a `ClientTooSlowError` (`CLIENT_TOO_SLOW`) as its `RunAbortedError`'s cause.
   * The run is paced by the client meanwhile: one that never reads holds a few events, not the
   * answer. Time the run itself takes (a slow tool) does not count. Default 60 s.
   */
  writeTimeoutMs?: number;
}

/**
 * A request the endpoint refuses: answered with `status` and `{ error: { code, message } }`. The code
 * follows the status unless given: 401 `UNAUTHORIZED`, 403 `FORBIDDEN`, any other `INVALID_REQUEST`.
 */
export class ChatRequestError extends ToolwrightError {
  constructor(
    readonly status: number,
    message: string,
    code: ErrorCode = status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : 'INVALID_REQUEST',
  ) {
    super(code, message);
  }
}

export interface ChatHandler {
  /** Fetch-style: `export const POST = chat.fetch` (Next.js), `(c) => chat.fetch(c.req.raw)` (Hono). */
  fetch(request: Request): Promise<Response>;
  /** node:http: `http.createServer(chat.node)`, `app.post('/api/chat', chat.node)` (Express). */
  node(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_WRITE_TIMEOUT = 60_000;
/** setTimeout's largest delay: a longer one fires at once. */
const MAX_TIMEOUT = 2 ** 31 - 1;

/** Agent errors a client can cause, answered before the stream starts. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_ID: 400,
  SESSION_FORBIDDEN: 403,
  RUN_PAUSED: 409,
  RUN_CLAIMED: 409,
  RUN_NOT_FOUND: 409,
  APPROVAL_ALREADY_DECIDED: 409,
  INVALID_APPROVAL: 409,
  STORE_UNAVAILABLE: 503,
};

/** What a client is told to wait before trying again while the store is down (Retry-After, seconds). */
const STORE_RETRY_AFTER_SECONDS = 5;

/** What one request gets: an error answer (or a restored chat), or the stream. */
type Answer =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { stream: AsyncGenerator<string>; abort: (reason?: unknown) => void };

interface Incoming {
  method: string | undefined;
  headers: Headers;
  /** The request's path and query (node) or whole URL (fetch). */
  url: string;
  /** Reads the body, at most `limit` bytes (throws BodyTooLarge past it); an object when a framework parsed it already. */
  read(limit: number): Promise<string | object>;
  signal?: AbortSignal;
  request?: Request;
  incoming?: IncomingMessage;
}

/**
 * The endpoint of a `useChat` front end. A user message runs `agent.stream(text)`; an assistant
 * message carrying approval responses (`addToolApprovalResponse` + `sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithApprovalResponses`) decides the paused run's calls and
 * continues that message. The session's history lives in the agent's store: of the messages the
 * client sends only the last one is read.
 */
export function createChatHandler(agent: ChatAgent, options: ChatHandlerOptions): ChatHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new ToolwrightConfigError(`createChatHandler: maxBodyBytes must be a positive integer, got ${String(options.maxBodyBytes)}.`);
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT;
  if (!Number.isSafeInteger(writeTimeoutMs) || writeTimeoutMs <= 0 || writeTimeoutMs > MAX_TIMEOUT)
    throw new ToolwrightConfigError(
      `createChatHandler: writeTimeoutMs must be a positive integer of at most ${MAX_TIMEOUT} ms, got ${String(options.writeTimeoutMs)}.`,
    );
  if (typeof options.userId !== 'function')
    throw new ToolwrightConfigError(
      'createChatHandler: pass userId, a function reading the signed-in user from the request (or () => undefined for anonymous chats).',
    );
  const report =
    options.onError ??
    ((error: unknown) =>
      process.emitWarning(`toolwright chat handler: ${error instanceof Error ? error.message : String(error)}`, 'ToolwrightChatWarning'));

  async function answer(incoming: Incoming): Promise<Answer> {
    try {
      return incoming.method === 'GET' && agent.loadConversation ? await restore(incoming) : await start(incoming);
    } catch (error) {
      if (error instanceof ChatRequestError) return refusal(error.status, error.code, error.message, extraHeaders(error.status));
      if (error instanceof ToolwrightError && error.code === 'RUN_PAUSED')
        // Read by the person at the page, who answers approvals there, not by a developer (see docs/ecosystem.md).
        return refusal(409, error.code, PAUSED_MESSAGE);
      if (error instanceof ToolwrightError && error.code === 'STORE_UNAVAILABLE')
        return refusal(503, error.code, STORE_UNAVAILABLE_MESSAGE, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
      if (error instanceof ToolwrightError && STATUS[error.code] !== undefined)
        return refusal(STATUS[error.code]!, error.code, error.message);
      report(error);
      return refusal(500, 'INTERNAL', 'The chat request failed.');
    }
  }

  /** GET ?id=<chat id>: the stored chat as UI messages, for the same user (and tenant) as its POSTs. */
  function extraHeaders(status: number): Record<string, string> {
    if (status === 413) return { connection: 'close' };
    if (status === 405) return { allow: agent.loadConversation ? 'GET, POST' : 'POST' };
    return {};
  }

  async function restore(incoming: Incoming): Promise<Answer> {
    const chatId = new URL(incoming.url, 'http://chat.invalid').searchParams.get('id') ?? undefined;
    const info: ChatRequestInfo = {
      headers: incoming.headers,
      body: { id: chatId, messages: [] },
      method: 'GET',
      request: incoming.request,
      incoming: incoming.incoming,
    };
    const { userId, sessionId, tenantId } = await resolve(info);
    const conversation = await agent.loadConversation!({ sessionId, userId, tenantId });
    const messages: RestoredUIMessage[] = toUIMessages(conversation, sessionId);
    // Another user's chat answers as POST does (403 SESSION_FORBIDDEN); an unknown one is empty.
    return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, json: { id: sessionId, messages } };
  }

  /** The user, session and tenant of a request, by the app's resolvers (the same for GET and POST). */
  async function resolve(info: ChatRequestInfo): Promise<{ userId: string | undefined; sessionId: string; tenantId: string | undefined }> {
    const userId = await options.userId(info);
    const sessionId = options.sessionId ? await options.sessionId(info) : info.body.id;
    if (typeof sessionId !== 'string' || sessionId === '')
      throw new ChatRequestError(
        400,
        info.method === 'GET'
          ? 'Name the chat to restore: GET ?id=<chat id> (or pass a sessionId resolver).'
          : 'The body has no chat id ("id"): it names the session. useChat sends it; or pass a sessionId resolver.',
      );
    const tenantId = options.tenantId ? await options.tenantId(info) : undefined;
    return { userId, sessionId, tenantId };
  }

  async function start(incoming: Incoming): Promise<Answer> {
    if (incoming.method !== 'POST')
      throw new ChatRequestError(
        405,
        agent.loadConversation
          ? 'Use POST to send the messages useChat sends, or GET ?id=<chat id> to restore a chat.'
          : 'Use POST: the chat endpoint takes the messages useChat sends.',
      );
    const type = incoming.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
    // Only application/json: a cross-site form (text/plain) cannot then start a run with the user's cookies.
    if (type !== 'application/json') throw new ChatRequestError(415, 'Send the messages as JSON (Content-Type: application/json).');
    if (Number(incoming.headers.get('content-length') ?? 0) > maxBodyBytes) throw tooLarge(maxBodyBytes);
    let raw: string | object;
    try {
      raw = await incoming.read(maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) throw tooLarge(maxBodyBytes);
      throw error;
    }
    const body = parseBody(raw);
    const info: ChatRequestInfo = {
      headers: incoming.headers,
      body,
      method: 'POST',
      request: incoming.request,
      incoming: incoming.incoming,
    };
    const { userId, sessionId, tenantId } = await resolve(info);

    // The run stops when the client goes away (useChat's stop(), a closed tab).
    const controller = new AbortController();
    const signal = incoming.signal;
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    const run: RunOptions = { sessionId, userId, tenantId, signal: controller.signal };

    const last = body.messages[body.messages.length - 1];
    let events: AsyncIterable<AgentEvent>;
    let messageId: string | undefined;
    let announced: string[] = [];
    if (last.role === 'user') {
      events = agent.stream(userText(last), run);
    } else if (last.role === 'assistant') {
      const decisions = approvalResponses(last);
      const approver = options.approver ? await options.approver(info, userId) : userId;
      if (approver === null) throw new ChatRequestError(403, 'Approvals are not decided from this chat.');
      const resume: ResumeOptions = approver === undefined ? run : { ...run, approver };
      events = agent.streamResume ? agent.streamResume(resume, decisions) : runResultEvents(agent.resume(resume, decisions));
      // The results continue the client's own assistant message, whose tool parts are already shown.
      messageId = last.id;
      announced = last.parts.filter(isToolPart).map((part) => part.toolCallId as string);
    } else {
      throw new ChatRequestError(
        400,
        `The last message must be the user's (or an assistant message with approval responses), not "${last.role}".`,
      );
    }

    // The first event is awaited before answering: a refusal (another user's session, a paused run,
    // an approval for a call not waiting) is an HTTP error the client can tell from a failed run.
    const iterator = events[Symbol.asyncIterator]();
    let first: IteratorResult<AgentEvent>;
    try {
      first = await iterator.next();
    } catch (error) {
      controller.abort();
      throw error;
    }
    const errorText = options.errorText ?? defaultErrorText;
    const chunks = toUIMessageStream(prepend(first, iterator), {
      messageId,
      announcedToolCalls: announced,
      progress: options.progress,
      errorText: (error) => {
        if (!(error instanceof ToolwrightError)) report(error);
        return errorText(error);
      },
    });
    return { stream: toServerSentEvents(chunks), abort: (reason) => controller.abort(reason) };
  }

  return {
    async fetch(request) {
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
    },

    async node(req, res) {
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
    },
  };
}

/** The 409 a message gets while the chat waits for an approval: words for the person at the page. */
export const PAUSED_MESSAGE =
  'This chat is waiting for you to approve or deny an action. Answer that request first, then send your message again.';

/** The 503 while the store is down: no backend's error text (hosts, ports) reaches the browser. */
export const STORE_UNAVAILABLE_MESSAGE = "The chat's storage is unavailable right now; try again in a moment.";

function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, json: { error: { code, message } } };
}

function tooLarge(limit: number): ChatRequestError {
  return new ChatRequestError(413, `The request body is larger than ${limit} bytes (maxBodyBytes).`);
}

function parseBody(raw: string | object): ChatRequestBody {
  let body: unknown = raw;
  if (typeof raw === 'string') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      throw new ChatRequestError(400, 'The request body is not valid JSON.');
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ChatRequestError(400, 'The request body must be a JSON object: { id, messages, trigger, messageId }.');
  const { messages, trigger } = body as Record<string, unknown>;
  if (!Array.isArray(messages) || messages.length === 0)
    throw new ChatRequestError(400, 'The request body has no "messages": send the chat\'s UIMessages (useChat does).');
  messages.forEach((message: unknown, index) => {
    const m = message as Partial<ChatMessage> | null;
    if (typeof m !== 'object' || m === null || typeof m.id !== 'string' || typeof m.role !== 'string' || !Array.isArray(m.parts))
      throw new ChatRequestError(400, `messages[${index}] is not a UIMessage ({ id, role, parts: [] }).`);
    if (!m.parts.every((part: unknown) => typeof part === 'object' && part !== null && typeof (part as ChatMessagePart).type === 'string'))
      throw new ChatRequestError(400, `messages[${index}].parts: every part is an object with a "type".`);
  });
  if (trigger === 'regenerate-message')
    throw new ChatRequestError(
      400,
      'Regenerating a message is not supported: the conversation is stored on the server; send a new message.',
    );
  if (trigger !== undefined && trigger !== 'submit-message')
    throw new ChatRequestError(400, `Unknown trigger ${JSON.stringify(trigger)}: expected "submit-message".`);
  return body as ChatRequestBody;
}

/** The user's text: its text parts. Files are refused rather than silently dropped. */
function userText(message: ChatMessage): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new ChatRequestError(400, 'A text part has no string "text".');
      texts.push(part.text);
    } else if (part.type === 'file') {
      throw new ChatRequestError(400, 'File parts are not supported by this agent: send text.');
    }
  }
  const text = texts.join('\n');
  if (text.trim() === '') throw new ChatRequestError(400, 'The last user message has no text.');
  return text;
}

function isToolPart(part: ChatMessagePart): boolean {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && typeof part.toolCallId === 'string';
}

/** The decisions of an assistant message's `approval-responded` tool parts, by tool call id. */
function approvalResponses(message: ChatMessage): Record<string, ApprovalDecision> {
  const decisions: Record<string, ApprovalDecision> = {};
  for (const part of message.parts) {
    if (!isToolPart(part) || part.state !== 'approval-responded') continue;
    const toolCallId = part.toolCallId as string;
    const approval = part.approval as { id?: unknown; approved?: unknown; reason?: unknown } | null | undefined;
    if (typeof approval !== 'object' || approval === null || typeof approval.approved !== 'boolean')
      throw new ChatRequestError(400, `The approval response for "${toolCallId}" has no boolean "approved".`);
    if (approval.id !== approvalIdOf(toolCallId))
      throw new ChatRequestError(
        400,
        `The approval response for "${toolCallId}" names approval ${JSON.stringify(approval.id)}, which this server did not ask for.`,
      );
    const reason =
      typeof approval.reason === 'string' && approval.reason.trim() !== '' ? approval.reason : 'The user denied this tool call.';
    Object.defineProperty(decisions, toolCallId, {
      value: approval.approved ? { approve: true } : { approve: false, reason },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (Object.keys(decisions).length === 0)
    throw new ChatRequestError(400, "The last message is the assistant's but carries no approval response: send a user message.");
  return decisions;
}

/** The iterator again, its first result already read. */
async function* prepend(first: IteratorResult<AgentEvent>, rest: AsyncIterator<AgentEvent>): AsyncGenerator<AgentEvent> {
  try {
    if (first.done) return;
    yield first.value;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
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
