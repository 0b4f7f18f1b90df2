/**
 * What keeps the studio to the developer who started it: a loopback address only, a random token
 * (in the URL it prints) on every API call, and Host and Origin checks, so that a web page the
 * developer visits cannot reach it, not even through DNS rebinding.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ToolwrightConfigError } from '../errors/errors';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Throws for a bind address that is not loopback: the studio runs tools as any user it is told. */
export function checkLoopback(host: string): void {
  const bare = host.replace(/^\[|\]$/g, '');
  const loopback = bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
  if (!loopback)
    throw new ToolwrightConfigError(`The studio listens on loopback only (127.0.0.1, ::1, localhost), not on ${JSON.stringify(host)}.`);
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The Host names a request may carry, for a server on `port`. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, host]);
  return new Set([...names].map((name) => `${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}:${port}`));
}

/** Why a request is refused (403), or undefined when its Host and Origin are the studio's own. */
export function refusal(req: IncomingMessage, hosts: ReadonlySet<string>): string | undefined {
  const host = req.headers.host?.toLowerCase();
  if (!host || !hosts.has(host)) return 'This Host is not the studio: open the URL it printed.';
  const origin = req.headers.origin;
  // Browsers send Origin on every cross-origin request and on same-origin POSTs: only the studio's own page may call.
  if (origin !== undefined && !(hosts.has(origin.replace(/^http:\/\//, '').toLowerCase()) && origin.startsWith('http://')))
    return 'Requests from other origins are refused.';
  if (req.headers['sec-fetch-site'] === 'cross-site') return 'Requests from other sites are refused.';
  return undefined;
}

/** Whether the request carries the token (`Authorization: Bearer <token>`), compared in constant time. */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
