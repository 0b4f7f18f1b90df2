import type { IncomingMessage } from 'node:http';

/** The body went past the caller's byte limit (the HTTP surfaces answer 413 and close). */
export class BodyTooLarge extends Error {}

/** Reads at most `limit` bytes of a node request; past it, stops at once (the 413 answer closes the connection). */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLarge());
      } else {
        chunks.push(chunk);
      }
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
