import { ModelError } from '../../errors/errors';

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes the official OpenAI and Anthropic SDKs share (both are generated alike). */
export interface SdkErrors {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass;
}

/** An SDK failure as a ModelError: HTTP status kept, `retryable` for timeouts, connection errors, 408/409/429/5xx. */
export function toModelError(provider: string, error: unknown, timeoutMs: number | undefined, sdk: SdkErrors): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof sdk.APIUserAbortError) return new ModelError(provider, 'request aborted', undefined, false, error);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError(provider, `no response within ${timeoutMs ?? 'the SDK default'} ms`, undefined, true, error);
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return new ModelError(provider, `connection failed${cause}`, undefined, true, error);
  }
  const status = error instanceof sdk.APIError ? (error as { status?: number }).status : undefined;
  if (status !== undefined) return new ModelError(provider, (error as Error).message, status, isRetryableStatus(status), error);
  return new ModelError(provider, error instanceof Error ? error.message : String(error), undefined, false, error);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500; // 529 "overloaded" (Anthropic) included
}

/**
 * A failure while reading a stream's body already under way, as a ModelError: a body that stops
 * being readable (socket reset, `terminated`) is a dropped connection, retryable, no status. What
 * the stream said (error events, shapes) is mapped where it is read (stream-shape.ts).
 */
export function toStreamError(provider: string, error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  const reason = error instanceof Error ? error.message + (error.cause instanceof Error ? ` (${error.cause.message})` : '') : String(error);
  return new ModelError(provider, `connection lost mid-stream: ${reason}`, undefined, true, error);
}

/** A stream that ended before the provider said it was done: cut short, as retryable as a dropped connection. */
export function streamCut(provider: string, missing: string): ModelError {
  return new ModelError(provider, `connection lost mid-stream: the stream ended before ${missing}`, undefined, true);
}

/** After a stream's body was read: the caller's abort, or ours on a stream gone quiet, as the ModelError it is. */
export function throwIfAborted(
  provider: string,
  requested: AbortSignal | undefined,
  idle: AbortSignal,
  timeoutMs: number | undefined,
): void {
  if (requested?.aborted) throw new ModelError(provider, 'request aborted', undefined, false, requested.reason);
  if (idle.aborted) throw new ModelError(provider, `connection lost mid-stream: no data for ${timeoutMs} ms`, undefined, true);
}

/**
 * A stream whose provider may go quiet: the SDKs' `timeout` ends once the headers arrive, so a
 * stalled stream would wait forever. Each wait for the next chunk is bounded by `timeoutMs` (time
 * the consumer spends between chunks does not count); when it runs out, `onIdle` aborts the request.
 */
export async function* withIdleTimeout<T>(chunks: AsyncIterable<T>, timeoutMs: number | undefined, onIdle: () => void): AsyncGenerator<T> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const timer = timeoutMs !== undefined ? setTimeout(onIdle, timeoutMs) : undefined;
      let next: IteratorResult<T>;
      try {
        next = await iterator.next();
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.(); // an early exit aborts the SDK's request, releasing the connection
  }
}

/** An abort controller that also aborts with `parent` (at once if it already has); `release()` unhooks it from `parent`. */
export function linkedAbort(parent: AbortSignal | undefined): { signal: AbortSignal; abort(): void; release(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    abort: () => controller.abort(),
    release: () => parent?.removeEventListener('abort', follow),
  };
}
