/**
 * OpenTelemetry spans as the GenAI semantic conventions name them (`invoke_agent {agent}`,
 * `chat {model}`, `execute_tool {tool}`), through `@opentelemetry/api`, an optional peer.
 *
 * The API keeps what an app registered on one global (shared by every copy of
 * `@opentelemetry/api` 1.x). While no tracer provider is registered there, `activeTracer()` is one
 * property read and the API is never loaded: an app without OpenTelemetry pays nothing.
 */
import type * as OTel from '@opentelemetry/api';
import { errorText, ToolwrightError } from '../errors/errors';
import type { Message, ToolCall } from '../session/message';
import type { ToolLog } from '../session/tool-log';
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
    version = packageVersion();
    return loaded;
  } catch {
    return null; // registered through a copy of the API this package cannot resolve: no spans, no failure
  }
}

function packageVersion(): string | undefined {
  try {
    return (require('../../package.json') as { version: string }).version;
  } catch {
    return undefined; // a bundled or relocated build: the tracer has no version
  }
}

/** Runs `fn` with `span` as the active span, so that spans started inside it are its children. */
function within<T>(span: OTel.Span, fn: () => T): T {
  return api!.context.with(api!.trace.setSpan(api!.context.active(), span), fn);
}

/**
 * Ends a span that failed: `error.type` is the ToolwrightError code (a low-cardinality class, as
 * the conventions ask), the status ERROR. An error's message and stack may quote what the model or
 * a tool said (V8 quotes the text JSON.parse refused; a tool writes "Card 4111… was declined"), so
 * they are recorded (status message, exception event) only with `recordContent`; without it the
 * status message is the code, the same fixed text as `error.type`.
 */
function endWithError(span: OTel.Span, error: unknown, recordContent: boolean): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: api!.SpanStatusCode.ERROR, message: recordContent ? errorText(error) : type });
  if (recordContent && error instanceof Error) span.recordException(error);
  span.end();
}

/** A class name that is a name: an error's `name` is whatever the code that threw it set. */
const ERROR_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

function errorType(error: unknown): string {
  if (error instanceof ToolwrightError) return error.code;
  return error instanceof Error && error.name !== 'Error' && ERROR_NAME.test(error.name) ? error.name : '_OTHER';
}

/** Settles a traced promise: the span ends with its outcome (`onValue` may add attributes first). */
function settle<T>(span: OTel.Span, recordContent: boolean, running: Promise<T>, onValue?: (value: T) => void): Promise<T> {
  return running.then(
    (value) => {
      onValue?.(value);
      span.end();
      return value;
    },
    (error: unknown) => {
      endWithError(span, error, recordContent);
      throw error;
    },
  );
}

interface ToolSpanInfo {
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
export function traceToolCall(
  tracer: OTel.Tracer,
  tracing: TracingOptions | undefined,
  tool: ToolSpanInfo,
  run: (spanLog?: (log: ToolLog) => void) => Promise<string>,
) {
  // A model may ask for any name: the span name stays within a provider's tool-name length.
  const name = tool.name.length > 64 ? tool.name.slice(0, 64) : tool.name;
  const attributes: OTel.Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'function' };
  if (tool.toolCallId !== undefined) attributes['gen_ai.tool.call.id'] = tool.toolCallId;
  if (tool.description !== undefined) attributes['gen_ai.tool.description'] = tool.description;
  if (tool.conversationId !== undefined) attributes['gen_ai.conversation.id'] = tool.conversationId;
  const span = tracer.startSpan(`execute_tool ${name}`, { kind: api!.SpanKind.INTERNAL, attributes });
  if (!span.isRecording()) {
    // Sampled out: nothing to record, but the trace context still reaches what the tool calls.
    span.end();
    return within(span, run);
  }
  const record = tracing?.recordContent === true;
  if (record) {
    const args = typeof tool.args === 'string' ? tool.args : json(tool.args);
    if (args !== undefined) span.setAttribute('gen_ai.tool.call.arguments', args);
  }
  // What the tool logs is content (it may quote the user): the message only with recordContent.
  const spanLog = ({ level, message }: ToolLog) =>
    span.addEvent('tool.log', record ? { 'log.level': level, 'log.message': message } : { 'log.level': level });
  const running = within(span, () => run(spanLog));
  return settle(span, record, running, record ? (result) => span.setAttribute('gen_ai.tool.call.result', result) : undefined);
}

function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // cycles, BigInt: the call itself reports what is wrong with such arguments
  }
}

// --- the agent loop: invoke_agent and chat spans ---------------------------------------------

/** The model's provider and name for `gen_ai.provider.name` / `gen_ai.request.model`. */
function modelIdentity(name: string): { provider: string; model: string } {
  // The adapters name their models `openai:<model>` / `anthropic:<model>`; any other name is both.
  const colon = name.indexOf(':');
  return colon > 0 && colon < name.length - 1
    ? { provider: name.slice(0, colon), model: name.slice(colon + 1) }
    : { provider: name, model: name };
}

interface AgentSpanInfo {
  agentName: string;
  modelName: string;
  conversationId: string;
}

/** Tokens of the chat spans under one invoke_agent span, found through the active context. */
interface RunUsage {
  input: number;
  output: number;
}
let usageKey: symbol | undefined;

/**
 * One `invoke_agent {gen_ai.agent.name}` span (kind INTERNAL) around a run or a resume: the model
 * calls and tool calls inside it are its children. A paused run is no error; a failed one carries
 * its error's text only with `recordContent` (a tool's message reaches the run's error too).
 */
export function traceAgentRun<T>(
  tracer: OTel.Tracer,
  tracing: TracingOptions | undefined,
  info: AgentSpanInfo,
  run: () => Promise<T>,
): Promise<T> {
  const { provider, model } = modelIdentity(info.modelName);
  const span = tracer.startSpan(`invoke_agent ${info.agentName}`, {
    kind: api!.SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': provider,
      'gen_ai.agent.name': info.agentName,
      'gen_ai.request.model': model,
      'gen_ai.conversation.id': info.conversationId,
    },
  });
  const usage: RunUsage = { input: 0, output: 0 };
  usageKey ??= api!.createContextKey('toolwright run usage');
  const scope = api!.trace.setSpan(api!.context.active(), span).setValue(usageKey, usage);
  return settle(span, tracing?.recordContent === true, api!.context.with(scope, run), () =>
    span.setAttributes({ 'gen_ai.usage.input_tokens': usage.input, 'gen_ai.usage.output_tokens': usage.output }),
  );
}

interface ChatSpanInfo {
  modelName: string;
  conversationId?: string;
  /** Whether the response is streamed (`gen_ai.request.stream`). */
  stream?: boolean;
}

interface ChatRequest {
  instructions?: string;
  messages: readonly Message[];
}

/** What a chat span reads of a model's response (the agent's ModelResponse fits). */
export interface ChatResponse {
  content: string | null;
  toolCalls: ToolCall[];
  usage?: { inputTokens: number; outputTokens: number };
  finishReason?: string;
}

/**
 * One `chat {gen_ai.request.model}` span (kind CLIENT) around one model call, with its token
 * usage and finish reason; the instructions and messages only with `recordContent`.
 */
export function traceModelCall<R extends ChatResponse>(
  tracer: OTel.Tracer,
  tracing: TracingOptions | undefined,
  info: ChatSpanInfo,
  request: ChatRequest,
  call: () => Promise<R>,
): Promise<R> {
  const { provider, model } = modelIdentity(info.modelName);
  const attributes: OTel.Attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model };
  if (info.conversationId !== undefined) attributes['gen_ai.conversation.id'] = info.conversationId;
  if (info.stream) attributes['gen_ai.request.stream'] = true;
  const span = tracer.startSpan(`chat ${model}`, { kind: api!.SpanKind.CLIENT, attributes });
  const record = tracing?.recordContent === true && span.isRecording();
  if (record) {
    if (request.instructions)
      span.setAttribute('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: request.instructions }]));
    span.setAttribute('gen_ai.input.messages', JSON.stringify(request.messages.map(toSemconvMessage)));
  }
  const usage = usageKey && (api!.context.active().getValue(usageKey) as RunUsage | undefined);
  return settle(span, record, within(span, call), (response) => {
    if (response.usage) {
      span.setAttributes({
        'gen_ai.usage.input_tokens': response.usage.inputTokens,
        'gen_ai.usage.output_tokens': response.usage.outputTokens,
      });
      if (usage) {
        usage.input += response.usage.inputTokens;
        usage.output += response.usage.outputTokens;
      }
    }
    if (response.finishReason !== undefined) span.setAttribute('gen_ai.response.finish_reasons', [response.finishReason]);
    if (record) {
      const message = toSemconvMessage({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
      span.setAttribute('gen_ai.output.messages', JSON.stringify([{ ...message, finish_reason: finishReason(response) }]));
    }
  });
}

/** A message in the conventions' JSON shape (`{ role, parts }`, gen-ai-input-messages.json). */
function toSemconvMessage(message: Message): { role: string; parts: object[] } {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.toolCallId, response: parsedOrRaw(message.content) }] };
    case 'assistant': {
      const parts: object[] = message.content ? [{ type: 'text', content: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: parsedOrRaw(call.arguments) });
      }
      return { role: 'assistant', parts };
    }
    default:
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
}

function parsedOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The conventions' finish reason (stop, length, content_filter, tool_call) for a provider's own. */
function finishReason(response: ChatResponse): string {
  if (response.toolCalls.length > 0) return 'tool_call';
  if (response.finishReason === 'length' || response.finishReason === 'max_tokens') return 'length';
  return response.finishReason === 'content_filter' ? 'content_filter' : 'stop';
}
