import { isIP } from 'node:net';
import { ToolwrightConfigError } from '../../errors/errors';
import type { McpServerOptions } from '../mcp-server';
import type { McpAuthHook } from './auth';

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
  /**
   * The secret that signs MCP 2026-07-28 `requestState`s (the answers a multi-round call got so far,
   * bound to the caller and the request), at least 32 bytes. Give every replica behind one endpoint
   * the same secret, so any of them accepts the state another issued; unset, each process makes a
   * random one (and a state does not survive its restart).
   */
  requestStateSecret?: string | Uint8Array;
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

/** Where serveHttp listens and how much it accepts, defaults filled in. */
export interface HttpLimits {
  host: string;
  path: string;
  maxBodyBytes: number;
  maxSessions: number;
  idleMs: number;
}

const DEFAULT_MAX_SESSIONS = 1000;
const DEFAULT_IDLE_MS = 30 * 60_000;

/** The limits of `options`, defaults filled in; throws McpServeConfigError for an unsafe or impossible setup. */
export function httpLimits(options: HttpServeOptions): HttpLimits {
  const limits: HttpLimits = {
    host: options.host ?? '127.0.0.1',
    path: options.path ?? '/mcp',
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleMs: options.sessionIdleTimeoutMs ?? DEFAULT_IDLE_MS,
  };
  checkOptions(options, limits);
  return limits;
}

function checkOptions(options: HttpServeOptions, { host, maxSessions, idleMs, maxBodyBytes }: HttpLimits): void {
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

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
