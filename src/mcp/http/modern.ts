import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, JSONRPCMessage, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { AgentContext } from '../../session/agent-context';
import type { LogLevel } from '../../session/tool-log';
import { featureCapabilities } from '../features';
import { contextOf } from '../call-scope';
import { createMcpServer } from '../mcp-server';
import { mcpStoreKeys } from '../session-keys';
import { TaskServing } from '../tasks/task-serving';
import type { ServeContext } from './context';
import { InvalidRequestStateError } from '../../errors/input-errors';
import { MISSING_CLIENT_CAPABILITY } from '../missing-capability';
import { headerRefusal, META, MODERN_VERSION, UNSUPPORTED_VERSION, type ModernMessage, type Refusal } from './era';
import type { Admitted } from './guard';
import { InputRound } from './input-round';
import { listen, listenable, listenFilter, ListenSlots } from './listen';
import { paramHeaderRefusal } from './param-headers';
import { RequestStateSeal, type StateBinding } from './request-state';
import { sendError } from './respond';

/** What 2026-07-28 serves; `initialize`, `ping`, `logging/setLevel` and `resources/subscribe` are gone from it (404). */
const SERVED = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
]);

/** Results a client may cache (SEP-2549): they carry `ttlMs` and `cacheScope`. */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
]);

/** What a server may ask of the client within a request, as `input_required` (SEP-2322). */
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** The requests that may answer `input_required`, and what in their params names their target. */
const MULTI_ROUND: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** The capability each served method needs the server to have declared. */
const NEEDS: Readonly<Record<string, keyof ServerCapabilities>> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'completion/complete': 'completions',
};

/**
 * Protocol revision 2026-07-28: no handshake and no session, each request carries its version and
 * the client's capabilities in `_meta`. It has passed the same RequestGuard as a 2025 request (Host,
 * Origin, size, auth -> identity), and it runs on the same MCP server as a 2025 session, made for
 * this one request: listing and calls go through the registry's one gate.
 */
export class ModernServing {
  private readonly capabilities: ServerCapabilities;
  private readonly tasks: TaskServing;
  private readonly seal: RequestStateSeal;
  private readonly listens = new ListenSlots();

  constructor(private readonly ctx: ServeContext) {
    this.tasks = new TaskServing(ctx.registry, ctx.store, ctx.onError);
    const extensions = this.tasks.extensions();
    this.capabilities = { tools: {}, logging: {}, ...featureCapabilities(ctx.registry, false), ...(extensions && { extensions }) };
    // What a `subscriptions/listen` stream carries: resource updates, and tools/list_changed when remote tools change.
    const can = listenable(ctx.registry);
    if (can.resources) this.capabilities.resources = { subscribe: true };
    if (can.tools) this.capabilities.tools = { listChanged: true };
    this.seal = new RequestStateSeal(ctx.requestStateSecret);
  }

  async serve(req: IncomingMessage, res: ServerResponse, request: Admitted, message: ModernMessage, version: string): Promise<void> {
    if (version !== MODERN_VERSION)
      return refuse(res, {
        status: 400,
        code: UNSUPPORTED_VERSION,
        message: `Unsupported protocol version ${version}: this server speaks ${MODERN_VERSION} (or 2025-11-25 after initialize).`,
        data: { supported: [MODERN_VERSION], requested: version },
        id: message.id,
      });
    const headers = headerRefusal(req, message) ?? paramHeaderRefusal(req, message, this.ctx.registry);
    if (headers) return refuse(res, headers);
    // Notifications: nothing of 2026-07-28's needs an answer here (a cancellation is the client closing its stream).
    if (message.id === undefined) return void res.writeHead(202).end();
    const { method } = message;
    if (method === 'server/discover') return sendResult(res, message.id, this.finish(method, this.discover()));
    if (this.tasks.handles(method)) return this.tasks.method(res, request, message, (m, result) => this.finish(m, result));
    const needs = Object.hasOwn(NEEDS, method) ? NEEDS[method] : undefined;
    if (!SERVED.has(method) || (needs && !this.capabilities[needs]))
      return refuse(res, { status: 404, code: -32601, message: `Method not found: ${method}.`, id: message.id });
    if (method === 'subscriptions/listen') {
      const can = listenable(this.ctx.registry);
      if (!can.resources && !can.tools)
        return refuse(res, { status: 404, code: -32601, message: `Method not found: ${method}.`, id: message.id });
      const filter = listenFilter(message);
      if ('status' in filter) return refuse(res, filter);
      const full = this.listens.admit(request.owner);
      if (full) return refuse(res, { ...full, id: message.id });
      try {
        return await listen(res, this.ctx.registry, message.id, filter, () => this.callerContext(request), this.ctx.onError);
      } finally {
        this.listens.release(request.owner);
      }
    }
    const responses = message.params!.inputResponses;
    if (responses !== undefined && !(isObject(responses) && Object.values(responses).every(isObject)))
      return refuse(res, {
        status: 400,
        code: -32602,
        message: 'Invalid params: inputResponses must map each key to a result object.',
        id: message.id,
      });
    const binding = stateBinding(request.owner, message);
    let answers: Record<string, unknown> | undefined;
    try {
      answers = binding && roundAnswers(this.seal, binding, message.params!);
    } catch (error) {
      if (!(error instanceof InvalidRequestStateError)) throw error;
      return refuse(res, { status: 400, code: -32602, message: error.message, data: { code: error.code }, id: message.id });
    }
    return this.dispatch(req, res, request, message, binding && { binding, answers: answers ?? {} });
  }

  private discover(): Record<string, unknown> {
    return { supportedVersions: [MODERN_VERSION], capabilities: this.capabilities };
  }

  /**
   * Runs one request on a fresh MCP server. A 2026 request has no session: its AgentContext is the
   * identity's own (one per tenant and user), so a per-session rate limit counts per identity and
   * no client resets it by leaving out a session id. Without auth no one is known, so each request
   * gets a context of its own: callers the server cannot tell apart never share state.
   */
  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    admitted: Admitted,
    message: ModernMessage,
    round: { binding: StateBinding; answers: Record<string, unknown> } | undefined,
  ): Promise<void> {
    const meta = message.params!._meta as Record<string, unknown>;
    const logLevel = meta[META.logLevel] as LogLevel | undefined;
    // The server alone decides what runs as a task (SEP-2663): a 2025 client's `task` hint is tolerated and ignored.
    if (message.method === 'tools/call') delete message.params!.task;
    // A tool declared with `@Tool({ task })` may become a task (the tasks extension): then it is answered there.
    if (
      message.method === 'tools/call' &&
      (await this.tasks.call(req, res, admitted, message, {
        openServer: () => this.openServer(admitted, meta),
        finish: (method, result) => this.finish(method, result),
        permits: (name) => this.permits(admitted, name),
        answers: round?.answers ?? {},
      }))
    )
      return;
    const server = this.openServer(admitted, meta);
    const progress = isObject(meta) && meta.progressToken !== undefined;
    // Progress and logs travel on an event stream before the result; anything else is one JSON body.
    const streamed = message.method === 'tools/call' && (progress || logLevel !== undefined);
    const finish = (result: Record<string, unknown>) => this.finish(message.method, result);
    const transport = new OneRequestTransport(res, message.id!, streamed, finish);
    if (round)
      transport.round = new InputRound(round.answers, (inputRequests) =>
        transport.askClient({
          resultType: 'input_required',
          inputRequests,
          requestState: this.seal.seal(round.binding, transport.round!.used),
        }),
      );
    await server.connect(transport);
    // The client gave up on the request (closed its stream): the call is cancelled, as 2026-07-28 asks.
    const onClose = () => {
      if (!res.writableEnded) transport.cancel(message.id!);
    };
    res.once('close', onClose);
    try {
      const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
      transport.onmessage?.(message, { authInfo, requestInfo: { headers: req.headers } });
      await transport.done;
    } finally {
      res.off('close', onClose);
      await server.close().catch(this.ctx.onError);
    }
  }

  /** May this caller see the tool? Asked before a task starts, so a hidden tool is not told apart from a missing one. */
  private async permits(admitted: Admitted, name: string): Promise<boolean> {
    if (!this.ctx.registry.gated) return true;
    return this.ctx.registry.permits(name, await this.callerContext(admitted));
  }

  /** The caller's context as its requests see it: the identity's session, or a fresh one when no one is known. */
  private async callerContext({ identity, owner }: Admitted): Promise<AgentContext> {
    const { store, serverOptions } = this.ctx;
    const { key } = mcpStoreKeys(owner === '' ? `mcp-2026-${randomUUID()}` : identitySession(owner), identity, serverOptions);
    return contextOf(owner === '' ? undefined : await store.loadSession(key), key, identity);
  }

  /** The MCP server one request (or the task it started) runs on, as the identity, with what the client declared. */
  private openServer({ identity, owner }: Admitted, meta: Record<string, unknown>): ReturnType<typeof createMcpServer> {
    const server = createMcpServer(this.ctx.registry, {
      ...this.ctx.serverOptions,
      identity,
      sessionId: owner === '' ? `mcp-2026-${randomUUID()}` : identitySession(owner),
      sessionNotifications: false,
      logLevel: meta[META.logLevel] as LogLevel | undefined,
      missingCapabilityErrors: true,
    });
    // What the client declared for this request is all the server may ask of it (approvals, elicitation, sampling).
    const declared = meta[META.clientCapabilities] as ClientCapabilities;
    (server as unknown as { _clientCapabilities?: ClientCapabilities })._clientCapabilities = declared;
    return server;
  }

  /** Every 2026 result: `resultType`, the server's identity, and cache hints on the cacheable ones. */
  private finish(method: string, result: Record<string, unknown>): Record<string, unknown> {
    const serverInfo = { name: this.ctx.serverOptions.name ?? 'toolwright', version: this.ctx.serverOptions.version ?? '0.0.0' };
    const finished: Record<string, unknown> = {
      ...result,
      resultType: result.resultType ?? 'complete',
      _meta: { ...(isObject(result._meta) ? result._meta : {}), [META.serverInfo]: serverInfo },
    };
    // Lists may differ by caller (the registry's gate): private, and not to be reused without asking again.
    if (CACHEABLE.has(method)) Object.assign(finished, { ttlMs: 0, cacheScope: 'private' });
    return finished;
  }
}

/**
 * A transport for one request: the server's notifications go out as server-sent events when the
 * response is a stream (dropped otherwise), and its response ends the HTTP response. 2026-07-28
 * has no server-to-client requests: the nth one the server makes (an approval, an elicitation, a
 * sampling request) is answered from the request's `inputResponses["input-<n>"]` when the client
 * sent it, and otherwise ends the exchange with an `input_required` result asking for it, the
 * handler cancelled. The client sends the request again with the answer, and it runs again.
 */
class OneRequestTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly done: Promise<void>;
  /** Answers the handler's requests to the client; without one (a method that cannot ask) they fail. */
  round?: InputRound;
  private finished!: () => void;

  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string | number,
    private readonly streamed: boolean,
    private readonly finish: (result: Record<string, unknown>) => Record<string, unknown>,
  ) {
    this.done = new Promise<void>((resolve) => (this.finished = resolve));
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) {
      if (!INPUT_METHODS.has(message.method) || !this.round)
        throw new Error(`2026-07-28 has no ${message.method} from server to client here.`);
      const answer = this.round.ask(message.method, message.params);
      if (answer) queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id: message.id, result: answer }));
      return;
    }
    const response = 'result' in message || 'error' in message;
    if (!response && !this.streamed) return;
    const out = 'result' in message ? { ...message, result: this.finish(message.result) } : message;
    this.write(out, response);
  }

  /** Ends the exchange with the round's questions (`input_required`), the handler cancelled. */
  askClient(result: Record<string, unknown>): void {
    this.write({ jsonrpc: '2.0', id: this.requestId, result: this.finish(result) }, true);
    this.cancel(this.requestId);
  }

  private write(out: object, last: boolean): void {
    if (this.res.writableEnded) return;
    if (this.streamed) {
      if (!this.res.headersSent) this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      this.res.write(`event: message\ndata: ${JSON.stringify(out)}\n\n`);
      if (last) this.end();
      return;
    }
    // A capability the client did not declare is the request's fault: 400, as 2026-07-28 asks.
    const missing = 'error' in out && (out as { error: { code?: number } }).error.code === MISSING_CLIENT_CAPABILITY;
    this.res.writeHead(missing ? 400 : 200, { 'content-type': 'application/json' });
    this.res.end(JSON.stringify(out));
    this.finished();
  }

  /** Aborts the request's handler (the SDK's own cancellation path), and ends the exchange. */
  cancel(id: string | number): void {
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'The client closed the request.' },
    });
    this.end();
  }

  async close(): Promise<void> {
    this.end();
    this.onclose?.();
  }

  private end(): void {
    if (!this.res.writableEnded) this.res.end();
    this.finished();
  }
}

/** What a multi-round request's requestState is bound to: the caller, the method, its target and arguments. */
function stateBinding(owner: string, message: ModernMessage): StateBinding | undefined {
  const field = Object.hasOwn(MULTI_ROUND, message.method) ? MULTI_ROUND[message.method] : undefined;
  if (!field) return undefined;
  const params = message.params!;
  return { owner, method: message.method, target: params[field], args: params.arguments };
}

/** The answers of this round: those the signed requestState carries (they win), then the client's inputResponses. */
function roundAnswers(seal: RequestStateSeal, binding: StateBinding, params: Record<string, unknown>): Record<string, unknown> {
  const responses = isObject(params.inputResponses) ? params.inputResponses : {};
  if (params.requestState === undefined) return { ...responses };
  return { ...responses, ...seal.open(params.requestState, binding) };
}

/** The session id of an identity's 2026 requests (tenant and user). */
function identitySession(owner: string): string {
  return `mcp-2026-${createHash('sha256').update(owner, 'utf8').digest('hex').slice(0, 32)}`;
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  sendError(res, refusal.status, refusal.code, refusal.message, refusal.data, refusal.id);
}

function sendResult(res: ServerResponse, id: string | number, result: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
