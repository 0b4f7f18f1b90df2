/**
 * Vercel AI SDK adapter: `import { toAiSdkTools } from 'toolwright/adapters/ai-sdk'`.
 * Needs the optional peer dependency `ai`, major 6 or 7.
 */
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import type { ToolContent } from '../content/tool-content';
import type { ToolRegistry } from '../registry/tool-registry';
import { toModelOutput } from './ai-sdk-content';
import { needsApproval, resolveSession, runTool, selectDefinitions, type AdapterOptions } from './shared';

export type { AdapterOptions, SessionSource, ToolSession } from './shared';

/**
 * What a session resolver receives from the AI SDK for each call: the call's options as either
 * major passes them (written out here so the declarations type-check against ai 6 and ai 7 alike).
 */
export interface AiSdkRuntime {
  toolCallId: string;
  messages: readonly unknown[];
  abortSignal?: AbortSignal;
  /** ai 6: `generateText({ experimental_context })`. */
  experimental_context?: unknown;
  /** ai 7: this tool's entry of `generateText({ toolsContext })`. */
  context?: unknown;
  /** ai 7, in `toolApproval` only: `generateText({ runtimeContext })`. */
  runtimeContext?: unknown;
}

/**
 * The registry's tools as AI SDK `tool()`s keyed by name, for `generateText({ tools })` /
 * `streamText`. Schemas are passed through with `jsonSchema()`; arguments are validated and the
 * tool run by `registry.call`, with the AI SDK's tool call id and abort signal. A tool's result
 * (or, by default, its typed error) reaches the model as a JSON value. A tool with an approval
 * policy carries `needsApproval`, which both majors read (ai 7 prefers `toolApproval`, below).
 */
export function toAiSdkTools(registry: ToolRegistry, options: AdapterOptions<AiSdkRuntime>): ToolSet {
  const tools: ToolSet = {};
  for (const def of selectDefinitions(registry, options.tools)) {
    const name = def.name;
    const gated = registry.describe(name).approval !== undefined;
    tools[name] = tool<unknown, unknown>({
      description: def.description,
      inputSchema: jsonSchema<unknown>(def.parameters as JSONSchema7),
      // The tool's approval policy, through the AI SDK's own approval flow (the host app's UI decides).
      ...(gated
        ? {
            needsApproval: async (input: unknown, call: object) =>
              needsApproval(registry, name, input, await resolveSession(options.session, call as AiSdkRuntime)),
          }
        : {}),
      execute: async (input, execution) => {
        let content: ToolContent | undefined;
        const { text, failed } = await runTool(
          registry,
          name,
          input ?? {},
          options,
          execution as AiSdkRuntime,
          { toolCallId: execution.toolCallId, signal: execution.abortSignal, onContent: (c) => (content = c) },
          gated ? 'host' : undefined,
        );
        // A ToolContent result keeps its parts (MCP's shape), for toModelOutput to hand the model natively.
        if (content && !failed)
          return content.structured ? { content: content.parts, structuredContent: content.structured } : { content: content.parts };
        return JSON.parse(text) as unknown;
      },
      toModelOutput: toModelOutput as never,
    });
  }
  return tools;
}

/** ai 7's per-call approval status (`ToolApprovalStatus`), the two values this adapter gives. */
export type AiSdkApprovalStatus = 'user-approval' | 'not-applicable';

/** What ai 7 passes a per-tool `toolApproval` function besides the input. */
export interface AiSdkApprovalCall {
  toolCallId: string;
  messages: readonly unknown[];
  toolContext?: unknown;
  runtimeContext?: unknown;
}

/**
 * ai 7's name for the approval gate: `generateText({ tools, toolApproval: toAiSdkToolApproval(registry, options) })`.
 * One entry per tool with an approval policy, asking the registry's gate as `needsApproval` does;
 * the session resolver sees `{ toolCallId, messages, context: toolContext, runtimeContext }`.
 * ai 7 reads it before any tool's `needsApproval`; on ai 6 keep to `toAiSdkTools` alone.
 */
export function toAiSdkToolApproval(
  registry: ToolRegistry,
  options: AdapterOptions<AiSdkRuntime>,
): Record<string, (input: unknown, call: AiSdkApprovalCall) => Promise<AiSdkApprovalStatus>> {
  const entries = selectDefinitions(registry, options.tools)
    .filter((def) => registry.describe(def.name).approval !== undefined)
    .map((def) => {
      const decide = async (input: unknown, call: AiSdkApprovalCall): Promise<AiSdkApprovalStatus> => {
        const runtime: AiSdkRuntime = {
          toolCallId: call.toolCallId,
          messages: call.messages,
          context: call.toolContext,
          runtimeContext: call.runtimeContext,
        };
        const required = await needsApproval(registry, def.name, input, await resolveSession(options.session, runtime));
        return required ? 'user-approval' : 'not-applicable';
      };
      return [def.name, decide] as const;
    });
  return Object.fromEntries(entries);
}
