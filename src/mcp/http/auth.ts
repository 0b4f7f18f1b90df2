import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { McpIdentity } from '../mcp-server';
import { headerValue } from './respond';

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

/** Compares bearer tokens in constant time (SHA-256 first, so lengths never differ). */
export function tokenAuth(tokens: Readonly<Record<string, McpIdentity>>): McpAuthHook {
  const known = Object.entries(tokens).map(([token, identity]) => ({ digest: sha256(token), identity }));
  return ({ token }) => {
    if (token === undefined) return undefined;
    const digest = sha256(token);
    let found: McpIdentity | undefined;
    // Every token is compared, so the time taken says nothing about which one matched.
    for (const entry of known) if (timingSafeEqual(entry.digest, digest)) found = entry.identity;
    return found;
  };
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '');
  return match?.[1];
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
