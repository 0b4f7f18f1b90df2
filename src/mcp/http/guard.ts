import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { BodyTooLarge, readBody } from '../../request-body/read-body';
import { IDENTITY_KEY, type McpIdentity } from '../mcp-server';
import { invalidMessage } from '../stdio';
import { bearerToken } from './auth';
import type { ServeContext } from './context';
import type { HttpLimits, HttpServeOptions } from './options';
import { headerValue, sendError, tooLarge } from './respond';

/** Who sends a request, and whose sessions it may use. */
export interface Caller {
  identity: McpIdentity;
  /** Tenant and user a session is bound to; empty without auth (every caller is the same). */
  owner: string;
}

/** A request let through, with its parsed body (POST only). */
export interface Admitted extends Caller {
  body: unknown;
}

/**
 * The checks every request passes before any session is looked at: path, Host and Origin (DNS
 * rebinding and cross-site requests), declared body size, auth, then the body itself.
 */
export class RequestGuard {
  private allowedHosts: string[] | undefined;
  private allowedOrigins: string[] | undefined;

  constructor(
    private readonly options: HttpServeOptions,
    private readonly limits: HttpLimits,
    private readonly ctx: ServeContext,
  ) {
    this.allowedHosts = options.allowedHosts?.map((h) => h.toLowerCase());
    this.allowedOrigins = options.allowedOrigins?.map((o) => o.toLowerCase());
  }

  /** Bound to loopback on `port`: unless given, only the server's own loopback names and origins are accepted. */
  allowLoopback(port: number): void {
    const names = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`);
    this.allowedHosts ??= names;
    this.allowedOrigins ??= names.map((h) => `http://${h}`);
  }

  /** The request, if let through; otherwise undefined, and it has been answered. */
  async admit(req: IncomingMessage, res: ServerResponse): Promise<Admitted | undefined> {
    if (!this.headersPass(req, res)) return undefined;
    const caller = await this.authenticate(req, res);
    if (!caller) return undefined;
    const message = await this.readMessage(req, res);
    return message && { ...caller, body: message.body };
  }

  private headersPass(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== this.limits.path) return refuse(res, 404, -32601, `Not found: the MCP endpoint is ${this.limits.path}.`);
    const host = headerValue(req, 'host')?.toLowerCase();
    if (this.allowedHosts && (!host || !this.allowedHosts.includes(host))) return refuse(res, 403, -32000, 'Forbidden: Host not allowed.');
    const origin = headerValue(req, 'origin')?.toLowerCase();
    if (origin !== undefined && !(this.allowedOrigins ?? []).includes(origin))
      return refuse(res, 403, -32000, 'Forbidden: Origin not allowed.');
    const declared = Number(headerValue(req, 'content-length') ?? 0);
    if (declared > this.limits.maxBodyBytes) {
      tooLarge(res, this.limits.maxBodyBytes);
      return false;
    }
    return true;
  }

  private async authenticate(req: IncomingMessage, res: ServerResponse): Promise<Caller | undefined> {
    const { auth } = this.options;
    if (!auth) return { identity: this.ctx.fallbackIdentity, owner: '' };
    const token = bearerToken(req);
    let identity: McpIdentity | undefined;
    try {
      identity = (await auth({ token, request: req })) ?? undefined;
    } catch (error) {
      this.ctx.onError(error);
    }
    if (!identity) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      sendError(res, 401, -32001, 'Unauthorized: send a valid "Authorization: Bearer <token>" header.');
      return undefined;
    }
    (req as IncomingMessage & { auth?: AuthInfo }).auth = {
      token: token ?? '',
      clientId: identity.userId,
      scopes: [],
      extra: { [IDENTITY_KEY]: identity },
    };
    return { identity, owner: `${identity.tenantId ?? ''}\u0000${identity.userId}` };
  }

  private async readMessage(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | undefined> {
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(await readBody(req, this.limits.maxBodyBytes));
      } catch (error) {
        if (error instanceof BodyTooLarge) tooLarge(res, this.limits.maxBodyBytes);
        else sendError(res, 400, -32700, 'Parse error: the request body is not valid JSON.');
        return undefined;
      }
    }
    // JSON-RPC 2.0: valid JSON that is not a request is -32600 (the transport says -32700), an empty batch too (it answers 202).
    if (Array.isArray(body) && body.length === 0) return void sendError(res, 400, -32600, 'Invalid Request: an empty batch.');
    const invalid = req.method === 'POST' ? (Array.isArray(body) ? body : [body]).map(invalidMessage).find(Boolean) : undefined;
    if (invalid) return void sendError(res, 400, -32600, invalid);
    return { body };
  }
}

/** Answers a refused request; false, for the check that refused it to return. */
function refuse(res: ServerResponse, status: number, code: number, message: string): false {
  sendError(res, status, code, message);
  return false;
}
