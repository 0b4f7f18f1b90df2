/**
 * Answers one request to the studio: the guard first, then `/api/*` (token, JSON in and out), else
 * the page's files.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as sjson from 'secure-json-parse';
import { ToolwrightError, type ErrorCode } from '../errors/errors';
import { BodyTooLarge, readBody } from '../request-body/read-body';
import { SECURITY_HEADERS, sendAsset, type Asset } from './assets';
import { hasToken, refusal } from './guard';
import { matchRoute, type StudioIdentity, type StudioRoute } from './routes';

const MAX_BODY = 1024 * 1024;
const MAX_ID = 256;

export interface ServerParts {
  routes: readonly StudioRoute[];
  assets: ReadonlyMap<string, Asset>;
  hosts: ReadonlySet<string>;
  token: string;
  defaultIdentity: StudioIdentity;
  onError: (error: unknown) => void;
}

export function sendJson(res: ServerResponse, status: number, json: unknown): void {
  const body = JSON.stringify(json);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(
  res: ServerResponse,
  status: number,
  code: ErrorCode | 'FORBIDDEN' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'PAYLOAD_TOO_LARGE' | 'INTERNAL',
  message: string,
): void {
  sendJson(res, status, { error: { code, message } });
}

const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  TOOL_NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  PROMPT_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  SESSION_FORBIDDEN: 403,
  INVALID_ARGUMENTS: 422,
  STORE_UNAVAILABLE: 503,
};

export async function answer(parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refused = refusal(req, parts.hosts);
  if (refused) return sendError(res, 403, 'FORBIDDEN', refused);
  const url = new URL(req.url ?? '/', 'http://studio.invalid');
  if (!url.pathname.startsWith('/api/')) {
    const asset = req.method === 'GET' || req.method === 'HEAD' ? parts.assets.get(url.pathname) : undefined;
    return asset ? sendAsset(res, asset, req.method === 'HEAD') : sendError(res, 404, 'NOT_FOUND', 'No such page.');
  }
  if (!hasToken(req, parts.token))
    return sendError(res, 401, 'UNAUTHORIZED', 'Open the studio with the URL it printed (it carries the token).');
  const found = matchRoute(parts.routes, req.method ?? 'GET', url.pathname);
  if (!found) return sendError(res, 404, 'NOT_FOUND', `No ${req.method} ${url.pathname}.`);
  const identity = identityOf(req, parts.defaultIdentity);
  if (typeof identity === 'string') return sendError(res, 400, 'INVALID_ID', identity);
  if (found.route.node) return found.route.node(req, res, identity);
  let body: unknown;
  if (req.method === 'POST') {
    try {
      const text = await readBody(req, MAX_BODY);
      body = text === '' ? undefined : sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        res.setHeader('connection', 'close');
        return sendError(res, 413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY} bytes.`);
      }
      return sendError(res, 400, 'INVALID_JSON', `The body is not JSON this studio takes: ${(error as Error).message}`);
    }
  }
  try {
    const result = await found.route.handle!({ params: found.params, query: url.searchParams, body, identity, raw: req });
    sendJson(res, result.status ?? 200, result.json);
  } catch (error) {
    if (error instanceof ToolwrightError) return sendError(res, STATUS_OF[error.code] ?? 400, error.code, error.message);
    parts.onError(error);
    sendError(res, 500, 'INTERNAL', 'The studio failed on this request; see its terminal.');
  }
}

/** The user and tenant the page chose (`x-studio-user`, `x-studio-tenant`), or why they are refused. */
function identityOf(req: IncomingMessage, fallback: StudioIdentity): StudioIdentity | string {
  let user: string | undefined, tenant: string | undefined;
  try {
    user = header(req, 'x-studio-user');
    tenant = header(req, 'x-studio-tenant');
  } catch {
    return 'User and tenant ids are sent URI-encoded.';
  }
  for (const value of [user, tenant])
    if (value !== undefined && (value.length > MAX_ID || [...value].some((c) => c.charCodeAt(0) < 32)))
      return `User and tenant ids are at most ${MAX_ID} printable characters.`;
  if (user === undefined) return fallback;
  return { userId: user, tenantId: tenant || undefined };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return decodeURIComponent(value.trim());
}
