/**
 * What one request gets: the run's stream, a JSON body (a restored chat), or a refusal; and which
 * refusal each error is, decided before the stream starts so the client can tell it from a failed run.
 */
import { ToolwrightError, type ErrorCode } from '../errors/errors';
import { ChatRequestError } from './chat-request';

export type Answer =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { stream: AsyncGenerator<string>; abort: (reason?: unknown) => void };

/** The 409 a message gets while the chat waits for an approval or an answer: words for the person at the page. */
export const PAUSED_MESSAGE =
  'This chat is waiting for you to approve or deny an action, or to answer a question. Answer that request first, then send your message again.';

/** The 503 while the store is down: no backend's error text (hosts, ports) reaches the browser. */
export const STORE_UNAVAILABLE_MESSAGE = "The chat's storage is unavailable right now; try again in a moment.";

/** Agent errors a client can cause, answered before the stream starts. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_ID: 400,
  SESSION_FORBIDDEN: 403,
  RUN_PAUSED: 409,
  RUN_CLAIMED: 409,
  RUN_NOT_FOUND: 409,
  APPROVAL_ALREADY_DECIDED: 409,
  INVALID_APPROVAL: 409,
  STORE_UNAVAILABLE: 503,
};

/** What a client is told to wait before trying again while the store is down (Retry-After, seconds). */
const STORE_RETRY_AFTER_SECONDS = 5;

export interface ErrorAnswerOptions {
  /** The methods the endpoint takes, for a 405's Allow header. */
  allow: string;
  /** Where errors that are not the client's go (they are answered 500). */
  report: (error: unknown) => void;
}

export function errorAnswer(error: unknown, { allow, report }: ErrorAnswerOptions): Answer {
  if (error instanceof ChatRequestError) return refusal(error.status, error.code, error.message, extraHeaders(error.status, allow));
  if (error instanceof ToolwrightError && error.code === 'RUN_PAUSED')
    // Read by the person at the page, who answers approvals there, not by a developer (see docs/ecosystem.md).
    return refusal(409, error.code, PAUSED_MESSAGE);
  if (error instanceof ToolwrightError && error.code === 'STORE_UNAVAILABLE')
    return refusal(503, error.code, STORE_UNAVAILABLE_MESSAGE, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
  if (error instanceof ToolwrightError && STATUS[error.code] !== undefined) return refusal(STATUS[error.code]!, error.code, error.message);
  report(error);
  return refusal(500, 'INTERNAL', 'The chat request failed.');
}

function extraHeaders(status: number, allow: string): Record<string, string> {
  if (status === 413) return { connection: 'close' };
  if (status === 405) return { allow };
  return {};
}

function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, json: { error: { code, message } } };
}
