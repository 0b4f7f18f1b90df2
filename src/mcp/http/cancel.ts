import { createHash } from 'node:crypto';
import { isJSONRPCNotification, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { ToolwrightError } from '../../errors/errors';

/** The store channel on which stateless servers pass on cancellations (see StatelessRelay). */
export const CANCEL_CHANNEL = 'mcp-cancel';
/** A cancellation's reason travels at most this long (a NOTIFY payload is bounded). */
const MAX_REASON_CHARS = 1000;
/** A request id longer than this (as JSON) is not passed on to other processes. */
const MAX_REQUEST_ID_CHARS = 1000;

export type CancelNotification = JSONRPCNotification & { params: { requestId: string | number; reason?: unknown } };

/** A cancellation as published on the store's channel: MCP session id, owner digest, request id, reason. */
interface CancelNotice {
  s: string;
  o: string;
  r: string | number;
  m?: string;
}

/**
 * Keys seen lately, oldest dropped first (by age or count): cancellations that found no call here,
 * so that a call arriving after its own cancellation (MCP ids are never reused in a session) is
 * not run. Bounded: a client sending many cancellations only pushes out older ones.
 */
export class RecentKeys {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  remember(key: string): void {
    const now = Date.now();
    this.seen.delete(key);
    this.seen.set(key, now);
    for (const [oldest, at] of this.seen) {
      if (this.seen.size <= this.max && now - at < this.ttlMs) break;
      this.seen.delete(oldest);
    }
  }

  /** Whether `key` was remembered (and not too long ago); forgets it. */
  take(key: string): boolean {
    const at = this.seen.get(key);
    if (at === undefined) return false;
    this.seen.delete(key);
    return Date.now() - at < this.ttlMs;
  }
}

/** A call in flight: MCP session, owner (digest) and request id. */
export function inflightKey(sessionId: string, owner: string, requestId: unknown): string {
  return `${sessionId}\u0000${owner}\u0000${JSON.stringify(requestId)}`;
}

/** Who owns a session, as it travels between processes: fixed length, and no user id in the clear. */
export function ownerDigest(owner: string): string {
  return createHash('sha256').update(owner, 'utf8').digest('base64url');
}

/** The notification, if `body` is a `notifications/cancelled` naming a request. */
export function cancelTarget(body: unknown): CancelNotification | undefined {
  if (!isJSONRPCNotification(body) || body.method !== 'notifications/cancelled') return undefined;
  const requestId = (body.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? (body as CancelNotification) : undefined;
}

/** The channel message passing `cancel` on, or undefined when its request id is too long to travel. */
export function noticeText(sessionId: string, owner: string, cancel: CancelNotification): string | undefined {
  const { requestId, reason } = cancel.params;
  if (JSON.stringify(requestId).length > MAX_REQUEST_ID_CHARS) return undefined;
  const notice: CancelNotice = { s: sessionId, o: ownerDigest(owner), r: requestId };
  if (typeof reason === 'string') notice.m = reason.slice(0, MAX_REASON_CHARS);
  return JSON.stringify(notice);
}

/** A channel message as the cancellation it carries and the in-flight key of its call; undefined for anything else (anyone with the store can publish). */
export function parseNotice(message: string): { key: string; cancel: CancelNotification } | undefined {
  let notice: Partial<CancelNotice>;
  try {
    notice = JSON.parse(message) as Partial<CancelNotice>;
  } catch {
    return undefined;
  }
  if (notice === null || typeof notice !== 'object' || typeof notice.s !== 'string' || typeof notice.o !== 'string') return undefined;
  if (typeof notice.r !== 'string' && typeof notice.r !== 'number') return undefined;
  if (notice.m !== undefined && typeof notice.m !== 'string') return undefined;
  const params = notice.m === undefined ? { requestId: notice.r } : { requestId: notice.r, reason: notice.m };
  return { key: inflightKey(notice.s, notice.o, notice.r), cancel: { jsonrpc: '2.0', method: 'notifications/cancelled', params } };
}

/** What a stateless server reports (onError) when the store cannot pass a cancellation on. */
export function cancelUndelivered(what: string, cause: unknown): ToolwrightError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ToolwrightError('STORE_UNAVAILABLE', `MCP cancellation: ${what} (${detail}).`, { cause });
}
