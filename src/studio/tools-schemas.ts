/**
 * One tool as the Tools page shows it: its description and hints, the input schema its form is
 * generated from, the schema each provider is told (the same functions the adapters use), and the
 * reasons a strict mode fell back to the schema as written.
 */
import type { ToolDefinition } from '../metadata/json-schema';
import type { RegisteredTool } from '../registry/registered-tool';
import { toAnthropicTool, toGeminiFunctionDeclaration, toMcpTool, toOpenAITool } from '../schema/providers';

export interface StrictFallback {
  provider: 'openai' | 'anthropic';
  reason: string;
}

/** A provider's form of the tool, or why the provider cannot be told it (Gemini refuses some schemas). */
export type ProviderSchema = { schema: unknown } | { error: string };

export interface ToolView {
  name: string;
  description: string;
  /** `true`, `false`, or `'policy'` (a function decides per call). */
  approval: boolean | 'policy';
  annotations: Record<string, unknown>;
  tags: readonly string[];
  inputSchema: ToolDefinition['parameters'];
  outputSchema?: ToolDefinition['outputSchema'];
  providers: Record<'openai' | 'openaiStrict' | 'anthropic' | 'anthropicStrict' | 'gemini' | 'mcp', ProviderSchema>;
  strictFallbacks: StrictFallback[];
}

export function describeTool(tool: RegisteredTool): ToolView {
  const def = tool.definition;
  const strictFallbacks: StrictFallback[] = [];
  const approval = tool.approval;
  return {
    name: tool.name,
    description: def.description,
    approval: typeof approval === 'function' ? 'policy' : approval === true,
    annotations: { ...tool.annotations },
    tags: tool.tags,
    inputSchema: def.parameters,
    outputSchema: def.outputSchema,
    providers: {
      openai: attempt(() => toOpenAITool(def)),
      openaiStrict: attempt(() =>
        toOpenAITool(def, { strict: true, onFallback: (reason) => strictFallbacks.push({ provider: 'openai', reason }) }),
      ),
      anthropic: attempt(() => toAnthropicTool(def)),
      anthropicStrict: attempt(() =>
        toAnthropicTool(def, { strict: true, onFallback: (reason) => strictFallbacks.push({ provider: 'anthropic', reason }) }),
      ),
      gemini: attempt(() => toGeminiFunctionDeclaration(def)),
      mcp: attempt(() => toMcpTool(def)),
    },
    strictFallbacks,
  };
}

function attempt(convert: () => unknown): ProviderSchema {
  try {
    return { schema: convert() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
