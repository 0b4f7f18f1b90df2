import type { JsonSchema } from '../../metadata/json-schema';

/** What the strict modes (OpenAI Structured Outputs, Anthropic strict tool use) share. */

export interface StrictOptions {
  /** Send the tool in the provider's strict mode when its schema allows it (default false). */
  strict?: boolean;
  /** Told why a tool asked for in strict mode is sent non-strict instead (the schema is sent as written). */
  onFallback?: (reason: string, tool: string) => void;
}

/** Thrown inside a strict transform when a schema has no strict equivalent (an open object, say). */
export class NotStrictRepresentable extends Error {}

/** Strict modes close every object: one that accepts unlisted properties has no strict equivalent. */
export function requireClosedObject(
  schema: JsonSchema,
  mode: string,
): asserts schema is JsonSchema & { properties: Record<string, JsonSchema> } {
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    throw new NotStrictRepresentable(`an object accepts properties it does not list (additionalProperties), which ${mode} cannot express`);
  }
  if (!schema.properties) {
    throw new NotStrictRepresentable(`an object lists no properties (a free-form object), which ${mode} cannot express`);
  }
}
