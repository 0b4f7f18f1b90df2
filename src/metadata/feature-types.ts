import type { ClassType } from './types';

/** A resource at one fixed URI (`@Resource`). */
export interface ResourceOptions {
  /** The resource's absolute URI, as clients read it (`docs://handbook`). */
  uri: string;
  /** Provider-safe name: letters, digits, `_` and `-`, at most 64; unique among resources and templates. */
  name: string;
  title?: string;
  description?: string;
  /** What `read` answers; `application/json` for a value that is not text or bytes, `text/plain` otherwise. */
  mimeType?: string;
  /** For the registry's `authorize` policy, as a tool's tags are. */
  tags?: readonly string[];
  /** `read` uses AgentMemory: surfaces load the caller's memory first. */
  memory?: boolean;
  /** Let the client see the message of an unexpected error `read` throws (default: redacted). */
  exposeErrors?: boolean;
}

/** Resources under a URI template (`@ResourceTemplate`): the template's variables are the input class's properties. */
export interface ResourceTemplateOptions<A = unknown> extends Omit<ResourceOptions, 'uri'> {
  /** RFC 6570 simple expansion only: `orders://{tenant}/{orderId}` (each variable one path segment or less). */
  uriTemplate: string;
  /** The variables, as `@Param` string properties validated with class-validator like tool arguments. */
  input: ClassType<A>;
}

/** A prompt template a client offers its user (`@Prompt`). */
export interface PromptOptions<A = unknown> {
  /** Provider-safe name: letters, digits, `_` and `-`, at most 64; unique among prompts. */
  name: string;
  title?: string;
  description: string;
  /** The arguments, as `@Param` string properties validated with class-validator like tool arguments. */
  input: ClassType<A>;
  tags?: readonly string[];
  memory?: boolean;
  exposeErrors?: boolean;
}

/** What the registry records of a `@Resource` or `@ResourceTemplate` class. */
export type ResourceDeclaration = ({ kind: 'resource' } & ResourceOptions) | ({ kind: 'resourceTemplate' } & ResourceTemplateOptions);
