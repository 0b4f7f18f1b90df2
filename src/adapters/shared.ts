import { ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import type { CallOptions, ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../schema/json-schema';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';

/** The session state and memory a tool call reads and writes. */
export interface ToolSession {
  context: AgentContext;
  memory: AgentMemory;
}

/**
 * Where the adapters get context and memory: one fixed pair, or a function of the host
 * library's per-run value (the AI SDK's `experimental_context`, the Agents SDK's
 * `RunContext.context`, LangChain's `RunnableConfig`), so one tool set can serve many users.
 */
export type SessionSource<R> = ToolSession | ((runtime: R) => ToolSession | Promise<ToolSession>);

export interface AdapterOptions<R> {
  /** Required: tools read the user and session from it, so there is no silent default. */
  session: SessionSource<R>;
  /** Only these tools (default: every tool in the registry). Unknown names fail with TOOL_NOT_FOUND. */
  tools?: readonly string[];
  /**
   * `result` (default): a ToolwrightError (bad arguments, a failed tool…) becomes the compact JSON
   * the model may see (`toToolResult()`), so the model can correct itself. `throw`: it propagates
   * to the host library's own error handling.
   */
  errors?: 'result' | 'throw';
}

/** The definitions selected by `options.tools`, in registry order (or the order given). */
export function selectDefinitions(registry: ToolRegistry, names: readonly string[] | undefined): ToolDefinition[] {
  if (names === undefined) return [...registry.definitions()];
  return names.map((name) => registry.describe(name).definition);
}

export async function resolveSession<R>(source: SessionSource<R>, runtime: R): Promise<ToolSession> {
  const session = typeof source === 'function' ? await source(runtime) : source;
  if (!session || !session.context || !session.memory) {
    throw new ToolwrightConfigError('toolwright adapter: the session resolver must return { context, memory } (an AgentContext and an AgentMemory).');
  }
  return session;
}

export interface ToolRun {
  /** The result JSON, or the error's compact JSON. */
  text: string;
  failed: boolean;
}

/** Runs one call through the registry (parse, validate, execute, check output); errors per policy. */
export async function runTool<R>(
  registry: ToolRegistry,
  name: string,
  args: string | object,
  options: AdapterOptions<R>,
  runtime: R,
  callOptions: CallOptions,
): Promise<ToolRun> {
  const { context, memory } = await resolveSession(options.session, runtime);
  try {
    return { text: await registry.call(name, args, context, memory, callOptions), failed: false };
  } catch (error) {
    if (options.errors !== 'throw' && error instanceof ToolwrightError) return { text: error.toToolResult(), failed: true };
    throw error;
  }
}
