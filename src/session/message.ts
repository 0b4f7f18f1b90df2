/** A tool call as the model asked for it: `arguments` is the raw JSON string the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Provider-neutral conversation messages; adapters map them to each provider's wire format. */
export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };
