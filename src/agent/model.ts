import type { Message, ToolCall } from '../session/message';
import type { JsonSchema, ToolDefinition } from '../metadata/json-schema';

/** The structured final answer a run asks for (an agent's `output`): its name and JSON Schema. */
export interface OutputFormat {
  /** Provider-safe (letters, digits, `_`, `-`): the agent's name with `_output`. */
  name: string;
  schema: JsonSchema;
}

export interface ModelRequest {
  /** The agent's instructions (system prompt). */
  instructions?: string;
  /** The conversation so far, in order, tool results included. */
  messages: readonly Message[];
  /** The tools offered this turn. */
  tools: readonly ToolDefinition[];
  /**
   * The structured final answer, set only for a model whose `nativeOutput` took it: the model asks
   * the provider for it in its native way (OpenAI `response_format`, Anthropic `output_config`),
   * and its final text is that JSON.
   */
  output?: OutputFormat;
  signal?: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResponse {
  /** Text, tool calls, or both. */
  content: string | null;
  toolCalls: ToolCall[];
  usage?: ModelUsage;
  /** The provider's own stop reason, for logs. */
  finishReason?: string;
}

/**
 * One piece of a streamed model response. Text arrives as deltas; a tool call only once its
 * arguments are complete; the last part is always `finish`, carrying the whole response (the same
 * `ModelResponse` `generate` would return), so a consumer never has to assemble anything.
 */
export type ModelStreamPart =
  { type: 'text-delta'; delta: string } | { type: 'tool-call'; toolCall: ToolCall } | { type: 'finish'; response: ModelResponse };

/** What the agent runner needs of a model: one request, one response; optionally streamed. */
export interface Model {
  readonly name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * The same answer as `generate`, as it arrives. A stream cut before `finish` throws a
   * `ModelError` from the iterator. Models without it still stream (one delta, from `generate`).
   */
  stream?(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /**
   * Whether this model tells its provider `format` natively (then `request.output` carries it).
   * Asked once per agent; a model without it, or answering false, gets a `final_answer` tool
   * whose parameters are the schema instead (its arguments are the answer).
   */
  nativeOutput?(format: OutputFormat): boolean;
}

/** Why an output format has no strict form: a union at its root (strict modes want one object there); undefined when it has one. */
export function rootUnion(format: OutputFormat): string | undefined {
  const { schema } = format;
  return schema.properties === undefined && (schema.anyOf ?? schema.oneOf) !== undefined
    ? 'the output is a union of objects (anyOf at the root), which strict structured output cannot express'
    : undefined;
}
