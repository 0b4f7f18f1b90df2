import type { ContentPart, EmbeddedResource } from '../content/tool-content';
import type { ClassType } from '../metadata/types';
import type { ParseInput } from './call-pipeline';
import type { PromptInterface, ResourceInterface } from './feature.interface';

/** What the registry knows of a `@Resource` or `@ResourceTemplate`, frozen at build. */
export interface RegisteredResource {
  readonly kind: 'resource' | 'resourceTemplate';
  readonly name: string;
  /** A fixed resource's URI. */
  readonly uri?: string;
  /** A template's URI template. */
  readonly uriTemplate?: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly tags: readonly string[];
  readonly memory: boolean;
  readonly exposeErrors: boolean;
  /** A template's variables (its input class's properties), in order. */
  readonly arguments: readonly PromptArgument[];
  readonly instance: ResourceInterface<never>;
  readonly featureClass: ClassType;
}

/** A prompt argument or template variable, as MCP lists it. */
export interface PromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
  /** The values an `@IsIn` / `@IsEnum` / `@Param({ enum })` property allows: its completions. */
  readonly enum?: readonly string[];
}

/** What the registry knows of a `@Prompt`, frozen at build. */
export interface RegisteredPrompt {
  readonly kind: 'prompt';
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly arguments: readonly PromptArgument[];
  readonly tags: readonly string[];
  readonly memory: boolean;
  readonly exposeErrors: boolean;
  readonly instance: PromptInterface<never>;
  readonly featureClass: ClassType;
}

/** A resource or prompt with its compiled input (the tool input pipeline) and, for a template, its URI matcher. */
export interface FeatureEntry<R extends RegisteredResource | RegisteredPrompt = RegisteredResource | RegisteredPrompt> {
  readonly registered: R;
  readonly parse: ParseInput;
  readonly match?: (uri: string) => Record<string, string> | undefined;
  gated: boolean;
}

/** `resources/read`'s answer. */
export interface ResourceRead {
  contents: EmbeddedResource[];
}

/** `prompts/get`'s answer: every message's content a checked part. */
export interface PromptRead {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: ContentPart }[];
}

/** What `complete` is asked about: a prompt's argument or a template's variable. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface Completion {
  values: string[];
  total?: number;
  hasMore: boolean;
}
