import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../registry/tool-registry';
import { InMemoryStore } from '../stores/in-memory.store';
import { createMcpServer, IDENTITY_KEY, type McpIdentity, type McpServerOptions } from './mcp-server';

export interface StdioHandle {
  readonly server: Server;
  close(): Promise<void>;
}

/** Serves the registry over this process's stdin/stdout (one MCP session). Nothing else may write to stdout. */
export async function serveStdio(registry: ToolRegistry, options: McpServerOptions = {}): Promise<StdioHandle> {
  const server = createMcpServer(registry, options);
  await server.connect(new StdioServerTransport());
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
  /** Without it every request is served as `identity` (or `anonymous`). */
  auth?: McpAuthHook;
  /**
   * Host headers accepted (DNS-rebinding protection). Default: when bound to loopback,
   * `127.0.0.1:<port>` and `localhost:<port>`; otherwise any.
   */
  allowedHosts?: string[];
  /** Largest accepted request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

export interface HttpHandle {
  /** `http://host:port/path`, ready for `StreamableHTTPClientTransport`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  /** Closes every MCP session and the HTTP server. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Serves the registry over MCP Streamable HTTP (stateful: one MCP server, and one AgentContext,
 * per MCP session). With `auth`, every request must map to an identity, and a session can only be
 * used by the identity that opened it.
 */
export async function serveHttp(registry: ToolRegistry, options: HttpServeOptions = {}): Promise<HttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const serverOptions: McpServerOptions = { ...options, store: options.store ?? new InMemoryStore() };
  const onError = options.onError ?? ((error: unknown) => process.stderr.write(`toolwright mcp: ${String(error)}\n`));
  const sessions = new Map<string, Session>();
  let allowedHosts = options.allowedHosts;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${path}.`);

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

    const sessionId = headerValue(req, 'mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // The same answer for "unknown" and "someone else's": session ids are not to be probed.
      if (!session || session.owner !== owner) return sendError(res, 404, -32001, 'Session not found: start a new MCP session (initialize).');
      return session.transport.handleRequest(req, res);
    }

    if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize (POST) first.');
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, maxBodyBytes));
    } catch (error) {
      if (error instanceof BodyTooLarge) return sendError(res, 413, -32600, `Request body is larger than ${maxBodyBytes} bytes.`);
      return sendError(res, 400, -32700, 'Parse error: the request body is not valid JSON.');
    }
    if (!isInitializeRequest(body)) return sendError(res, 400, -32000, 'Bad request: no MCP session. Send initialize first, then the mcp-session-id header it returns.');

    const server = createMcpServer(registry, serverOptions);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, owner });
      },
      ...(allowedHosts ? { allowedHosts, enableDnsRebindingProtection: true } : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
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
  if (!allowedHosts && LOOPBACK.has(host)) allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    host,
    sessionCount: () => sessions.size,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((s) => s.server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '');
  return match?.[1];
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is drained unread, so the 413 answer still reaches the client.
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => (size > limit ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
