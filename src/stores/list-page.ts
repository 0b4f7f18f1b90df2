import { ToolwrightError } from '../errors/errors';
import type { ListOptions } from './store';
import { checkId } from './snapshot-rows';

/** A `listSessions` / `listMemories` option no store can serve: a limit out of range, a cursor it did not hand out. */
export class InvalidListOptionError extends ToolwrightError {
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super('INVALID_REQUEST', `Invalid ${option}: ${reason}.`, { captureStack: false });
  }
}

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

/** The options every store checks before any I/O: ids as any key, the limit, the cursor's shape (decoded by `decode`). */
export interface CheckedList<C> {
  tenant: string;
  tenantId?: string;
  userId?: string;
  limit: number;
  after?: C;
}

export function checkListOptions<C>(options: ListOptions, decode: (value: unknown) => C | undefined): CheckedList<C> {
  if (options.tenantId !== undefined) checkId('tenantId', options.tenantId);
  if (options.userId !== undefined) checkId('userId', options.userId);
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new InvalidListOptionError('limit', `expected an integer from 1 to ${MAX_LIST_LIMIT}, got ${String(limit)}`);
  let after: C | undefined;
  if (options.after !== undefined) {
    after = typeof options.after === 'string' ? decode(parseCursor(options.after)) : undefined;
    if (after === undefined) throw new InvalidListOptionError('after', 'not a cursor this store handed out');
  }
  return { tenant: options.tenantId ?? '', tenantId: options.tenantId, userId: options.userId, limit, after };
}

/** Cursors are JSON in base64url: opaque to callers, safe in a URL. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function parseCursor(text: string): unknown {
  if (text.length > 64 * 1024 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A cursor of `n` strings (the last listed row's sort key), or undefined. */
export function stringTuple(n: number): (value: unknown) => string[] | undefined {
  return (value) => (Array.isArray(value) && value.length === n && value.every((v) => typeof v === 'string') ? value : undefined);
}
