import type { ApprovalPolicy, ClassType, RateLimit, TaskOptions, ToolAnnotations } from '../metadata/types';
import type { ToolDefinition } from '../metadata/json-schema';
import type { ParseInput, SerializeOutput } from './call-pipeline';
import type { RateRule } from './rate-limit';
import type { ResolvedTool } from './tool.interface';
import type { ToolOrigin } from './tool-source';

/** What the registry knows of one tool, frozen at build. */
export interface RegisteredTool {
  readonly kind: 'tool';
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly instance: ResolvedTool<never>;
  readonly toolClass: ClassType;
  readonly tags: readonly string[];
  readonly sequential: boolean;
  readonly timeoutMs?: number;
  readonly approval?: ApprovalPolicy<never>;
  readonly annotations?: ToolAnnotations;
  readonly exposeErrors: boolean;
  /** `@Tool({ memory: true })`: the tool reads AgentMemory, so callers load it first. */
  readonly memory: boolean;
  /** `@Tool({ task })`: how MCP's tasks extension may run it (absent: never as a task). */
  readonly task?: Readonly<Required<Omit<TaskOptions, 'ttlMs'>> & Pick<TaskOptions, 'ttlMs'>>;
  /** Arguments mirrored in MCP `Mcp-Param-*` headers (`@Param({ mcpHeader })`, or `x-mcp-header` in a written schema): argument -> header name. */
  readonly mcpHeaders?: Readonly<Record<string, string>>;
  /** A tool listed by a source (a remote MCP server): which one, and the tool's own name there. */
  readonly origin?: ToolOrigin;
}

/** A registered tool with its compiled call pipeline (see `call-pipeline.ts`). */
export interface ToolEntry extends RegisteredTool {
  readonly parse: ParseInput;
  readonly serialize: SerializeOutput;
  /** Visibility depends on the caller (`isEnabled` or the registry's `authorize`). */
  gated?: boolean;
  /** The tool's rate limits and the registry's, counted per caller (none: the call is not counted). */
  rateRules?: readonly RateRule[];
  /** A sourced tool's own rate limits (a class's come from `@Tool`). */
  readonly rateLimit?: RateLimit | readonly RateLimit[];
}
