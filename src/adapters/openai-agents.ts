/**
 * OpenAI Agents SDK adapter: `import { toOpenAIAgentsTools } from 'toolwright/adapters/openai-agents'`.
 * Needs the optional peer dependency `@openai/agents-core` (or `@openai/agents`, which re-exports it).
 */
import { tool, type FunctionTool, type RunContext } from '@openai/agents-core';
import { encodeToolError, ToolwrightError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import { nullsToAbsent, toOpenAITool } from '../schema/providers';
import { needsApproval, resolveSession, runTool, selectDefinitions, type AdapterOptions } from './shared';

export type { AdapterOptions, SessionSource, ToolSession } from './shared';

/** What a session resolver receives: the run's context (`runner.run(agent, input, { context })`) and the call id. */
export interface OpenAIAgentsRuntime<C = unknown> {
  runContext?: RunContext<C>;
  toolCallId?: string;
}

export interface OpenAIAgentsOptions<C = unknown> extends AdapterOptions<OpenAIAgentsRuntime<C>> {
  /**
   * OpenAI strict mode (default false): the schema is rewritten so optional fields are nullable,
   * and the model's nulls are mapped back to absent before toolwright validates the arguments.
   * A schema strict mode cannot express falls back to non-strict.
   */
  strict?: boolean;
}

/**
 * The registry's tools as Agents SDK FunctionTools for `new Agent({ tools })`. The JSON Schema is
 * passed through; toolwright validates the arguments and runs the tool. By default a typed error
 * comes back to the model as its compact JSON result.
 */
export function toOpenAIAgentsTools<C = unknown>(registry: ToolRegistry, options: OpenAIAgentsOptions<C>): FunctionTool<C>[] {
  return selectDefinitions(registry, options.tools).map((def) => {
    const { function: fn } = toOpenAITool(def, { strict: options.strict });
    const strict = fn.strict === true;
    const name = def.name;
    return tool({
      name,
      description: def.description,
      // A JSON Schema object; the SDK only parses the model's JSON and leaves validation to us.
      parameters: fn.parameters as never,
      strict: strict as false,
      // The registry's gate decides what the model is offered this run, with the run's user.
      ...(registry.gated
        ? {
            isEnabled: async ({ runContext }: { runContext: RunContext<C> }) =>
              registry.permits(name, (await resolveSession(options.session, { runContext })).context),
          }
        : {}),
      // Approval through the Agents SDK's own interruptions (result.interruptions → state.approve/reject).
      ...(registry.describe(name).approval === undefined
        ? {}
        : {
            needsApproval: async (runContext: RunContext, input: unknown, callId?: string) =>
              needsApproval(
                registry,
                name,
                strict ? nullsToAbsent(def.parameters, input) : input,
                await resolveSession(options.session, { runContext: runContext as RunContext<C>, toolCallId: callId }),
              ),
          }),
      // The SDK parses the model's JSON before execute: broken text gets the typed INVALID_JSON answer every other surface gives.
      ...(options.errors === 'throw' ? {} : { errorFunction: (_context: RunContext<C>, error: unknown) => agentsToolError(name, error) }),
      execute: async (input: unknown, runContext?: RunContext<C>, details?: { toolCall?: { callId?: string } }) => {
        const args = strict ? nullsToAbsent(def.parameters, input) : input;
        const toolCallId = details?.toolCall?.callId;
        const approval = registry.describe(name).approval === undefined ? undefined : 'host';
        const { text } = await runTool(registry, name, args ?? {}, options, { runContext, toolCallId }, { toolCallId }, approval);
        return text;
      },
    });
  });
}

/** What the model sees when the Agents SDK fails a call before or around execute (its own text would be untyped). */
function agentsToolError(name: string, error: unknown): string {
  if (error instanceof ToolwrightError) return error.toToolResult();
  if (error instanceof Error && error.message.startsWith('Invalid JSON input'))
    return encodeToolError('INVALID_JSON', `The arguments for tool "${name}" are not valid JSON.`);
  return encodeToolError('INTERNAL', `Tool "${name}" failed unexpectedly.`);
}
