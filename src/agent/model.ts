import type { Message, ToolCall } from '../session/message';
import type { ToolDefinition } from '../metadata/json-schema';

export interface ModelRequest {
  /** The agent's instructions (system prompt). */
  instructions?: string;
  /** The conversation so far, in order, tool results included. */
  messages: readonly Message[];
  /** The tools offered this turn. */
  tools: readonly ToolDefinition[];
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
}
