/**
 * Vercel AI SDK adapter: `import { toAiSdkTools } from 'toolwright/adapters/ai-sdk'`.
 * Needs the optional peer dependency `ai` (v6).
 */
import { jsonSchema, tool, type JSONSchema7, type ToolExecutionOptions, type ToolSet } from 'ai';
import type { ToolRegistry } from '../registry/tool-registry';
import { needsApproval, resolveSession, runTool, selectDefinitions, type AdapterOptions } from './shared';

export type { AdapterOptions, SessionSource, ToolSession } from './shared';

/** What a session resolver receives from the AI SDK for each call. */
export type AiSdkRuntime = ToolExecutionOptions;

/**
 * The registry's tools as AI SDK `tool()`s keyed by name, for `generateText({ tools })` /
 * `streamText`. Schemas are passed through with `jsonSchema()`; arguments are validated and the
 * tool run by `registry.call`, with the AI SDK's tool call id and abort signal. A tool's result
 * (or, by default, its typed error) reaches the model as a JSON value.
 */
export function toAiSdkTools(registry: ToolRegistry, options: AdapterOptions<AiSdkRuntime>): ToolSet {
  const tools: ToolSet = {};
  for (const def of selectDefinitions(registry, options.tools)) {
    const name = def.name;
    tools[name] = tool<unknown, unknown>({
      description: def.description,
      inputSchema: jsonSchema<unknown>(def.parameters as JSONSchema7),
      // The tool's approval policy, through the AI SDK's own approval flow (the host app's UI decides).
      ...(registry.describe(name).approval === undefined
        ? {}
        : {
            needsApproval: async (
              input: unknown,
              call: { toolCallId: string; messages: ToolExecutionOptions['messages']; experimental_context?: unknown },
            ) => needsApproval(registry, name, input, await resolveSession(options.session, call as AiSdkRuntime)),
          }),
      execute: async (input, execution) => {
        const approval = registry.describe(name).approval === undefined ? undefined : 'host';
        const { text } = await runTool(
          registry,
          name,
          input ?? {},
          options,
          execution,
          { toolCallId: execution.toolCallId, signal: execution.abortSignal },
          approval,
        );
        return JSON.parse(text) as unknown;
      },
    });
  }
  return tools;
}
