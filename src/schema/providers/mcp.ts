import type { JsonSchema, ToolDefinition } from '../../metadata/json-schema';
import { asObjectSchema, isObjectSchema } from './schema-helpers';

/** One `ToolDefinition` in MCP's tool format. */

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
}

/**
 * `{ name, description, inputSchema, outputSchema? }`. MCP requires object schemas; an output
 * contract that is not an object (nor a union of objects) is left out rather than misdeclared.
 */
export function toMcpTool(def: ToolDefinition): McpTool {
  const tool: McpTool = { name: def.name, description: def.description, inputSchema: asObjectSchema(def.parameters) };
  if (def.outputSchema && describesObjects(def.outputSchema)) tool.outputSchema = asObjectSchema(def.outputSchema);
  return tool;
}

function describesObjects(schema: JsonSchema): boolean {
  if (isObjectSchema(schema)) return true;
  const branches = schema.oneOf ?? schema.anyOf;
  return !!branches && branches.length > 0 && branches.every(describesObjects);
}
