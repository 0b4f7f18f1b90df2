/**
 * A chat response written at its client's pace, for both doors: the next chunk (and so the run's
 * next event, and the model's next part) is asked for only once the client took the last one, and
 * a client that takes nothing for `timeoutMs` while a chunk waits for it is given up.
 */
import type { ServerResponse } from 'node:http';
import { ClientTooSlowError } from './client-too-slow.error';

/** What a door does with a client that stopped reading: cancel its run (with the error as the reason). */
export type GiveUp = (error: ClientTooSlowError) => void;

/**
 * node:http: each chunk written once the last was taken (`write()` returned true, or 'drain'), so
 * what the process holds for one client is the socket's buffer and one chunk. Stops when the
 * client goes away (`closed`); a client that does not drain within `timeoutMs` loses its socket.
 */
export async function writeNodeResponse(
  res: ServerResponse,
  chunks: AsyncIterable<string>,
  closed: AbortSignal,
  timeoutMs: number,
  giveUp: GiveUp,
): Promise<void> {
  for await (const text of chunks) {
    if (closed.aborted) break; // leaving the loop returns the stream: the run ends
    if (res.write(text) || (await drained(res, timeoutMs))) continue;
    giveUp(new ClientTooSlowError(timeoutMs));
    // Ending would wait for the same client to read what is buffered: the socket goes, with it.
    res.destroy();
    break;
  }
}

/**
 * Fetch-style: a pull-based body (one chunk ahead of the runtime reading it). Between a chunk
 * handed over and the next pull the client's clock runs; past `timeoutMs` the body errors with
 * ClientTooSlowError. A pull waiting on the run (a slow tool, a slow model) is not the client's time.
 */
export function readableResponse(
  chunks: AsyncGenerator<string>,
  timeoutMs: number,
  giveUp: GiveUp,
  abort: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pulling = false;
  let timer: NodeJS.Timeout | undefined;
  let body: ReadableStreamDefaultController<Uint8Array>;
  const stalled = () => {
    if (pulling) return; // the run is slow, not the client: the clock restarts once the chunk is handed over
    const error = new ClientTooSlowError(timeoutMs);
    giveUp(error);
    body.error(error);
    void chunks.return(undefined).catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body = controller;
    },
    async pull(controller) {
      pulling = true;
      const next = await chunks.next();
      pulling = false;
      if (next.done) {
        clearTimeout(timer);
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(next.value));
      // One timer a response, restarted per chunk (refresh costs no allocation).
      if (timer) timer.refresh();
      else timer = setTimeout(stalled, timeoutMs).unref();
    },
    async cancel() {
      clearTimeout(timer);
      abort();
      await chunks.return(undefined);
    },
  });
}

/** Resolves true once the response drained (or closed: the caller sees `closed`), false after `timeoutMs`. */
function drained(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (took: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(took);
    };
    const onDrain = () => done(true);
    const timer = setTimeout(done, timeoutMs, false);
    res.on('drain', onDrain);
    res.on('close', onDrain);
  });
}
