import { ToolDefinitionError } from '../errors/errors';
import type { JsonSchema, ToolDefinition } from '../metadata/json-schema';
import type { ToolAnnotations } from '../metadata/types';
import type { AgentContext } from '../session/agent-context';
import { createJsonSchemaAjv } from '../validation/ajv';
import { compileSchemaInput, compileSerializer } from './call-pipeline';
import type { ToolEntry } from './registered-tool';
import { deepFreeze, NAME, type Builder } from './tool-builder';
import type { SourcedTool } from './tool-source';

/** The class every sourced tool's record names: it has no class of its own. */
export class SourcedToolClass {}

/**
 * A sourced tool's entry: its input schema compiled by the Ajv of hand-written definitions (the
 * same bounded errors and I-JSON rules), its output schema checked on every result. Throws
 * ToolDefinitionError for a name or schema that cannot be served; the registry leaves that tool out.
 */
export function buildSourcedEntry(tool: SourcedTool, builder: Builder): ToolEntry {
  const where = `${tool.origin.source}: tool "${tool.origin.name}"`;
  const raw = tool.definition;
  if (typeof raw?.name !== 'string' || !NAME.test(raw.name))
    throw new ToolDefinitionError(`${where}: name "${String(raw?.name)}" is not accepted by model providers.`);
  if (!raw.parameters || typeof raw.parameters !== 'object' || raw.parameters.type !== 'object')
    throw new ToolDefinitionError(`${where}: inputSchema must be a JSON Schema of type "object".`);
  const definition: ToolDefinition = structuredClone({
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description : '',
    parameters: raw.parameters,
    ...(raw.outputSchema && { outputSchema: raw.outputSchema }),
  });
  builder.schemaAjv ??= createJsonSchemaAjv();
  const compile = (schema: JsonSchema, what: string) => {
    try {
      return builder.schemaAjv!(schema);
    } catch (error) {
      throw new ToolDefinitionError(`${where}: its ${what} is not a usable JSON Schema: ${(error as Error).message}`);
    }
  };
  const input = compile(definition.parameters, 'inputSchema');
  const output = definition.outputSchema && {
    schema: definition.outputSchema,
    validation: compile(definition.outputSchema, 'outputSchema'),
  };
  deepFreeze(definition);
  const instance = {
    definition: () => definition,
    execute: (args: object, context: AgentContext) => tool.execute(args, context),
  };
  return {
    kind: 'tool',
    name: definition.name,
    definition,
    instance,
    toolClass: SourcedToolClass,
    origin: Object.freeze({ ...tool.origin }),
    tags: Object.freeze([...(tool.tags ?? [])]),
    sequential: false,
    timeoutMs: tool.timeoutMs,
    approval: tool.approval,
    rateLimit: tool.rateLimit,
    annotations: tool.annotations && Object.freeze(hints(tool.annotations)),
    // What a source throws is written for the model (the remote's own error text, or why it cannot be reached).
    exposeErrors: true,
    memory: false,
    parse: compileSchemaInput(definition.name, input, builder.limits),
    serialize: compileSerializer(definition.name, output),
  };
}

/** Only the known hints, of their own types: a server's annotations are untrusted input. */
function hints(annotations: ToolAnnotations): ToolAnnotations {
  const kept: ToolAnnotations = {};
  if (typeof annotations.title === 'string') kept.title = annotations.title;
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (typeof annotations[key] === 'boolean') kept[key] = annotations[key];
  return kept;
}
