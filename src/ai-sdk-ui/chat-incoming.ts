/**
 * A request as both doors (fetch and node:http) hand it to the handler, and its body read within
 * the handler's bounds.
 */
import type { IncomingMessage } from 'node:http';
import { BodyTooLarge } from '../request-body/read-body';
import { ChatRequestError } from './chat-request';

export interface Incoming {
  method: string | undefined;
  headers: Headers;
  /** The request's path and query (node) or whole URL (fetch). */
  url: string;
  /** Reads the body, at most `limit` bytes (throws BodyTooLarge past it); an object when a framework parsed it already. */
  read(limit: number): Promise<string | object>;
  signal?: AbortSignal;
  request?: Request;
  incoming?: IncomingMessage;
}

/** The JSON body, refused (415, 413) rather than read when it is not JSON or larger than `maxBodyBytes`. */
export async function readChatBody(incoming: Incoming, maxBodyBytes: number): Promise<string | object> {
  const type = incoming.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  // Only application/json: a cross-site form (text/plain) cannot then start a run with the user's cookies.
  if (type !== 'application/json') throw new ChatRequestError(415, 'Send the messages as JSON (Content-Type: application/json).');
  if (Number(incoming.headers.get('content-length') ?? 0) > maxBodyBytes) throw tooLarge(maxBodyBytes);
  try {
    return await incoming.read(maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw tooLarge(maxBodyBytes);
    throw error;
  }
}

function tooLarge(limit: number): ChatRequestError {
  return new ChatRequestError(413, `The request body is larger than ${limit} bytes (maxBodyBytes).`);
}
