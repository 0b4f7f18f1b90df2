import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import { ModelError, ToolwrightConfigError } from '../../errors/errors';
import { toolResultContent } from './anthropic-content';
import { readAnthropicEvent, type AnthropicStreamEvent, type StreamedBlock, type TokenCounts } from './anthropic-stream';
import { linkedAbort, streamCut, throwIfAborted, toModelError, toStreamError } from './sdk-errors';
import { maxEventBytes, readSseEvents } from './sse-events';
import { requirePeer } from '../../errors/optional-peer';
import { toAnthropicTool } from '../../schema/providers';
import type { ToolCall } from '../../session/message';
import { rootUnion, type Model, type ModelRequest, type ModelResponse, type ModelStreamPart, type OutputFormat } from '../model';

export interface AnthropicModelOptions {
  /** e.g. `claude-sonnet-4-6`. */
  model: string;
  /** Defaults to the SDK's own lookup (`ANTHROPIC_API_KEY`, then its credential profiles). */
  apiKey?: string;
  baseURL?: string;
  /** A ready client (Bedrock, Vertex, custom fetch…); `apiKey`, `baseURL`, `timeoutMs`, `maxRetries` are then ignored. */
  client?: AnthropicClientLike;
  /** Required by the Messages API. Default 4096. */
  maxTokens?: number;
  temperature?: number;
  timeoutMs?: number;
  /** The SDK's own retries on 408/409/429/5xx and connection errors. Default 2. */
  maxRetries?: number;
  /** The model's name in logs; defaults to `anthropic:<model>`. */
  name?: string;
  /** Send tools with strict tool use (grammar-constrained inputs); a schema strict mode cannot express is sent non-strict. */
  strictTools?: boolean;
  /**
   * Ask for an agent's structured output natively: `output_config.format` (`json_schema`), when
   * the schema has a strict equivalent (default true). Otherwise, or with `false` (a model or
   * gateway without structured outputs), the agent offers a `final_answer` tool instead.
   */
  nativeOutput?: boolean;
  /** Told why a tool or output schema asked for in strict mode is not sent strict (a tool is then sent as written). */
  onStrictFallback?: (reason: string, name: string) => void;
  /** The most one streamed event may hold (default 4 MiB); a larger one ends the stream with a non-retryable ModelError. */
  maxEventBytes?: number;
}

/**
 * The part of an `@anthropic-ai/sdk` client this model calls. Declared structurally so that
 * toolwright's types need no SDK install; an `Anthropic` (or Bedrock/Vertex) instance fits.
 */
export interface AnthropicClientLike {
  messages: { create(body: never, options?: never): PromiseLike<unknown> & { asResponse(): Promise<Response> } };
}

const PROVIDER = 'anthropic';

/** A `Model` over the official `@anthropic-ai/sdk` Messages API. */
export class AnthropicModel implements Model {
  readonly name: string;
  private readonly maxEventBytes: number;
  private readonly client: Anthropic;
  // Converted once per agent's output format; undefined: no strict equivalent (the agent offers final_answer).
  private readonly formats = new WeakMap<OutputFormat, Record<string, unknown> | undefined>();

  constructor(private readonly options: AnthropicModelOptions) {
    this.name = options.name ?? `${PROVIDER}:${options.model}`;
    this.maxEventBytes = maxEventBytes(options.maxEventBytes);
    try {
      this.client =
        (options.client as Anthropic | undefined) ??
        new (anthropicSdk())({
          // Passed only when set: an explicit key switches off the SDK's credential lookup.
          ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
          ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
          ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
          maxRetries: options.maxRetries ?? 2,
        });
    } catch (error) {
      if (error instanceof ToolwrightConfigError) throw error; // the SDK is not installed
      throw new ModelError(PROVIDER, error instanceof Error ? error.message : String(error), undefined, false, error);
    }
  }

  nativeOutput(format: OutputFormat): boolean {
    return (this.options.nativeOutput ?? true) && this.outputSchema(format) !== undefined;
  }

  /** The output schema in the grammar structured outputs take (strict tool use's), once per format. */
  private outputSchema(format: OutputFormat): Record<string, unknown> | undefined {
    if (this.formats.has(format)) return this.formats.get(format);
    const def = { name: format.name, description: '', parameters: format.schema };
    // Structured outputs' root must be one object: a union (anyOf at the root) goes through final_answer.
    const union = rootUnion(format);
    if (union) this.options.onStrictFallback?.(union, format.name);
    const tool = union ? undefined : toAnthropicTool(def, { strict: true, onFallback: this.options.onStrictFallback });
    const schema = tool?.strict ? (tool.input_schema as Record<string, unknown>) : undefined;
    this.formats.set(format, schema);
    return schema;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let response: Response;
    try {
      // The raw response, so a malformed body still reports the HTTP status it came with.
      response = await this.client.messages.create(this.body(request), { signal: request.signal }).asResponse();
    } catch (error) {
      throw toModelError(PROVIDER, error, this.options.timeoutMs, anthropicSdk());
    }
    return toResponse(await readMessage(response));
  }

  /**
   * The same exchange streamed (`stream: true`): text deltas as they come, each tool call at its
   * block's `content_block_stop` (its input arrives as `input_json_delta` pieces), then `finish`
   * with what `generate` would have returned, once `message_stop` says the message is whole. The
   * body is read by `readSseEvents` (bounded events) and each event checked by `readAnthropicEvent`.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const sdk = anthropicSdk();
    // The request's signal, plus an abort of our own when the stream goes quiet or is left early.
    const idle = linkedAbort(request.signal);
    try {
      const response = await this.openStream(request, idle.signal, sdk);
      const message = new StreamedMessage();
      const events = readSseEvents(response.body, {
        provider: PROVIDER,
        maxEventBytes: this.maxEventBytes,
        timeoutMs: this.options.timeoutMs,
        onIdle: () => idle.abort(),
      });
      try {
        for await (const sse of events) {
          const part = message.read(readAnthropicEvent(sse));
          if (part) yield part;
        }
      } catch (error) {
        // An abort (the caller's, or ours on a quiet stream) fails the read: reported below.
        if (!idle.signal.aborted) throw toStreamError(PROVIDER, error);
      }
      throwIfAborted(PROVIDER, request.signal, idle.signal, this.options.timeoutMs);
      if (!message.stopped) throw streamCut(PROVIDER, 'message_stop');
      yield { type: 'finish', response: toResponse(message.whole()) };
    } finally {
      idle.abort(); // left early, or failed: the connection is closed (a no-op once the body was read)
      idle.release();
    }
  }

  /** The streamed request's raw response: the SDK still sends, retries and maps HTTP errors; the body is read here. */
  private async openStream(request: ModelRequest, signal: AbortSignal, sdk: typeof Anthropic): Promise<Response> {
    try {
      return await this.client.messages.create({ ...this.body(request), stream: true }, { signal }).asResponse();
    } catch (error) {
      throw toModelError(PROVIDER, error, this.options.timeoutMs, sdk);
    }
  }

  /** The request body both ways share. */
  private body(request: ModelRequest): MessageCreateParamsNonStreaming {
    const schema = request.output && this.outputSchema(request.output);
    const system = [request.instructions, ...request.messages.filter((m) => m.role === 'system').map((m) => m.content)]
      .filter((text): text is string => !!text)
      .join('\n\n');
    return {
      model: this.options.model,
      max_tokens: this.options.maxTokens ?? 4096,
      messages: toAnthropicMessages(request),
      ...(system ? { system } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((def) =>
              toAnthropicTool(def, { strict: this.options.strictTools, onFallback: this.options.onStrictFallback }),
            ),
          }
        : {}),
      ...(schema ? { output_config: { format: { type: 'json_schema' as const, schema } } } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
    };
  }
}

/** What `toResponse` reads of a message: a whole one from `generate`, or the one `stream` assembled. */
interface MessageLike {
  content: ReadonlyArray<
    { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown } | { type: string }
  >;
  usage?: Partial<Usage> | null;
  stop_reason?: string | null;
}

/** The message as its stream builds it, event by event (`message_stop` says it is whole). */
class StreamedMessage {
  stopped = false;
  // Keyed by the checked index: a hostile index is refused, never a sparse array or a prototype key.
  private readonly blocks = new Map<number, StreamedBlock>();
  private usage: TokenCounts | undefined;
  private stopReason: string | null = null;

  /** One checked event (undefined: one to skip) into the message; the part it streams, if any. */
  read(event: AnthropicStreamEvent | undefined): ModelStreamPart | undefined {
    switch (event?.type) {
      case 'message_start':
        this.usage = event.usage;
        break;
      case 'block_start':
        this.blocks.set(event.index, event.block);
        if (event.block.type === 'text' && event.block.text) return { type: 'text-delta', delta: event.block.text };
        break;
      case 'text_delta': {
        const block = this.blocks.get(event.index);
        if (block?.type !== 'text') break;
        block.text += event.text;
        return { type: 'text-delta', delta: event.text };
      }
      case 'input_json_delta': {
        const block = this.blocks.get(event.index);
        if (block?.type === 'tool_use') block.json += event.json;
        break;
      }
      case 'block_stop': {
        const block = this.blocks.get(event.index);
        if (block?.type === 'tool_use')
          return { type: 'tool-call', toolCall: toToolCall(block.id, block.name, parseStreamedInput(block.json)) };
        break;
      }
      case 'message_delta':
        this.stopReason = event.stopReason ?? this.stopReason;
        // Counts here are cumulative: the last one stands, over what message_start said.
        this.usage = { ...this.usage, ...event.usage };
        break;
      case 'message_stop':
        this.stopped = true;
        break;
    }
    return undefined;
  }

  /** The whole message, its blocks in index order, as `toResponse` reads it. */
  whole(): MessageLike {
    const content = [...this.blocks.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, block]): MessageLike['content'] =>
        block.type === 'text' ? [block] : block.type === 'tool_use' ? [{ ...block, input: parseStreamedInput(block.json) }] : [],
      );
    return { content, usage: this.usage, stop_reason: this.stopReason };
  }
}

/** A message as a ModelResponse: the one mapping `generate` and `stream` share. */
function toResponse(message: MessageLike): ModelResponse {
  const blocks = message.content as ReadonlyArray<{ type: string; text: string; id: string; name: string; input: unknown }>;
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const toolCalls = blocks.flatMap((block) => (block.type === 'tool_use' ? [toToolCall(block.id, block.name, block.input)] : []));
  return { content: text === '' ? null : text, toolCalls, usage: toUsage(message.usage), finishReason: message.stop_reason ?? undefined };
}

/** Anthropic sends arguments as an object; the runner expects the JSON text. */
function toToolCall(id: string, name: string, input: unknown): ToolCall {
  // A name that is not text (absent, a number) is kept as '' so the history stays well-typed: the model is told TOOL_NOT_FOUND.
  return { id, name: typeof name === 'string' ? name : '', arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}) };
}

function toUsage(usage: Partial<Usage> | null | undefined): ModelResponse['usage'] {
  return usage ? { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } : undefined;
}

/** The concatenated `input_json_delta`s: `''` is a call without input; broken JSON stays as written, for the runner to report. */
function parseStreamedInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function toAnthropicMessages(request: ModelRequest): MessageParam[] {
  const messages: MessageParam[] = [];
  let pendingResults: ToolResultBlockParam[] = [];
  // The API wants every result of one assistant turn in a single user message, right after it.
  const flushResults = () => {
    if (pendingResults.length > 0) messages.push({ role: 'user', content: pendingResults });
    pendingResults = [];
  };
  for (const message of request.messages) {
    if (message.role === 'tool') {
      pendingResults.push({
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        content: toolResultContent(message),
        ...(message.isError ? { is_error: true } : {}),
      });
      continue;
    }
    flushResults();
    if (message.role === 'user') messages.push({ role: 'user', content: message.content });
    if (message.role === 'assistant') {
      const content: ContentBlockParam[] = [];
      if (message.content) content.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) });
      }
      // The API rejects empty assistant turns; an empty one carries nothing to replay.
      if (content.length > 0) messages.push({ role: 'assistant', content });
    }
  }
  flushResults();
  return messages;
}

/** `tool_use.input` must be an object: a call the model once wrote as broken JSON is replayed as `{}`. */
function parseInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function readMessage(response: Response): Promise<AnthropicMessage> {
  const text = await response.text().catch((error: unknown) => {
    throw new ModelError(PROVIDER, `response body could not be read: ${String(error)}`, response.status, true, error);
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ModelError(PROVIDER, `response body is not JSON: ${text.slice(0, 200)}`, response.status, false, error);
  }
  const record = data as { type?: string; error?: { message?: string }; content?: unknown } | null;
  if (record?.type === 'error') {
    throw new ModelError(PROVIDER, record.error?.message ?? JSON.stringify(record.error), response.status);
  }
  if (!Array.isArray(record?.content)) {
    throw new ModelError(PROVIDER, `response has no content array: ${text.slice(0, 200)}`, response.status);
  }
  return data as AnthropicMessage;
}

/** `@anthropic-ai/sdk` is an optional peer dependency: loaded when this model is first used. */
function anthropicSdk(): typeof Anthropic {
  return requirePeer<{ Anthropic: typeof Anthropic }>(
    '@anthropic-ai/sdk',
    'npm install @anthropic-ai/sdk',
    'AnthropicModel without a client',
  ).Anthropic;
}
