import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ModelError, ToolwrightConfigError } from '../../errors/errors';
import { readOpenAIChunk, type ToolCallPiece } from './openai-stream';
import { linkedAbort, streamCut, throwIfAborted, toModelError, toStreamError } from './sdk-errors';
import { maxEventBytes, readSseEvents, type SseEvent } from './sse-events';
import { MAX_STREAM_INDEX, wrongShape } from './stream-shape';
import { requirePeer } from '../../errors/optional-peer';
import type { JsonSchema } from '../../metadata/json-schema';
import { nullsToAbsent, toOpenAITool } from '../../schema/providers';
import type { ToolCall } from '../../session/message';
import { rootUnion, type Model, type ModelRequest, type ModelResponse, type ModelStreamPart, type OutputFormat } from '../model';

export interface OpenAIChatModelOptions {
  /** `gpt-4.1`, or whatever name a local server (llama.cpp, vLLM, Ollama) gives its model. */
  model: string;
  /** Defaults to `OPENAI_API_KEY`; local servers that need none get a placeholder. */
  apiKey?: string;
  /** An OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama). */
  baseURL?: string;
  /** A ready client (Azure, custom fetch…); `apiKey`, `baseURL`, `timeoutMs`, `maxRetries` are then ignored. */
  client?: OpenAIClientLike;
  temperature?: number;
  maxTokens?: number;
  /**
   * Which body field carries `maxTokens`. OpenAI's reasoning models accept only
   * `max_completion_tokens`; some local servers only `max_tokens`. Default: the former for
   * api.openai.com (no `baseURL`), the latter otherwise.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Send tools in OpenAI strict mode; optional arguments then come back as `null` and are mapped back to absent. */
  strictTools?: boolean;
  timeoutMs?: number;
  /** The SDK's own retries on 408/409/429/5xx and connection errors. Default 2. */
  maxRetries?: number;
  /**
   * Ask for an agent's structured output natively: `response_format: { type: 'json_schema' }`,
   * strict when the schema allows it (default true). `false` for a compatible server without it:
   * the agent then offers a `final_answer` tool instead.
   */
  nativeOutput?: boolean;
  /** Told why a tool or output schema asked for in strict mode is sent non-strict (the schema is then sent as written). */
  onStrictFallback?: (reason: string, name: string) => void;
  /** The model's name in logs; defaults to `openai:<model>`. */
  name?: string;
  /** The most one streamed chunk may hold (default 4 MiB); a larger one ends the stream with a non-retryable ModelError. */
  maxEventBytes?: number;
}

/**
 * The part of an `openai` client this model calls. Declared structurally so that toolwright's
 * types need no `openai` install; an `OpenAI` (or `AzureOpenAI`) instance fits.
 */
export interface OpenAIClientLike {
  chat: { completions: { create(body: never, options?: never): PromiseLike<unknown> & { asResponse(): Promise<Response> } } };
}

const PROVIDER = 'openai';

/** A `Model` over the official `openai` SDK's Chat Completions API (and every server that speaks it). */
export class OpenAIChatModel implements Model {
  readonly name: string;
  private readonly maxEventBytes: number;
  private readonly client: OpenAI;
  // Converted once per agent's output format (the same object every turn).
  private readonly formats = new WeakMap<OutputFormat, ResponseFormat>();

  constructor(private readonly options: OpenAIChatModelOptions) {
    this.name = options.name ?? `${PROVIDER}:${options.model}`;
    this.maxEventBytes = maxEventBytes(options.maxEventBytes);
    try {
      this.client =
        (options.client as OpenAI | undefined) ??
        new (openaiSdk())({
          // Local servers ignore the key but the SDK insists on one.
          apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? (options.baseURL ? 'not-needed' : undefined),
          baseURL: options.baseURL,
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries ?? 2,
        });
    } catch (error) {
      if (error instanceof ToolwrightConfigError) throw error; // the SDK is not installed
      throw new ModelError(PROVIDER, error instanceof Error ? error.message : String(error), undefined, false, error);
    }
  }

  nativeOutput(): boolean {
    return this.options.nativeOutput ?? true;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const { body, strictSchemas } = this.request(request);
    let response: Response;
    try {
      // The raw response, so a malformed body still reports the HTTP status it came with.
      response = await this.client.chat.completions.create(body, { signal: request.signal }).asResponse();
    } catch (error) {
      throw toModelError(PROVIDER, error, this.options.timeoutMs, openaiSdk());
    }
    const completion = await readCompletion(response);
    const choice = completion.choices[0];
    return toResponse(choice.message, choice.finish_reason, completion.usage, strictSchemas);
  }

  /**
   * The same exchange streamed (`stream: true`, usage in the last chunk): text deltas as they come,
   * each tool call once its arguments are complete (at the choice's `finish_reason`; the chunks
   * carry them in pieces by `index`), then `finish` with what `generate` would have returned. The
   * body is read by `readSseEvents` (bounded events) and each chunk checked by `readOpenAIChunk`.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const { body, strictSchemas } = this.request(request);
    const sdk = openaiSdk();
    // The request's signal, plus an abort of our own when the stream goes quiet or is left early.
    const idle = linkedAbort(request.signal);
    try {
      const response = await this.openStream(body, idle.signal, sdk);
      const completion = new StreamedCompletion(strictSchemas);
      const events = readSseEvents(response.body, {
        provider: PROVIDER,
        maxEventBytes: this.maxEventBytes,
        timeoutMs: this.options.timeoutMs,
        onIdle: () => idle.abort(),
      });
      try {
        for await (const sse of events) yield* completion.read(sse);
      } catch (error) {
        // An abort (the caller's, or ours on a quiet stream) fails the read: reported below.
        if (!idle.signal.aborted) throw toStreamError(PROVIDER, error);
      }
      throwIfAborted(PROVIDER, request.signal, idle.signal, this.options.timeoutMs);
      if (completion.finishReason === null) throw streamCut(PROVIDER, 'a finish_reason');
      yield { type: 'finish', response: completion.whole() };
    } finally {
      idle.abort(); // left early, or failed: the connection is closed (a no-op once the body was read)
      idle.release();
    }
  }

  /** The streamed request's raw response (usage in the last chunk): the SDK still sends, retries and maps HTTP errors; the body is read here. */
  private async openStream(body: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal, sdk: typeof OpenAI): Promise<Response> {
    try {
      return await this.client.chat.completions
        .create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal })
        .asResponse();
    } catch (error) {
      throw toModelError(PROVIDER, error, this.options.timeoutMs, sdk);
    }
  }

  /** The request body both ways share, and the tools sent strict (whose nulls mean "absent"). */
  private request(request: ModelRequest): { body: ChatCompletionCreateParamsNonStreaming; strictSchemas: Map<string, JsonSchema> } {
    const onFallback = this.options.onStrictFallback;
    const tools = request.tools.map((def) => ({ def, tool: toOpenAITool(def, { strict: this.options.strictTools, onFallback }) }));
    const format = request.output && this.responseFormat(request.output);
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.options.model,
      messages: toChatMessages(request),
      ...(tools.length > 0 ? { tools: tools.map(({ tool }) => tool) } : {}),
      ...(format ? { response_format: format.body } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
    };
    if (this.options.maxTokens !== undefined) {
      body[this.options.maxTokensField ?? (this.options.baseURL ? 'max_tokens' : 'max_completion_tokens')] = this.options.maxTokens;
    }
    // Strict mode spells "absent" as null; give the runner arguments that fit the original schema.
    const strictSchemas = new Map<string, JsonSchema>(
      tools.filter(({ tool }) => tool.function.strict).map(({ def }) => [def.name, def.parameters]),
    );
    if (format?.strictSchema) strictSchemas.set(OUTPUT_KEY, format.strictSchema);
    return { body, strictSchemas };
  }

  /** The output schema as Structured Outputs takes it: strict (optional fields as null) when it can be, else as written. */
  private responseFormat(output: OutputFormat): ResponseFormat {
    let format = this.formats.get(output);
    if (!format) {
      const def = { name: output.name, description: '', parameters: output.schema };
      // Structured Outputs' root must be one object: a union (anyOf at the root) is sent non-strict.
      const union = rootUnion(output);
      if (union) this.options.onStrictFallback?.(union, output.name);
      const { parameters, strict } = toOpenAITool(def, { strict: !union, onFallback: this.options.onStrictFallback }).function;
      format = {
        body: { type: 'json_schema', json_schema: { name: output.name, schema: parameters, strict: !!strict } },
        strictSchema: strict ? output.schema : undefined,
      };
      this.formats.set(output, format);
    }
    return format;
  }
}

/** A `response_format` body, and the original schema when it was made strict (its nulls then mean "absent"). */
interface ResponseFormat {
  body: NonNullable<ChatCompletionCreateParamsNonStreaming['response_format']>;
  strictSchema: JsonSchema | undefined;
}

// The structured answer's schema beside the tools' in `strictSchemas` (no tool has an empty name).
const OUTPUT_KEY = '';

/** A tool call as its pieces arrive. */
interface StreamedCall {
  id: string;
  name: string;
  arguments: string;
}

/** The completion as its stream builds it, chunk by chunk (its first choice; tool calls in pieces by `index`). */
class StreamedCompletion {
  finishReason: string | null = null;
  private content: string | null = null;
  private refusal: string | null = null;
  private readonly calls: StreamedCall[] = [];
  private readonly byIndex = new Map<number, StreamedCall>();
  private toolCalls: ToolCall[] = [];
  private usage: CompletionUsage | undefined;
  private done = false;

  constructor(private readonly strictSchemas: Map<string, JsonSchema>) {}

  /** One event into the completion; the parts it streams: text, and each tool call once its choice finished. */
  *read(sse: SseEvent): Generator<ModelStreamPart> {
    if (this.done) return; // after [DONE], as the SDK: read to the end, so the connection can be reused
    const chunk = readOpenAIChunk(sse);
    if (chunk === 'done') {
      this.done = true;
      return;
    }
    if (chunk.usage) this.usage = { ...chunk.usage, total_tokens: chunk.usage.prompt_tokens + chunk.usage.completion_tokens };
    const choice = chunk.choice;
    if (!choice) return; // the usage chunk has no choices
    if (choice.content !== undefined) {
      this.content = (this.content ?? '') + choice.content;
      if (choice.content !== '') yield { type: 'text-delta', delta: choice.content };
    }
    if (choice.refusal !== undefined) {
      this.refusal = (this.refusal ?? '') + choice.refusal;
      if (choice.refusal !== '') yield { type: 'text-delta', delta: choice.refusal };
    }
    for (const part of choice.toolCalls) this.addPiece(part);
    if (choice.finishReason !== undefined && this.finishReason === null) {
      this.finishReason = choice.finishReason;
      const message = {
        content: this.content,
        refusal: this.refusal,
        tool_calls: this.calls.map(({ id, ...fn }) => ({ id, type: 'function' as const, function: fn })),
      };
      this.toolCalls = toResponse(message, this.finishReason, undefined, this.strictSchemas).toolCalls;
      for (const toolCall of this.toolCalls) yield { type: 'tool-call', toolCall };
    }
  }

  /**
   * By `index`, as the API streams them; but some compatible servers (Ollama) give every parallel
   * call index 0, or none: a new id where another call already is starts a new call.
   */
  private addPiece(part: ToolCallPiece): void {
    const index = part.index ?? -1;
    let call = this.byIndex.get(index) ?? (index === -1 ? this.calls.at(-1) : undefined);
    if (!call || (part.id && call.id && part.id !== call.id)) {
      if (this.calls.length >= MAX_STREAM_INDEX) throw wrongShape(PROVIDER, `more than ${MAX_STREAM_INDEX} tool calls`);
      this.calls.push((call = { id: '', name: '', arguments: '' }));
    }
    this.byIndex.set(index, call);
    if (part.id) call.id = part.id;
    if (part.name !== undefined) call.name = part.name;
    if (part.arguments !== undefined) call.arguments += part.arguments;
  }

  /** What `generate` would have returned, once the choice finished. */
  whole(): ModelResponse {
    const finished = toResponse(
      { content: this.content, refusal: this.refusal, tool_calls: [] },
      this.finishReason,
      this.usage,
      this.strictSchemas,
    );
    return { ...finished, toolCalls: this.toolCalls };
  }
}

/** A completion's message as a ModelResponse: the one mapping `generate` and `stream` share. */
function toResponse(
  message: Pick<ChatCompletionMessage, 'content' | 'refusal' | 'tool_calls'>,
  finishReason: string | null | undefined,
  usage: CompletionUsage | undefined,
  strictSchemas: Map<string, JsonSchema>,
): ModelResponse {
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((call) => {
    if (call.type !== 'function') return [];
    // A server may send a call without a function or with a name that is not text: the model is told TOOL_NOT_FOUND
    // for that call (and gets its other calls' results), rather than the whole answer failing on a TypeError.
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } | null }).function;
    const name = typeof fn?.name === 'string' ? fn.name : '';
    return [{ id: call.id || `call_${randomUUID()}`, name, arguments: readArguments(fn?.arguments, strictSchemas.get(name)) }];
  });
  const output = strictSchemas.get(OUTPUT_KEY);
  return {
    // A strict structured answer spells "absent" as null, as strict tool arguments do.
    content: output && message.content ? readArguments(message.content, output) : (message.content ?? message.refusal ?? null),
    toolCalls,
    usage: usage ? { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } : undefined,
    finishReason: finishReason ?? undefined,
  };
}

function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        messages.push({ role: message.role, content: message.content });
        break;
      case 'assistant':
        messages.push({
          role: 'assistant',
          content: message.content ?? (message.toolCalls?.length ? null : ''),
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        // Chat Completions has no error flag: the result's JSON already says `"status":"error"`.
        messages.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        break;
    }
  }
  return messages;
}

async function readCompletion(response: Response): Promise<ChatCompletion> {
  const text = await response.text().catch((error: unknown) => {
    throw new ModelError(PROVIDER, `response body could not be read: ${String(error)}`, response.status, true, error);
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ModelError(PROVIDER, `response body is not JSON: ${text.slice(0, 200)}`, response.status, false, error);
  }
  const record = data as { error?: { message?: string }; choices?: Array<{ message?: unknown }> } | null;
  // Some compatible servers report failures as 200 with an `error` body.
  if (record?.error) throw new ModelError(PROVIDER, record.error.message ?? JSON.stringify(record.error), response.status);
  if (!Array.isArray(record?.choices) || typeof record.choices[0]?.message !== 'object' || record.choices[0].message === null) {
    throw new ModelError(PROVIDER, `response has no choices[0].message: ${text.slice(0, 200)}`, response.status);
  }
  return data as ChatCompletion;
}

function readArguments(raw: unknown, strictSchema: JsonSchema | undefined): string {
  // Some local servers send an object, or '' for a call without arguments.
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? {});
  if (text.trim() === '') return '{}';
  if (!strictSchema) return text;
  try {
    return JSON.stringify(nullsToAbsent(strictSchema, JSON.parse(text)));
  } catch {
    return text; // broken JSON stays as written: the runner reports it to the model
  }
}

/** `openai` is an optional peer dependency: loaded when this model is first used. */
function openaiSdk(): typeof OpenAI {
  return requirePeer<{ OpenAI: typeof OpenAI }>('openai', 'npm install openai@6', 'OpenAIChatModel without a client').OpenAI;
}
