import type { ContentPart } from '../content/tool-content';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';

/** What a resource's `read` answers: text, bytes, or any other JSON value (sent as JSON text). */
export type ResourceAnswer = string | Uint8Array | object;

/**
 * A `@Resource` or `@ResourceTemplate` class: plain, no base class, resolved from the container.
 * `read` gets the template's variables, validated (an empty object for a fixed URI).
 */
export interface ResourceInterface<A = Record<string, string>> {
  read(args: A, context: AgentContext, memory: AgentMemory): ResourceAnswer | Promise<ResourceAnswer>;
  /** List and serve it to this caller? The same gate as a tool's (`authorize` runs after it). */
  isEnabled?(context: AgentContext): boolean | Promise<boolean>;
  /** Values for a template variable starting with `value` (`completion/complete`); an enum variable completes by itself. */
  complete?(argument: string, value: string, context: AgentContext, args: Readonly<Record<string, string>>): CompletionAnswer;
}

export type PromptRole = 'user' | 'assistant';

/** One message of a prompt: text, or a content part (`ToolContent.image(...)`, `ToolContent.resource(...)`). */
export interface PromptMessage {
  role: PromptRole;
  content: string | ContentPart;
}

/** What a prompt's `get` answers: one user message's text, the messages, or the messages with a description. */
export type PromptAnswer = string | readonly PromptMessage[] | { description?: string; messages: readonly PromptMessage[] };

export type CompletionAnswer = readonly string[] | Promise<readonly string[]>;

/** A `@Prompt` class: plain, no base class, resolved from the container. `get` gets the arguments, validated. */
export interface PromptInterface<A = Record<string, string>> {
  get(args: A, context: AgentContext, memory: AgentMemory): PromptAnswer | Promise<PromptAnswer>;
  isEnabled?(context: AgentContext): boolean | Promise<boolean>;
  /** Values for an argument starting with `value` (`completion/complete`); an enum argument completes by itself. */
  complete?(argument: string, value: string, context: AgentContext, args: Readonly<Record<string, string>>): CompletionAnswer;
}
