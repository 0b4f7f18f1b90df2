/**
 * The checks both streamed models make on what a provider sent, before anything reads it: the
 * JSON of one event, the JSON type of each field read, and the in-stream error events. A wrong
 * shape is a broken server, not a dropped line: a non-retryable ModelError, never a TypeError.
 */
import { ModelError } from '../../errors/errors';
import { isRetryableStatus } from './sdk-errors';

export type Json = Record<string, unknown>;

/**
 * The most content blocks (Anthropic) or parallel tool calls (OpenAI) one answer may stream. An
 * index is a position in the answer, so one past this is no answer a model gives.
 */
export const MAX_STREAM_INDEX = 10_000;

export function wrongShape(provider: string, what: string): ModelError {
  return new ModelError(provider, `stream event has the wrong shape: ${what}`, undefined, false);
}

/** One event's data as JSON. */
export function parseEventData(provider: string, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ModelError(provider, `stream chunk is not JSON: ${reason}`, undefined, false, error);
  }
}

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field that must be an object, or (when `optional`) absent / null. */
export function record(provider: string, value: unknown, where: string, optional: true): Json | undefined;
export function record(provider: string, value: unknown, where: string, optional?: false): Json;
export function record(provider: string, value: unknown, where: string, optional = false): Json | undefined {
  if (isRecord(value)) return value;
  if (optional && (value === undefined || value === null)) return undefined;
  throw wrongShape(provider, `${where} is not an object`);
}

/** A field that must be an array, or absent / null (read as empty). */
export function list(provider: string, value: unknown, where: string): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (value === undefined || value === null) return [];
  throw wrongShape(provider, `${where} is not an array`);
}

/** A field that must be text, or (when `optional`) absent / null. */
export function text(provider: string, value: unknown, where: string, optional: true): string | undefined;
export function text(provider: string, value: unknown, where: string, optional?: false): string;
export function text(provider: string, value: unknown, where: string, optional = false): string | undefined {
  if (typeof value === 'string') return value;
  if (optional && (value === undefined || value === null)) return undefined;
  throw wrongShape(provider, `${where} is not a string`);
}

/** A token count: a number, or absent / null. */
export function count(provider: string, value: unknown, where: string): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value === undefined || value === null) return undefined;
  throw wrongShape(provider, `${where} is not a number`);
}

/** A block or call position: an integer in 0 ≤ index < MAX_STREAM_INDEX, never a key like `length` or `__proto__`. */
export function streamIndex(provider: string, value: unknown, where: string): number {
  if (Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < MAX_STREAM_INDEX) return value as number;
  throw wrongShape(provider, `${where} is not an integer in 0..${MAX_STREAM_INDEX - 1}`);
}

/**
 * The HTTP status a provider gives each error type, for errors that arrive inside a stream already
 * answered 200 (Anthropic's `event: error`, an OpenAI chunk with `error`): an `overloaded_error`
 * mid-stream is as retryable as a 529 before it.
 */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * An error event inside the stream as a ModelError keeping its type's status. Both providers nest
 * the details under `error` (Anthropic `{ type: 'error', error: { type, message } }`, OpenAI
 * `{ error: { message, type, code } }`); `body` is the event's JSON, or its text when it is not JSON.
 */
export function inStreamError(provider: string, body: unknown): ModelError {
  const outer = isRecord(body) ? body : {};
  const inner = isRecord(outer.error) ? outer.error : outer;
  const known = [inner.type, inner.code].find((t): t is string => typeof t === 'string' && Object.hasOwn(ERROR_TYPE_STATUS, t));
  const type = known ?? (typeof inner.type === 'string' && inner.type !== 'error' ? inner.type : 'error');
  const message = typeof inner.message === 'string' ? inner.message : (JSON.stringify(body) ?? '').slice(0, 200);
  const status = known !== undefined ? ERROR_TYPE_STATUS[known] : undefined;
  return new ModelError(provider, `error in the stream: ${type}: ${message}`, status, status !== undefined && isRetryableStatus(status));
}
