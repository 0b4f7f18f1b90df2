import type { ApprovalPolicy, RateLimit, ToolAnnotations } from '../metadata/types';
import type { ToolDefinition } from '../metadata/json-schema';
import type { AgentContext } from '../session/agent-context';

/**
 * One tool a source (a remote MCP server) offers. The registry builds it as it builds a tool with a
 * hand-written `definition()`: its parameters through the same Ajv path, its output schema checked
 * on every result, behind the same gate, approval, rate limits, timeouts and spans.
 */
export interface SourcedTool {
  /** The name the model sees (prefixed on request), the description, the input and output schemas. */
  readonly definition: ToolDefinition;
  /** Where it comes from, for `authorize` and messages: the source's name and the tool's own name there. */
  readonly origin: ToolOrigin;
  /** Hints, kept for display only: they never loosen a policy. */
  readonly annotations?: ToolAnnotations;
  readonly approval?: ApprovalPolicy<never>;
  readonly timeoutMs?: number;
  readonly tags?: readonly string[];
  /** This tool's own rate limits, beside the registry's. */
  readonly rateLimit?: RateLimit | readonly RateLimit[];
  /** Runs one validated call with the caller's per-call context (signal, progress, log, elicitation). */
  execute(args: object, context: AgentContext): Promise<unknown>;
}

export interface ToolOrigin {
  readonly source: string;
  readonly name: string;
}

/** Tools listed asynchronously by something outside the process (see `ToolRegistry.buildAsync`). */
export interface ToolSource {
  readonly name: string;
  /** The tools now offered (connects if needed); rejects when the source cannot be reached. */
  list(): Promise<readonly SourcedTool[]>;
  /** Called when the source says its list changed; returns the remover. */
  onListChanged(listener: () => void): () => void;
  /** Why a listed tool was left out (an unusable schema, a name clash), or why a refresh failed. */
  onProblem?(problem: string): void;
  /** Closes every connection. */
  close(): Promise<void>;
}
