/**
 * OpenTelemetry spans as the GenAI semantic conventions name them (`invoke_agent {agent}`,
 * `chat {model}`, `execute_tool {tool}`), through `@opentelemetry/api`, an optional peer.
 *
 * The API keeps what an app registered on one global (shared by every copy of
 * `@opentelemetry/api` 1.x). While no tracer provider is registered there, `activeTracer()` is one
 * property read and the API is never loaded: an app without OpenTelemetry pays nothing.
 */
import type * as OTel from '@opentelemetry/api';
import { ToolwrightError } from '../errors/errors';
import type { TracingOptions } from './options';

type Api = typeof OTel;

const REGISTRATIONS = Symbol.for('opentelemetry.js.api.1');
/** undefined: not loaded yet; null: a provider is registered but this process cannot load the API. */
let api: Api | null | undefined;
let version: string | undefined;

/** toolwright's tracer while the app has a tracer provider registered, else undefined. */
export function activeTracer(): OTel.Tracer | undefined {
  const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[REGISTRATIONS];
  if (registered?.trace === undefined) return undefined;
  if (api === undefined) api = loadApi();
  // Asked per span, not cached: the provider may be replaced (the SDK caches tracers by name).
  return api?.trace.getTracer('toolwright', version);
}

function loadApi(): Api | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require('@opentelemetry/api') as Api;
    version = (require('../../package.json') as { version: string }).version;
    return loaded;
  } catch {
    return null; // registered through a copy of the API this package cannot resolve: no spans, no failure
  }
}

/** Runs `fn` with `span` as the active span, so that spans started inside it are its children. */
export function within<T>(span: OTel.Span, fn: () => T): T {
  return api!.context.with(api!.trace.setSpan(api!.context.active(), span), fn);
}

/**
 * Ends a span that failed: `error.type` is the ToolwrightError code (a low-cardinality class, as
 * the conventions ask), the status ERROR with the message, the exception recorded once.
 */
export function endWithError(span: OTel.Span, error: unknown): void {
  span.setAttribute('error.type', errorType(error));
  span.setStatus({ code: api!.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
  span.end();
}

function errorType(error: unknown): string {
  if (error instanceof ToolwrightError) return error.code;
  return error instanceof Error && error.name !== 'Error' ? error.name : '_OTHER';
}

/** Settles a traced promise: the span ends with its outcome (`onValue` may add attributes first). */
function settle<T>(span: OTel.Span, running: Promise<T>, onValue?: (value: T) => void): Promise<T> {
  return running.then(
    (value) => {
      onValue?.(value);
      span.end();
      return value;
    },
    (error: unknown) => {
      endWithError(span, error);
      throw error;
    },
  );
}

export interface ToolSpanInfo {
  name: string;
  description?: string;
  toolCallId?: string;
  conversationId?: string;
  /** The call's arguments as given (a JSON string or an object); recorded only with `recordContent`. */
  args: string | object;
}

/**
 * One `execute_tool {gen_ai.tool.name}` span (kind INTERNAL) around a registry call, a child of
 * whatever span is active (the agent's run, an MCP request, the app's own).
 */
export function traceToolCall(tracer: OTel.Tracer, tracing: TracingOptions | undefined, tool: ToolSpanInfo, run: () => Promise<string>) {
  // A model may ask for any name: the span name stays within a provider's tool-name length.
  const name = tool.name.length > 64 ? tool.name.slice(0, 64) : tool.name;
  const attributes: OTel.Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'function' };
  if (tool.toolCallId !== undefined) attributes['gen_ai.tool.call.id'] = tool.toolCallId;
  if (tool.description !== undefined) attributes['gen_ai.tool.description'] = tool.description;
  if (tool.conversationId !== undefined) attributes['gen_ai.conversation.id'] = tool.conversationId;
  const span = tracer.startSpan(`execute_tool ${name}`, { kind: api!.SpanKind.INTERNAL, attributes });
  const record = tracing?.recordContent === true && span.isRecording();
  if (record) {
    const args = typeof tool.args === 'string' ? tool.args : json(tool.args);
    if (args !== undefined) span.setAttribute('gen_ai.tool.call.arguments', args);
  }
  return settle(span, within(span, run), record ? (result) => span.setAttribute('gen_ai.tool.call.result', result) : undefined);
}

function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // cycles, BigInt: the call itself reports what is wrong with such arguments
  }
}
