import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest, isJSONRPCNotification, isJSONRPCRequest, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { errorText, InvalidIdError, StoreUnavailableError, ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import type { SessionKey, SessionSnapshot } from '../session/snapshots';
import { InMemoryStore } from '../stores/in-memory.store';
import type { SessionStore } from '../stores/store';
import { createMcpServer, IDENTITY_KEY, mcpStoreKeys, type McpIdentity, type McpServerOptions } from './mcp-server';
import { BodyTooLarge, readBody } from '../request-body/read-body';
import { invalidMessage, StdioLineTransport } from './stdio';
import {
  STORE_RETRY_AFTER_SECONDS,
  STORE_UNAVAILABLE_MESSAGE,
  STORE_UNAVAILABLE_RPC_CODE,
  storeUnavailableResult,
} from './store-unavailable';

export interface StdioHandle {
  readonly server: Server;
  close(): Promise<void>;
}

/** Serves the registry over this process's stdin/stdout (one MCP session). Nothing else may write to stdout. */
export async function serveStdio(registry: ToolRegistry, options: McpServerOptions = {}): Promise<StdioHandle> {
  const server = createMcpServer(registry, options);
  await server.connect(new StdioLineTransport());
  return { server, close: () => server.close() };
}

/** What an auth hook sees: the bearer token (if any) and the raw request. */
export interface McpAuthRequest {
  token: string | undefined;
  request: IncomingMessage;
}

/**
 * Maps an HTTP request to who is calling. Return `undefined`/`null` to deny it (401);
 * throwing denies it too (the error goes to `onError`).
 */
export type McpAuthHook = (request: McpAuthRequest) => McpIdentity | null | undefined | Promise<McpIdentity | null | undefined>;

export interface HttpServeOptions extends McpServerOptions {
  /** TCP port; 0 (default) picks a free one (read it from the handle). */
  port?: number;
  /** Interface to bind (default `127.0.0.1`: loopback only). */
  host?: string;
  /** The MCP endpoint path (default `/mcp`). */
  path?: string;
  /** Without it every request is served as `identity` (or `anonymous`), and each MCP session has its own memory. */
  auth?: McpAuthHook;
  /**
   * Host headers accepted (DNS-rebinding protection; 403 otherwise). Default: when bound to
   * loopback, `127.0.0.1:<port>`, `localhost:<port>` and `[::1]:<port>`; otherwise any.
   */
  allowedHosts?: string[];
  /**
   * `Origin` headers accepted (403 otherwise, as the MCP transport spec requires). A request with
   * no Origin (a non-browser client) is not affected. Default: when bound to loopback, the
   * server's own loopback origins; otherwise none.
   */
  allowedOrigins?: string[];
  /** Largest accepted request body in bytes, on every request (default 1 MiB); a larger declared Content-Length gets 413 unread. */
  maxBodyBytes?: number;
  /** Open MCP sessions at most (default 1,000); a new one then replaces the least recently used idle session. */
  maxSessions?: number;
  /** A session with no request for this long is closed and its stored context removed (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /**
   * Serve a non-loopback address without `auth`. Refused unless set, and then `allowedHosts`
   * and `allowedOrigins` must be given: anyone who can reach the port could call every tool.
   */
  allowUnauthenticated?: boolean;
  /**
   * Many processes, one client: no MCP session lives in this process. The session record (owner)
   * and every AgentContext live in `store` (Redis or PostgreSQL shared by the processes), so any
   * process serves any request. Idle sessions expire with the store's TTL (`sessionTtlSeconds`).
   * Approvals answer APPROVAL_REQUIRED (an elicitation's answer could reach another process).
   * A `notifications/cancelled` landing on a process not running the call reaches it through the
   * store's `channels` (same MCP session and owner only); without them only the local process hears it.
   */
  stateless?: boolean;
}

export interface HttpHandle {
  /** `http://host:port/path`, ready for `StreamableHTTPClientTransport`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  /** Closes every MCP session (removing what they stored) and the HTTP server. */
  close(): Promise<void>;
}

/** serveHttp was asked for an unsafe or impossible setup; nothing was bound. */
export class McpServeConfigError extends ToolwrightConfigError {}

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
  identity: McpIdentity;
  /** POST requests in flight: such a session is neither idle nor evicted. */
  active: number;
  /** Ids (as JSON) of the requests in flight. */
  inflight: Set<string>;
  timer?: NodeJS.Timeout;
}

/** What a stateless server keeps of an MCP session, in the store under `mcp-session:<id>`. */
interface SessionRecord {
  owner: string;
}

const RECORD_PREFIX = 'mcp-session:';
/** The store channel on which stateless servers pass on cancellations (see serveStateless). */
const CANCEL_CHANNEL = 'mcp-cancel';
/** A cancellation's reason travels at most this long (a NOTIFY payload is bounded). */
const MAX_REASON_CHARS = 1000;
/** A request id longer than this (as JSON) is not passed on to other processes. */
const MAX_REQUEST_ID_CHARS = 1000;
/** Cancellations that found no call are kept this long, at most this many (see RecentKeys). */
const UNMATCHED_MS = 60_000;
const UNMATCHED_MAX = 1000;
const DEFAULT_MAX_SESSIONS = 1000;
const DEFAULT_IDLE_MS = 30 * 60_000;

/** Compares bearer tokens in constant time (SHA-256 first, so lengths never differ). */
export function tokenAuth(tokens: Readonly<Record<string, McpIdentity>>): McpAuthHook {
  const known = Object.entries(tokens).map(([token, identity]) => ({ digest: sha256(token), identity }));
  return ({ token }) => {
    if (token === undefined) return undefined;
    const digest = sha256(token);
    let found: McpIdentity | undefined;
    // Every token is compared, so the time taken says nothing about which one matched.
    for (const entry of known) if (timingSafeEqual(entry.digest, digest)) found = entry.identity;
    return found;
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Serves the registry over MCP Streamable HTTP: one MCP server, and one AgentContext, per MCP
 * session (or, with `stateless`, everything in a shared store). With `auth`, every request must
 * map to an identity, and a session can only be used by the identity that opened it. Host and
 * Origin are checked on every request, bodies are bounded, sessions are bounded in number and
 * idle time, and what a session stored is removed when it ends (DELETE, expiry, eviction).
 */
export async function serveHttp(registry: ToolRegistry, options: HttpServeOptions = {}): Promise<HttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.sessionIdleTimeoutMs ?? DEFAULT_IDLE_MS;
  checkOptions(options, host, maxSessions, idleMs, maxBodyBytes);
  const store: SessionStore = options.store ?? new InMemoryStore();
  const memoryScope = options.memoryScope ?? (options.auth ? 'user' : 'session');
  const serverOptions: McpServerOptions = { ...options, store, memoryScope };
  const onError = options.onError ?? ((error: unknown) => process.stderr.write(`toolwright mcp: ${errorText(error)}\n`));
  const sessions = new Map<string, Session>();
  let allowedHosts = options.allowedHosts?.map((h) => h.toLowerCase());
  let allowedOrigins = options.allowedOrigins?.map((o) => o.toLowerCase());
  const fallbackIdentity: McpIdentity = options.identity ?? { userId: 'anonymous' };

  /** Removes what an ended session stored: its AgentContext, and its memory when scoped to it. */
  const forget = async (id: string, identity: McpIdentity): Promise<void> => {
    const { key, memoryKey } = mcpStoreKeys(id, identity, serverOptions);
    try {
      await Promise.all([
        store.deleteSession(key),
        memoryScope === 'session' ? store.deleteMemory(memoryKey) : undefined,
        options.stateless ? store.deleteSession(recordKey(id, identity)) : undefined,
      ]);
    } catch (error) {
      onError(error);
    }
  };

  const end = async (session: Session): Promise<void> => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    clearTimeout(session.timer);
    await session.server.close().catch(onError);
    await forget(session.id, session.identity);
  };

  const touch = (session: Session) => {
    if (sessions.get(session.id) !== session) return; // ended meanwhile (DELETE, eviction)
    // Map order is recency order: the first idle entry is the least recently used.
    sessions.delete(session.id);
    sessions.set(session.id, session);
    session.timer?.refresh();
  };

  const expire = (session: Session) => {
    if (session.active > 0) return void session.timer?.refresh();
    void end(session);
  };

  /** Room for one more session: the least recently used idle one goes. */
  const makeRoom = async (): Promise<boolean> => {
    if (sessions.size < maxSessions) return true;
    for (const session of sessions.values()) {
      if (session.active === 0) {
        await end(session);
        return true;
      }
    }
    return false;
  };

  const serve = async (session: Session, req: IncomingMessage, res: ServerResponse, body: unknown) => {
    // The transport routes a response by its request id: a second request with an id still in flight would take the
    // first one's answer and leave one HTTP request open for good. Refused, as JSON-RPC wants ids unique.
    const ids = (Array.isArray(body) ? body : [body]).filter(isJSONRPCRequest).map((r) => JSON.stringify(r.id));
    if (ids.some((id, i) => session.inflight.has(id) || ids.indexOf(id) !== i))
      return sendError(res, 400, -32600, 'Invalid Request: a request with this id is already in progress in this session.');
    for (const id of ids) session.inflight.add(id);
    // Only calls in flight keep a session busy: an open GET stream alone does not stop it idling out.
    const busy = req.method === 'POST';
    if (busy) session.active++;
    touch(session);
    try {
      await session.transport.handleRequest(req, res, body);
    } finally {
      for (const id of ids) session.inflight.delete(id);
      if (busy) session.active--;
      touch(session);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${path}.`);

    // DNS rebinding and cross-site requests: checked before anything else, on every request.
    const hostHeader = headerValue(req, 'host')?.toLowerCase();
    if (allowedHosts && (!hostHeader || !allowedHosts.includes(hostHeader)))
      return sendError(res, 403, -32000, 'Forbidden: Host not allowed.');
    const origin = headerValue(req, 'origin')?.toLowerCase();
    if (origin !== undefined && !(allowedOrigins ?? []).includes(origin))
      return sendError(res, 403, -32000, 'Forbidden: Origin not allowed.');

    const declared = Number(headerValue(req, 'content-length') ?? 0);
    if (declared > maxBodyBytes) return tooLarge(res, maxBodyBytes);

    let identity: McpIdentity | undefined;
    if (options.auth) {
      const token = bearerToken(req);
      try {
        identity = (await options.auth({ token, request: req })) ?? undefined;
      } catch (error) {
        onError(error);
      }
      if (!identity) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return sendError(res, 401, -32001, 'Unauthorized: send a valid "Authorization: Bearer <token>" header.');
      }
      (req as IncomingMessage & { auth?: AuthInfo }).auth = {
        token: token ?? '',
        clientId: identity.userId,
        scopes: [],
        extra: { [IDENTITY_KEY]: identity },
      };
    }
    const owner = identity ? `${identity.tenantId ?? ''}\u0000${identity.userId}` : '';

    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(await readBody(req, maxBodyBytes));
      } catch (error) {
        if (error instanceof BodyTooLarge) return tooLarge(res, maxBodyBytes);
        return sendError(res, 400, -32700, 'Parse error: the request body is not valid JSON.');
      }
    }

    // JSON-RPC 2.0: valid JSON that is not a request is -32600 (the transport says -32700), an empty batch too (it answers 202).
    if (Array.isArray(body) && body.length === 0) return sendError(res, 400, -32600, 'Invalid Request: an empty batch.');
    const invalid = req.method === 'POST' ? (Array.isArray(body) ? body : [body]).map(invalidMessage).find(Boolean) : undefined;
    if (invalid) return sendError(res, 400, -32600, invalid);

    const sessionId = headerValue(req, 'mcp-session-id');
    if (options.stateless) return serveStateless(req, res, body, sessionId, identity, owner);
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // The same answer for "unknown" and "someone else's": session ids are not to be probed.
      if (!session || session.owner !== owner)
        return sendError(res, 404, -32001, 'Session not found: start a new MCP session (initialize).');
      return serve(session, req, res, body);
    }

    if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize (POST) first.');
    if (!isInitializeRequest(body))
      return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize first, then the mcp-session-id header it returns.');
    if (!(await makeRoom())) {
      res.setHeader('Retry-After', '5');
      return sendError(res, 503, -32000, 'Too many open MCP sessions; try again later.');
    }

    const server = createMcpServer(registry, serverOptions);
    const session: Session = {
      id: '',
      transport: undefined as never,
      server,
      owner,
      identity: identity ?? fallbackIdentity,
      active: 0,
      inflight: new Set(),
    };
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        session.timer = setTimeout(() => expire(session), idleMs).unref();
        sessions.set(id, session);
      },
    });
    session.transport.onclose = () => void end(session);
    await server.connect(session.transport);
    await serve(session, req, res, body);
  };

  /** Stateless: the session record in the store says who owns it; a fresh server answers each request. */
  const serveStateless = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    sessionId: string | undefined,
    identity: McpIdentity | undefined,
    owner: string,
  ): Promise<void> => {
    const who = identity ?? fallbackIdentity;
    if (sessionId === undefined) {
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        return sendError(
          res,
          400,
          -32000,
          'Bad request: no MCP session. Send initialize first, then the mcp-session-id header it returns.',
        );
      }
      const id = randomUUID();
      const record: SessionRecord = { owner };
      try {
        await store.saveSession(recordKey(id, who), { set: { record }, deleted: [], appended: [] });
      } catch (error) {
        if (error instanceof StoreUnavailableError) return storeDown(res, body, error);
        throw error;
      }
      return answerOnce(req, res, body, id, owner, () => id);
    }
    let stored: SessionSnapshot | undefined;
    try {
      stored = await store.loadSession(recordKey(sessionId, who));
    } catch (error) {
      // An id no store can keep (InvalidIdError) names no session either: the same answer as an unknown one.
      if (error instanceof StoreUnavailableError) return storeDown(res, body, error);
      if (!(error instanceof InvalidIdError)) throw error;
    }
    const record = stored?.state.record as SessionRecord | undefined;
    if (!record || record.owner !== owner) return sendError(res, 404, -32001, 'Session not found: start a new MCP session (initialize).');
    if (req.method === 'DELETE') {
      await forget(sessionId, who);
      res.writeHead(200).end();
      return;
    }
    // No standalone SSE stream: server-initiated messages could not reach a client served by another process.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, DELETE');
      return sendError(res, 405, -32000, 'Method not allowed: this server is stateless (POST requests only).');
    }
    // As the stateful transport: a session is initialized once, whichever process serves it.
    if ((Array.isArray(body) ? body : [body]).some(isInitializeRequest))
      return sendError(res, 400, -32600, 'Invalid Request: Server already initialized');
    const cancelled = cancelTarget(body);
    if (cancelled) {
      const key = inflightKey(sessionId, ownerDigest(owner), cancelled.params.requestId);
      const running = inflight.get(key);
      if (running) running(cancelled);
      // Not running here: it may be running on another process sharing the store, or not have arrived yet.
      else if (channels) await publishCancel(sessionId, owner, cancelled);
      else unmatched.remember(key);
      if (running || channels) {
        res.writeHead(202).end();
        return;
      }
    }
    return answerOnce(req, res, body, sessionId, owner, undefined);
  };

  /**
   * The store holding session records is down (see store-unavailable.ts): a tools/call gets its
   * tool result, anything else 503 with Retry-After, never the generic 500.
   */
  const storeDown = (res: ServerResponse, body: unknown, error: StoreUnavailableError): void => {
    onError(error);
    const single = isJSONRPCRequest(body) ? body : undefined;
    if (single?.method === 'tools/call') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: single.id, result: storeUnavailableResult() }));
      return;
    }
    res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    sendError(res, 503, STORE_UNAVAILABLE_RPC_CODE, STORE_UNAVAILABLE_MESSAGE, { code: 'STORE_UNAVAILABLE' }, single?.id);
  };

  /**
   * Stateless tool calls running in this process, by MCP session, owner and request id, so that a
   * `notifications/cancelled` (a request of its own, with a fresh server) reaches the call's server,
   * here or, through the store's channels, on the process running it.
   */
  const inflight = new Map<string, (cancel: JSONRPCNotification) => void>();
  const unmatched = new RecentKeys(UNMATCHED_MAX, UNMATCHED_MS);
  // Subscribed for the server's lifetime, not per call: a process hears a cancellation only if it
  // listens when it is published, and subscribing per call would add a round trip to each call.
  const channels = options.stateless ? store.channels : undefined;
  const unsubscribe = await channels?.subscribe(
    CANCEL_CHANNEL,
    (message) => remoteCancel(message),
    (error) =>
      onError(cancelUndelivered('cancellations sent to other processes do not reach calls running here until the store is back', error)),
  );

  /** Passes a cancellation on to the other processes; a store that is down loses it (reported, never thrown). */
  const publishCancel = async (sessionId: string, owner: string, cancel: CancelNotification): Promise<void> => {
    const { requestId, reason } = cancel.params;
    if (JSON.stringify(requestId).length > MAX_REQUEST_ID_CHARS) return;
    const notice: CancelNotice = { s: sessionId, o: ownerDigest(owner), r: requestId };
    if (typeof reason === 'string') notice.m = reason.slice(0, MAX_REASON_CHARS);
    try {
      await channels!.publish(CANCEL_CHANNEL, JSON.stringify(notice));
    } catch (error) {
      onError(cancelUndelivered(`the cancellation of request ${JSON.stringify(requestId)} did not reach other processes`, error));
    }
  };

  /** A cancellation published by a process (this one too): aborts the call if it runs here, for the same session and owner. */
  const remoteCancel = (message: string): void => {
    const notice = parseNotice(message);
    if (!notice) return;
    const key = inflightKey(notice.s, notice.o, notice.r);
    const running = inflight.get(key);
    if (!running) return unmatched.remember(key);
    const params = notice.m === undefined ? { requestId: notice.r } : { requestId: notice.r, reason: notice.m };
    running({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
  };

  /** One request, one server and transport (stateless), the MCP session id given as the context's session. */
  const answerOnce = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    id: string,
    owner: string,
    generate: (() => string) | undefined,
  ) => {
    const call = isJSONRPCRequest(body) && body.method === 'tools/call' ? body : undefined;
    const key = call && inflightKey(id, ownerDigest(owner), call.id);
    // Cancelled before it arrived (its cancellation was quicker, through another process): not run, no response.
    if (key && unmatched.take(key)) return void res.writeHead(202).end();
    const server = createMcpServer(registry, { ...serverOptions, sessionId: id });
    // Progress needs a stream to travel on; every other answer is one JSON body.
    const streamed = call?.params?._meta?.progressToken !== undefined;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: generate, enableJsonResponse: !streamed });
    await server.connect(transport);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    if (key) {
      inflight.set(key, (cancel) => {
        transport.onmessage?.(cancel);
        // A cancelled call gets no JSON-RPC response: a JSON-mode request would wait for one forever.
        if (!streamed) {
          if (!res.headersSent) res.writeHead(202).end();
          release();
        }
      });
    }
    try {
      await Promise.race([transport.handleRequest(req, res, body), released]);
    } finally {
      if (key) inflight.delete(key);
      await server.close().catch(onError);
    }
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error) => {
      onError(error);
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  if (isLoopback(host)) {
    const names = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`);
    allowedHosts ??= names;
    allowedOrigins ??= names.map((h) => `http://${h}`);
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    host,
    sessionCount: () => sessions.size,
    close: async () => {
      // Stateful sessions cannot outlive this process: what they stored goes with them.
      await Promise.allSettled([...sessions.values()].map((s) => end(s)));
      await unsubscribe?.().catch(onError);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * Keys seen lately, oldest dropped first (by age or count): cancellations that found no call here,
 * so that a call arriving after its own cancellation (MCP ids are never reused in a session) is
 * not run. Bounded: a client sending many cancellations only pushes out older ones.
 */
class RecentKeys {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  remember(key: string): void {
    const now = Date.now();
    this.seen.delete(key);
    this.seen.set(key, now);
    for (const [oldest, at] of this.seen) {
      if (this.seen.size <= this.max && now - at < this.ttlMs) break;
      this.seen.delete(oldest);
    }
  }

  /** Whether `key` was remembered (and not too long ago); forgets it. */
  take(key: string): boolean {
    const at = this.seen.get(key);
    if (at === undefined) return false;
    this.seen.delete(key);
    return Date.now() - at < this.ttlMs;
  }
}

/** A call in flight: MCP session, owner (digest) and request id. */
function inflightKey(sessionId: string, owner: string, requestId: unknown): string {
  return `${sessionId}\u0000${owner}\u0000${JSON.stringify(requestId)}`;
}

/** Who owns a session, as it travels between processes: fixed length, and no user id in the clear. */
function ownerDigest(owner: string): string {
  return sha256(owner).toString('base64url');
}

type CancelNotification = JSONRPCNotification & { params: { requestId: string | number; reason?: unknown } };

/** A cancellation as published on the store's channel: MCP session id, owner digest, request id, reason. */
interface CancelNotice {
  s: string;
  o: string;
  r: string | number;
  m?: string;
}

/** The notice in a channel message, or undefined for anything else (anyone with the store can publish). */
function parseNotice(message: string): CancelNotice | undefined {
  let notice: Partial<CancelNotice>;
  try {
    notice = JSON.parse(message) as Partial<CancelNotice>;
  } catch {
    return undefined;
  }
  if (notice === null || typeof notice !== 'object' || typeof notice.s !== 'string' || typeof notice.o !== 'string') return undefined;
  if (typeof notice.r !== 'string' && typeof notice.r !== 'number') return undefined;
  if (notice.m !== undefined && typeof notice.m !== 'string') return undefined;
  return notice as CancelNotice;
}

/** What a stateless server reports (onError) when the store cannot pass a cancellation on. */
function cancelUndelivered(what: string, cause: unknown): ToolwrightError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ToolwrightError('STORE_UNAVAILABLE', `MCP cancellation: ${what} (${detail}).`, { cause });
}

/** The notification, if `body` is a `notifications/cancelled` naming a request. */
function cancelTarget(body: unknown): CancelNotification | undefined {
  if (!isJSONRPCNotification(body) || body.method !== 'notifications/cancelled') return undefined;
  const requestId = (body.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? (body as CancelNotification) : undefined;
}

function recordKey(id: string, identity: McpIdentity): SessionKey {
  return { sessionId: `${RECORD_PREFIX}${id}`, tenantId: identity.tenantId };
}

function checkOptions(options: HttpServeOptions, host: string, maxSessions: number, idleMs: number, maxBodyBytes: number): void {
  for (const [name, value] of Object.entries({ maxSessions, sessionIdleTimeoutMs: idleMs, maxBodyBytes })) {
    if (!Number.isInteger(value) || value < 1)
      throw new McpServeConfigError(`serveHttp: ${name} must be a positive integer, got ${value}.`);
  }
  if (options.auth || isLoopback(host)) return;
  if (!options.allowUnauthenticated) {
    throw new McpServeConfigError(
      `serveHttp: refusing to serve ${host} (not loopback) without auth: anyone who reaches it could call every tool. ` +
        'Pass auth (e.g. tokenAuth({ [token]: identity })), bind 127.0.0.1, or set allowUnauthenticated with allowedHosts and allowedOrigins.',
    );
  }
  if (!options.allowedHosts?.length || !options.allowedOrigins?.length) {
    throw new McpServeConfigError(
      'serveHttp: allowUnauthenticated on a non-loopback address needs explicit allowedHosts and allowedOrigins.',
    );
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '');
  return match?.[1];
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function tooLarge(res: ServerResponse, limit: number): void {
  // The body is not read: the connection cannot be reused, so it is closed after the answer.
  res.setHeader('Connection', 'close');
  sendError(res, 413, -32600, `Request body is larger than ${limit} bytes.`);
}

function sendError(res: ServerResponse, status: number, code: number, message: string, data?: object, id?: string | number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const error = data === undefined ? { code, message } : { code, message, data };
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: id ?? null }));
}
