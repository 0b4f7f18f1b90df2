import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpIdentity } from '../mcp-server';
import { forgetSession, type ServeContext } from './context';
import type { Admitted, Caller } from './guard';
import { sendError } from './respond';

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

/**
 * The MCP sessions held in this process: at most `maxSessions` (a new one replaces the least
 * recently used idle one), each closed after `idleMs` without a request, and what a session
 * stored removed when it ends.
 */
export class SessionTable {
  /** Map order is recency order: the first idle entry is the least recently used. */
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly maxSessions: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** A request for the session `sessionId` names, or one opening a session (initialize). */
  async serve(req: IncomingMessage, res: ServerResponse, request: Admitted, sessionId: string | undefined): Promise<void> {
    const { body, owner } = request;
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      // The same answer for "unknown" and "someone else's": session ids are not to be probed.
      if (!session || session.owner !== owner)
        return sendError(res, 404, -32001, 'Session not found: start a new MCP session (initialize).');
      return this.handle(session, req, res, body);
    }
    if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize (POST) first.');
    if (!isInitializeRequest(body))
      return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize first, then the mcp-session-id header it returns.');
    if (!(await this.makeRoom())) {
      res.setHeader('Retry-After', '5');
      return sendError(res, 503, -32000, 'Too many open MCP sessions; try again later.');
    }
    const session = await this.open(request);
    await this.handle(session, req, res, body);
  }

  /** Ends every session: they cannot outlive this process, and what they stored goes with them. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((s) => this.end(s)));
  }

  /** A new session's server and transport; it joins the table once the transport gives it an id. */
  private async open({ owner, identity }: Caller): Promise<Session> {
    const server = createMcpServer(this.ctx.registry, this.ctx.serverOptions);
    const session: Session = { id: '', transport: undefined as never, server, owner, identity, active: 0, inflight: new Set() };
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        session.timer = setTimeout(() => this.expire(session), this.idleMs).unref();
        this.sessions.set(id, session);
      },
    });
    session.transport.onclose = () => void this.end(session);
    await server.connect(session.transport);
    return session;
  }

  private async handle(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    // The transport routes a response by its request id: a second request with an id still in flight would take the
    // first one's answer and leave one HTTP request open for good. Refused, as JSON-RPC wants ids unique.
    const ids = (Array.isArray(body) ? body : [body]).filter(isJSONRPCRequest).map((r) => JSON.stringify(r.id));
    if (ids.some((id, i) => session.inflight.has(id) || ids.indexOf(id) !== i))
      return sendError(res, 400, -32600, 'Invalid Request: a request with this id is already in progress in this session.');
    for (const id of ids) session.inflight.add(id);
    // Only calls in flight keep a session busy: an open GET stream alone does not stop it idling out.
    const busy = req.method === 'POST';
    if (busy) session.active++;
    this.touch(session);
    try {
      await session.transport.handleRequest(req, res, body);
    } finally {
      for (const id of ids) session.inflight.delete(id);
      if (busy) session.active--;
      this.touch(session);
    }
  }

  private touch(session: Session): void {
    if (this.sessions.get(session.id) !== session) return; // ended meanwhile (DELETE, eviction)
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
    session.timer?.refresh();
  }

  private expire(session: Session): void {
    if (session.active > 0) return void session.timer?.refresh();
    void this.end(session);
  }

  /** Room for one more session: the least recently used idle one goes. */
  private async makeRoom(): Promise<boolean> {
    if (this.sessions.size < this.maxSessions) return true;
    for (const session of this.sessions.values()) {
      if (session.active === 0) {
        await this.end(session);
        return true;
      }
    }
    return false;
  }

  private async end(session: Session): Promise<void> {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    clearTimeout(session.timer);
    await session.server.close().catch(this.ctx.onError);
    await forgetSession(this.ctx, session.id, session.identity);
  }
}
