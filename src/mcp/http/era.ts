import type { IncomingMessage } from 'node:http';
import { LOG_LEVELS } from '../../session/tool-log';
import { headerValue } from './respond';

/** The stateless revision served beside the 2025 ones (initialize and sessions) on the same endpoint. */
export const MODERN_VERSION = '2026-07-28';

/** The per-request envelope's `_meta` keys (2026-07-28: every request says what it needs). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** JSON-RPC codes 2026-07-28 adds; each is answered with HTTP 400. */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;

/** A 2026-07-28 message: one request or notification, never a batch. */
export interface ModernMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** A request refused before it is served, with the id it carried (errors echo it). */
export interface Refusal {
  status: number;
  code: number;
  message: string;
  data?: object;
  id?: string | number;
}

export type Era = { era: 'legacy' } | { era: 'modern'; message: ModernMessage; version: string } | { era: 'refused'; refusal: Refusal };

const LEGACY: Era = { era: 'legacy' };

/**
 * Which revision a request speaks, decided by its body as the SDK's v2 entry does: a request whose
 * `_meta` names a protocol version (or whose MCP-Protocol-Version header names 2026-07-28 or later)
 * is 2026-07-28; an initialize, a batch, a GET/DELETE or anything else without that claim is 2025.
 * Contradictions between the headers and the body are refused here, before anything runs.
 */
export function classify(req: IncomingMessage, body: unknown): Era {
  if (req.method !== 'POST') return LEGACY;
  if (Array.isArray(body)) {
    if (body.some((m) => hasClaim(isObject(m) ? m.params : undefined)))
      return refused(400, -32600, 'Invalid Request: a batch cannot carry 2026-07-28 requests.');
    return LEGACY;
  }
  if (!isObject(body) || typeof body.method !== 'string') return LEGACY;
  const message = body as unknown as ModernMessage;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
  const request = 'id' in body;
  const headerVersion = trimmed(headerValue(req, 'mcp-protocol-version'));
  const headerMethod = trimmed(headerValue(req, 'mcp-method'));
  const headerModern = headerVersion !== undefined && isModernVersion(headerVersion);
  const params = isObject(body.params) ? body.params : undefined;
  if (!hasClaim(params)) {
    if (message.method === 'initialize' && headerModern)
      return mismatch(headerVersion, 'an initialize (the 2025 handshake) was sent with a 2026-07-28 MCP-Protocol-Version header', id);
    if (!headerModern) return LEGACY;
    if (!request) return { era: 'modern', message, version: headerVersion };
    return refused(400, -32602, `Invalid params: the request has no _meta.${META.protocolVersion}.`, id, {
      envelope: { missing: missingKeys(params) },
    });
  }
  const meta = params!._meta as Record<string, unknown>;
  const issue = envelopeIssue(meta, request);
  if (issue) return refused(400, -32602, `Invalid params: _meta.${issue}.`, id, { envelope: { problem: issue } });
  const version = meta[META.protocolVersion] as string;
  if (headerVersion !== undefined && headerVersion !== version)
    return mismatch(headerVersion, `the body names protocol version ${version}, the MCP-Protocol-Version header ${headerVersion}`, id);
  if (headerMethod !== undefined && headerMethod !== message.method)
    return mismatch(headerMethod, `the body names method ${message.method}, the Mcp-Method header ${headerMethod}`, id);
  return { era: 'modern', message, version };
}

/** The methods whose Mcp-Name header mirrors a params field (SEP-2243, and the tasks extension). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * The standard headers a 2026-07-28 request must carry (MCP-Protocol-Version, Mcp-Method, and
 * Mcp-Name where the method names something) and agree with its body; notifications are exempt.
 */
export function headerRefusal(req: IncomingMessage, message: ModernMessage): Refusal | undefined {
  if (message.id === undefined) return undefined;
  const id = message.id;
  if (trimmed(headerValue(req, 'mcp-protocol-version')) === undefined)
    return mismatch('(missing)', 'the MCP-Protocol-Version header is required', id).refusal;
  if (trimmed(headerValue(req, 'mcp-method')) === undefined) return mismatch('(missing)', 'the Mcp-Method header is required', id).refusal;
  const field = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method] : undefined;
  if (field === undefined) return undefined;
  const raw = message.params?.[field];
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  const header = trimmed(headerValue(req, 'mcp-name'));
  if (header === undefined)
    return bodyValue === undefined
      ? undefined
      : mismatch('(missing)', `params.${field} is set but the Mcp-Name header is missing`, id).refusal;
  const decoded = decodeHeaderValue(header);
  if (decoded === undefined) return mismatch(header, 'the Mcp-Name header has an invalid Base64 value', id).refusal;
  if (bodyValue !== undefined && decoded !== bodyValue)
    return mismatch(header, `params.${field} is ${JSON.stringify(bodyValue)} but the Mcp-Name header names ${JSON.stringify(decoded)}`, id)
      .refusal;
  return undefined;
}

/** A header value as sent, or its `=?base64?...?=` form decoded (undefined when that form is malformed). */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?(.*)\?=$/i.exec(value);
  if (!sentinel) return value;
  const encoded = sentinel[1];
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

export function isModernVersion(version: string): boolean {
  return version >= MODERN_VERSION;
}

function hasClaim(params: unknown): boolean {
  return isObject(params) && isObject(params._meta) && Object.hasOwn(params._meta, META.protocolVersion);
}

/** The first problem with a request's envelope, as `<key>: <problem>`. */
function envelopeIssue(meta: Record<string, unknown>, request: boolean): string | undefined {
  if (typeof meta[META.protocolVersion] !== 'string') return `${META.protocolVersion}: expected a protocol version string`;
  if (!request) return undefined;
  if (!Object.hasOwn(meta, META.clientCapabilities)) return `${META.clientCapabilities}: missing`;
  if (!isObject(meta[META.clientCapabilities])) return `${META.clientCapabilities}: expected an object`;
  const info = Object.hasOwn(meta, META.clientInfo) ? meta[META.clientInfo] : undefined;
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string'))
    return `${META.clientInfo}: expected { name, version }`;
  const level = Object.hasOwn(meta, META.logLevel) ? meta[META.logLevel] : undefined;
  if (level !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(level)) return `${META.logLevel}: not a log level`;
  return undefined;
}

function missingKeys(params: Record<string, unknown> | undefined): string[] {
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  if (!meta) return ['_meta'];
  return [META.protocolVersion, META.clientCapabilities].filter((key) => !Object.hasOwn(meta, key));
}

function mismatch(header: string, body: string, id: string | number | undefined): { era: 'refused'; refusal: Refusal } {
  return refused(400, HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${body}.`, id, { mismatch: { header, body } });
}

function refused(status: number, code: number, message: string, id?: string | number, data?: object): { era: 'refused'; refusal: Refusal } {
  return { era: 'refused', refusal: { status, code, message, data, id } };
}

/** A header value without the spaces and tabs around it (HTTP's optional whitespace), in linear time; empty as none. */
export function trimmed(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === ' ' || value[start] === '\t')) start++;
  while (end > start && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
  return start === end ? undefined : value.slice(start, end);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
