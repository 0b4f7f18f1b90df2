/**
 * LangChain.js adapter: `import { toLangChainTools } from 'toolwright/adapters/langchain'`.
 * Needs the optional peer dependency `@langchain/core` (v1).
 */
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { DynamicStructuredTool, ToolInputParsingException } from '@langchain/core/tools';
import type { ToolRegistry } from '../registry/tool-registry';
import { runTool, selectDefinitions, type AdapterOptions, type Approver } from './shared';

export type { AdapterOptions, SessionSource, ToolSession, Approver, ApprovalRequest } from './shared';

export interface LangChainToolsOptions extends AdapterOptions<LangChainRuntime> {
  /**
   * Decides calls of tools whose approval policy asks for a human. Without it such a call is
   * refused with APPROVAL_REQUIRED (LangChain has no approval flow of its own to defer to).
   */
  approve?: Approver;
}

/** What a session resolver receives: the RunnableConfig of the tool invocation (`configurable`, `metadata`…). */
export type LangChainRuntime = RunnableConfig | undefined;

interface ToolCallLike {
  type: 'tool_call';
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * The registry's tools as LangChain StructuredTools, for `model.bindTools(tools)` and
 * `tool.invoke(toolCall)`. The JSON Schema is passed through; toolwright validates and runs the
 * call. LangChain checks arguments against the schema before a tool runs; when it rejects them,
 * toolwright's typed error (the same structured JSON as everywhere else) is returned instead of
 * LangChain's generic parsing exception.
 */
export function toLangChainTools(registry: ToolRegistry, options: LangChainToolsOptions): DynamicStructuredTool[] {
  return selectDefinitions(registry, options.tools).map((def) => {
    const name = def.name;
    const run = (args: object, config: LangChainRuntime) => {
      const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
      return runTool(registry, name, args, options, config, { toolCallId, signal: config?.signal }, options.approve);
    };
    const lcTool = new DynamicStructuredTool({
      name,
      description: def.description,
      schema: structuredClone(def.parameters),
      func: async (input: unknown, _runManager, config) => (await run(input ?? {}, config)).text,
    });
    const call = lcTool.call.bind(lcTool) as (arg: unknown, config?: RunnableConfig, tags?: string[]) => Promise<unknown>;
    const patched = async (arg: unknown, config?: RunnableConfig, tags?: string[]): Promise<unknown> => {
      try {
        return await call(arg, config, tags);
      } catch (error) {
        if (!(error instanceof ToolInputParsingException) || options.errors === 'throw') throw error;
        // `invoke(toolCall)` passes the arguments here and the call itself on the config.
        const fromConfig = (config as { toolCall?: unknown } | undefined)?.toolCall;
        const toolCall = isToolCall(arg) ? arg : isToolCall(fromConfig) ? fromConfig : undefined;
        const args = isToolCall(arg) ? arg.args : arg;
        // Let toolwright's validator speak: it rejects the same arguments with field-level errors.
        const { text, failed } = await run(args ?? {}, { ...config, toolCall } as RunnableConfig);
        if (!toolCall?.id) return text;
        return new ToolMessage({ content: text, tool_call_id: toolCall.id, name, status: failed ? 'error' : 'success' });
      }
    };
    Object.defineProperty(lcTool, 'call', { value: patched, configurable: true, writable: true });
    return lcTool;
  });
}

function isToolCall(value: unknown): value is ToolCallLike {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'tool_call';
}
