import type { Message, ToolCall } from '../session/message';
import type { ToolDefinition } from '../schema/json-schema';

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

/** What the agent runner needs of a model: one request, one response. */
export interface Model {
  readonly name: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
