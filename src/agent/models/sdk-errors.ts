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

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500; // 529 "overloaded" (Anthropic) included
}
