import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { InvalidIdError, StoreUnavailableError } from '../../errors/errors';
import type { SessionSnapshot } from '../../session/snapshots';
import type { StoreChannels } from '../../stores/store';
import { createMcpServer, type McpIdentity } from '../mcp-server';
import {
  STORE_RETRY_AFTER_SECONDS,
  STORE_UNAVAILABLE_MESSAGE,
  STORE_UNAVAILABLE_RPC_CODE,
  storeUnavailableResult,
} from '../store-unavailable';
import {
  CANCEL_CHANNEL,
  cancelTarget,
  cancelUndelivered,
  inflightKey,
  noticeText,
  ownerDigest,
  parseNotice,
  RecentKeys,
  type CancelNotification,
} from './cancel';
import { forgetSession, recordKey, type ServeContext, type SessionRecord } from './context';
import type { Admitted } from './guard';
import { sendError } from './respond';

/** Cancellations that found no call are kept this long, at most this many (see RecentKeys). */
const UNMATCHED_MS = 60_000;
const UNMATCHED_MAX = 1000;

/**
 * Stateless serving: the session record in the store says who owns a session, and a fresh server
 * answers each request. A `notifications/cancelled` (a request of its own, with a fresh server)
 * reaches the call's server here or, through the store's channels, on the process running it.
 */
export class StatelessRelay {
  /** Tool calls running in this process, by MCP session, owner and request id. */
  private readonly inflight = new Map<string, (cancel: JSONRPCNotification) => void>();
  private readonly unmatched = new RecentKeys(UNMATCHED_MAX, UNMATCHED_MS);
  private readonly channels: StoreChannels | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  private constructor(private readonly ctx: ServeContext) {
    this.channels = ctx.store.channels;
  }

  /**
   * Subscribed for the server's lifetime, not per call: a process hears a cancellation only if it
   * listens when it is published, and subscribing per call would add a round trip to each call.
   */
  static async start(ctx: ServeContext): Promise<StatelessRelay> {
    const relay = new StatelessRelay(ctx);
    relay.unsubscribe = await relay.channels?.subscribe(
      CANCEL_CHANNEL,
      (message) => relay.remoteCancel(message),
      (error) =>
        ctx.onError(
          cancelUndelivered('cancellations sent to other processes do not reach calls running here until the store is back', error),
        ),
    );
    return relay;
  }

  async close(): Promise<void> {
    await this.unsubscribe?.().catch(this.ctx.onError);
  }

  async serve(req: IncomingMessage, res: ServerResponse, request: Admitted, sessionId: string | undefined): Promise<void> {
    const { body, identity, owner } = request;
    if (sessionId === undefined) return this.open(req, res, request);
    let stored: SessionSnapshot | undefined;
    try {
      stored = await this.ctx.store.loadSession(recordKey(sessionId, identity));
    } catch (error) {
      // An id no store can keep (InvalidIdError) names no session either: the same answer as an unknown one.
      if (error instanceof StoreUnavailableError) return this.storeDown(res, body, error);
      if (!(error instanceof InvalidIdError)) throw error;
    }
    const record = stored?.state.record as SessionRecord | undefined;
    if (!record || record.owner !== owner) return sendError(res, 404, -32001, 'Session not found: start a new MCP session (initialize).');
    if (req.method === 'DELETE') {
      await forgetSession(this.ctx, sessionId, identity);
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
    if (cancelled && (await this.deliverCancel(sessionId, owner, cancelled))) return void res.writeHead(202).end();
    return this.answerOnce(req, res, body, { id: sessionId, identity, record }, undefined);
  }

  /** An initialize with no session: its record (the owner) goes to the store before it is answered. */
  private async open(req: IncomingMessage, res: ServerResponse, { body, identity, owner }: Admitted): Promise<void> {
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize first, then the mcp-session-id header it returns.');
    const id = randomUUID();
    const record: SessionRecord = { owner };
    try {
      await this.ctx.store.saveSession(recordKey(id, identity), { set: { record }, deleted: [], appended: [] });
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.storeDown(res, body, error);
      throw error;
    }
    return this.answerOnce(req, res, body, { id, identity, record }, () => id);
  }

  /**
   * Cancels the call if it runs here, else passes the cancellation on to the other processes;
   * without channels it is remembered instead. True when that answers the request.
   */
  private async deliverCancel(sessionId: string, owner: string, cancel: CancelNotification): Promise<boolean> {
    const key = inflightKey(sessionId, ownerDigest(owner), cancel.params.requestId);
    const running = this.inflight.get(key);
    if (running) running(cancel);
    // Not running here: it may be running on another process sharing the store, or not have arrived yet.
    else if (this.channels) await this.publishCancel(sessionId, owner, cancel);
    else this.unmatched.remember(key);
    return Boolean(running || this.channels);
  }

  /** Passes a cancellation on to the other processes; a store that is down loses it (reported, never thrown). */
  private async publishCancel(sessionId: string, owner: string, cancel: CancelNotification): Promise<void> {
    const text = noticeText(sessionId, owner, cancel);
    if (text === undefined) return;
    try {
      await this.channels!.publish(CANCEL_CHANNEL, text);
    } catch (error) {
      const requestId = JSON.stringify(cancel.params.requestId);
      this.ctx.onError(cancelUndelivered(`the cancellation of request ${requestId} did not reach other processes`, error));
    }
  }

  /** A cancellation published by a process (this one too): aborts the call if it runs here, for the same session and owner. */
  private remoteCancel(message: string): void {
    const notice = parseNotice(message);
    if (!notice) return;
    const running = this.inflight.get(notice.key);
    if (!running) return this.unmatched.remember(notice.key);
    running(notice.cancel);
  }

  /** One request, one server and transport, the MCP session id given as the context's session. */
  private async answerOnce(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    session: { id: string; identity: McpIdentity; record: SessionRecord },
    generate: (() => string) | undefined,
  ): Promise<void> {
    const { id, identity, record } = session;
    const logLevel = record.logLevel ?? this.ctx.serverOptions.logLevel;
    const call = isJSONRPCRequest(body) && body.method === 'tools/call' ? body : undefined;
    const key = call && inflightKey(id, ownerDigest(record.owner), call.id);
    // Cancelled before it arrived (its cancellation was quicker, through another process): not run, no response.
    if (key && this.unmatched.take(key)) return void res.writeHead(202).end();
    const server = createMcpServer(this.ctx.registry, {
      ...this.ctx.serverOptions,
      sessionId: id,
      sessionNotifications: false,
      logLevel,
      // The next request has a server of its own: the level lives in the session's record.
      onSetLogLevel: async (level) => {
        await this.ctx.store.saveSession(recordKey(id, identity), {
          set: { record: { ...record, logLevel: level } },
          deleted: [],
          appended: [],
        });
        await this.ctx.serverOptions.onSetLogLevel?.(level);
      },
    });
    // Progress and logs need a stream to travel on; every other answer is one JSON body.
    const streamed = call !== undefined && (call.params?._meta?.progressToken !== undefined || logLevel !== undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: generate, enableJsonResponse: !streamed });
    await server.connect(transport);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    if (key) {
      this.inflight.set(key, (cancel) => {
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
      if (key) this.inflight.delete(key);
      await server.close().catch(this.ctx.onError);
    }
  }

  /**
   * The store holding session records is down (see store-unavailable.ts): a tools/call gets its
   * tool result, anything else 503 with Retry-After, never the generic 500.
   */
  private storeDown(res: ServerResponse, body: unknown, error: StoreUnavailableError): void {
    this.ctx.onError(error);
    const single = isJSONRPCRequest(body) ? body : undefined;
    if (single?.method === 'tools/call') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: single.id, result: storeUnavailableResult() }));
      return;
    }
    res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    sendError(res, 503, STORE_UNAVAILABLE_RPC_CODE, STORE_UNAVAILABLE_MESSAGE, { code: 'STORE_UNAVAILABLE' }, single?.id);
  }
}
