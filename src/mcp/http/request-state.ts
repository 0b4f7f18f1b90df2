import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidRequestStateError } from '../../errors/input-errors';
import { McpServeConfigError } from './options';

/** What a requestState is issued for: one caller, one request (method, tool or prompt or URI, arguments). */
export interface StateBinding {
  owner: string;
  method: string;
  target: unknown;
  args: unknown;
}

/** How long a requestState is honoured: a person answers within minutes, not days. */
export const REQUEST_STATE_TTL_MS = 15 * 60_000;
const VERSION = 1;

/**
 * The `requestState` of MCP 2026-07-28's multi-round requests: the answers a call got so far,
 * signed (HMAC-SHA256) with the server's secret and bound to the caller and the request, so a
 * client can neither alter them, nor carry them to another request or caller, nor use them after
 * REQUEST_STATE_TTL_MS. Not a one-time ticket: the answers came from the client in the first place,
 * and sending them again gets the same request the same answers. Replicas verify each other's
 * states when they share the secret (`requestStateSecret`); without one each process makes its own.
 */
export class RequestStateSeal {
  private readonly key: Buffer;

  constructor(
    secret: string | Uint8Array | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.key = secret === undefined ? randomBytes(32) : Buffer.from(secret as Uint8Array);
    if (secret !== undefined && (typeof secret === 'string' ? Buffer.byteLength(secret) : secret.byteLength) < 32)
      throw new McpServeConfigError('serveHttp: requestStateSecret must be at least 32 bytes (e.g. 32 random bytes, base64).');
  }

  seal(binding: StateBinding, answers: Record<string, unknown>): string {
    const payload = Buffer.from(
      JSON.stringify({ v: VERSION, b: digest(binding), x: this.now() + REQUEST_STATE_TTL_MS, a: answers }),
      'utf8',
    );
    return `${payload.toString('base64url')}.${this.mac(payload).toString('base64url')}`;
  }

  /** The answers a state carries; throws InvalidRequestStateError for any state this server did not issue for this request. */
  open(state: unknown, binding: StateBinding): Record<string, unknown> {
    if (typeof state !== 'string') throw new InvalidRequestStateError('it must be the string the server sent');
    const [body, mac, rest] = state.split('.');
    if (rest !== undefined || !body || !mac) throw new InvalidRequestStateError('it is not a requestState this server issued');
    const payload = Buffer.from(body, 'base64url');
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(payload);
    // Decoding skips what is not base64url: only the canonical text of the right bytes passes.
    const canonical = payload.toString('base64url') === body && given.toString('base64url') === mac;
    if (!canonical || given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new InvalidRequestStateError('its integrity check failed (altered, or signed with another secret)');
    const parsed = JSON.parse(payload.toString('utf8')) as { v: number; b: string; x: number; a: Record<string, unknown> };
    if (parsed.v !== VERSION || parsed.b !== digest(binding))
      throw new InvalidRequestStateError('it was issued to another caller or for another request');
    if (parsed.x <= this.now()) throw new InvalidRequestStateError('it has expired');
    return parsed.a;
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}

function digest(binding: StateBinding): string {
  const text = canonicalJson([binding.owner, binding.method, binding.target ?? null, binding.args ?? null]);
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** JSON with object keys sorted: the same arguments sent in another key order bind the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
