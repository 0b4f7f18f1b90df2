/**
 * `toolwright/providers`: one `ToolDefinition` in each provider's tool format. Pure functions: the input
 * is never mutated and every result is a fresh copy, so callers may freeze or cache definitions freely.
 */

export { toOpenAITool, type OpenAITool } from './openai';
export { OPENAI_STRICT_LIMITS } from './openai-limits';
export { toAnthropicTool, type AnthropicTool } from './anthropic';
export { toGeminiFunctionDeclaration, type GeminiFunctionDeclaration } from './gemini';
export type { GeminiSchema } from './gemini-schema';
export { toMcpTool, type McpTool } from './mcp';
export { nullsToAbsent } from './nulls-to-absent';
export type { StrictOptions } from './strict';
export type { JsonSchema, JsonSchemaType, ToolDefinition } from '../../metadata/json-schema';
export type { ContentPart, EmbeddedResource } from '../../content/tool-content';
