import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { errorText } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import { InMemoryStore } from '../stores/in-memory.store';
import { createMcpServer, type McpServerOptions } from './mcp-server';
import { StdioLineTransport } from './stdio';
import type { ServeContext } from './http/context';
import { classify } from './http/era';
import { RequestGuard } from './http/guard';
import { ModernServing } from './http/modern';
import { httpLimits, isLoopback, type HttpHandle, type HttpServeOptions } from './http/options';
import { headerValue, sendError } from './http/respond';
import { SessionTable } from './http/session-table';
import { StatelessRelay } from './http/stateless';

export { tokenAuth, type McpAuthHook, type McpAuthRequest } from './http/auth';
export { McpServeConfigError, type HttpHandle, type HttpServeOptions } from './http/options';

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

/**
 * Serves the registry over MCP Streamable HTTP: one MCP server, and one AgentContext, per MCP
 * session (or, with `stateless`, everything in a shared store). With `auth`, every request must
 * map to an identity, and a session can only be used by the identity that opened it. Host and
 * Origin are checked on every request, bodies are bounded, sessions are bounded in number and
 * idle time, and what a session stored is removed when it ends (DELETE, expiry, eviction).
 */
export async function serveHttp(registry: ToolRegistry, options: HttpServeOptions = {}): Promise<HttpHandle> {
  const limits = httpLimits(options);
  const ctx = serveContext(registry, options);
  const guard = new RequestGuard(options, limits, ctx);
  const sessions = new SessionTable(ctx, limits.maxSessions, limits.idleMs);
  const relay = options.stateless ? await StatelessRelay.start(ctx) : undefined;
  const modern = new ModernServing(ctx);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await guard.admit(req, res);
    if (!request) return;
    // 2026-07-28 (no session, each request self-contained) or 2025 (initialize, then a session): told apart by the body.
    const era = classify(req, request.body);
    if (era.era === 'refused')
      return sendError(res, era.refusal.status, era.refusal.code, era.refusal.message, era.refusal.data, era.refusal.id);
    if (era.era === 'modern') return modern.serve(req, res, request, era.message, era.version);
    const sessionId = headerValue(req, 'mcp-session-id');
    await (relay ?? sessions).serve(req, res, request, sessionId);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      ctx.onError(error);
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, limits.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  if (isLoopback(limits.host)) guard.allowLoopback(port);

  const { host, path } = limits;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    host,
    sessionCount: () => sessions.size,
    close: async () => {
      await sessions.closeAll();
      await relay?.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The store (a fresh InMemoryStore by default), memory scope and error sink every part of serveHttp shares. */
function serveContext(registry: ToolRegistry, options: HttpServeOptions): ServeContext {
  const store = options.store ?? new InMemoryStore();
  const memoryScope = options.memoryScope ?? (options.auth ? 'user' : 'session');
  return {
    registry,
    store,
    serverOptions: { ...options, store, memoryScope },
    fallbackIdentity: options.identity ?? { userId: 'anonymous' },
    stateless: options.stateless === true,
    requestStateSecret: options.requestStateSecret,
    onError: options.onError ?? ((error: unknown) => process.stderr.write(`toolwright mcp: ${errorText(error)}\n`)),
  };
}
