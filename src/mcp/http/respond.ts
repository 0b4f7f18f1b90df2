import type { IncomingMessage, ServerResponse } from 'node:http';

/** The first value of a request header (Node gives a list for some). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Answers with a JSON-RPC error (id null unless given). */
export function sendError(res: ServerResponse, status: number, code: number, message: string, data?: object, id?: string | number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const error = data === undefined ? { code, message } : { code, message, data };
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: id ?? null }));
}

export function tooLarge(res: ServerResponse, limit: number): void {
  // The body is not read: the connection cannot be reused, so it is closed after the answer.
  res.setHeader('Connection', 'close');
  sendError(res, 413, -32600, `Request body is larger than ${limit} bytes.`);
}
