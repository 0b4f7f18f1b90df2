import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { ModelError, ToolwrightConfigError } from '../../errors/errors';
import { toModelError } from './sdk-errors';
import { requirePeer } from '../../errors/optional-peer';
import { toAnthropicTool } from '../../schema/providers';
import type { ToolCall } from '../../session/message';
import type { Model, ModelRequest, ModelResponse } from '../model';

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
}

/**
 * The part of an `@anthropic-ai/sdk` client this model calls. Declared structurally so that
 * toolwright's types need no SDK install; an `Anthropic` (or Bedrock/Vertex) instance fits.
 */
export interface AnthropicClientLike {
  messages: { create(body: never, options?: never): { asResponse(): Promise<Response> } };
}

const PROVIDER = 'anthropic';

/** A `Model` over the official `@anthropic-ai/sdk` Messages API. */
export class AnthropicModel implements Model {
  readonly name: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicModelOptions) {
    this.name = options.name ?? `${PROVIDER}:${options.model}`;
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

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const system = [request.instructions, ...request.messages.filter((m) => m.role === 'system').map((m) => m.content)]
      .filter((text): text is string => !!text)
      .join('\n\n');
    const body: MessageCreateParamsNonStreaming = {
      model: this.options.model,
      max_tokens: this.options.maxTokens ?? 4096,
      messages: toAnthropicMessages(request),
      ...(system ? { system } : {}),
      ...(request.tools.length > 0
        ? { tools: request.tools.map((def) => toAnthropicTool(def, { strict: this.options.strictTools })) }
        : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
    };

    let response: Response;
    try {
      // The raw response, so a malformed body still reports the HTTP status it came with.
      response = await this.client.messages.create(body, { signal: request.signal }).asResponse();
    } catch (error) {
      throw toModelError(PROVIDER, error, this.options.timeoutMs, anthropicSdk());
    }
    const message = await readMessage(response);

    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const toolCalls: ToolCall[] = message.content.flatMap((block) =>
      // Anthropic sends arguments as an object; the runner expects the JSON text.
      block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) }] : [],
    );
    return {
      content: text === '' ? null : text,
      toolCalls,
      usage: message.usage ? { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 } : undefined,
      finishReason: message.stop_reason ?? undefined,
    };
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
        content: message.content,
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
