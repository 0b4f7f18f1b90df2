import type { ContentPart } from '../content/tool-content';

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
  | {
      role: 'tool';
      toolCallId: string;
      name: string;
      /** The result as text: a ToolContent result's text form, which describes each part. */
      content: string;
      isError?: boolean;
      /** A ToolContent result's parts, for a model that takes them natively (Anthropic: text and images). */
      parts?: readonly ContentPart[];
    };
