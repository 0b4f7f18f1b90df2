import type { ToolDefinition } from '../metadata/json-schema';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';

/**
 * A tool: a plain class, no base class. With `@Tool({ input })` the definition is derived from
 * the decorators (every registered instance then answers `definition()`); without it, write
 * `definition()` returning JSON Schema and the arguments are validated against that.
 */
export interface ToolInterface<A = Record<string, unknown>> {
  definition?(): ToolDefinition;
  /** Returns a JSON string (it must parse) or a plain object / typed state, serialized for the model. */
  execute(args: A, context: AgentContext, memory: AgentMemory): string | object | Promise<string | object>;
  /** Offer the tool this turn? Called with the real user's context (catalog filtering). */
  isEnabled?(context: AgentContext): boolean | Promise<boolean>;
}

/** A registered tool instance: it always answers `definition()`. */
export type ResolvedTool<A = Record<string, unknown>> = ToolInterface<A> & { definition(): ToolDefinition };
