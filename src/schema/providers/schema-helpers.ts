import type { JsonSchema } from '../../metadata/json-schema';

/**
 * Generic JSON Schema helpers the provider formats share. Pure: inputs are never mutated.
 */

export function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.nullable === true || schema.const === null || schema.enum?.includes(null)) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(acceptsNull);
}

export function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || !!schema.properties;
}

export function isArraySchema(schema: JsonSchema): boolean {
  return schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')) || !!schema.items;
}

/** Folds `allOf` object branches into their parent (properties and `required` united). */
export function mergeAllOf(schema: JsonSchema): JsonSchema {
  if (!schema.allOf) return schema;
  const { allOf, ...rest } = schema;
  let merged: JsonSchema = rest;
  for (const branch of allOf.map(mergeAllOf)) {
    const required = [...new Set([...(merged.required ?? []), ...(branch.required ?? [])])];
    merged = { ...branch, ...merged };
    if (branch.properties) {
      // Earlier declarations keep their place and win on conflict; later branches only add.
      const properties = { ...merged.properties };
      for (const [key, value] of Object.entries(branch.properties))
        if (!Object.prototype.hasOwnProperty.call(properties, key)) setOwn(properties, key, value);
      merged.properties = properties;
    }
    if (required.length) merged.required = required;
  }
  return merged;
}

/** A root object without `properties` is a tool that takes no arguments. */
export function withEmptyProperties(schema: JsonSchema): JsonSchema {
  return schema.properties || schema.additionalProperties ? schema : { ...schema, type: 'object', properties: {} };
}

/** A copy of the schema declared as an object (the formats that require an object root). */
export function asObjectSchema(schema: JsonSchema): JsonSchema & { type: 'object' } {
  return { ...clone(schema), type: 'object' };
}

/**
 * `not` (how `@NotEquals`, `@IsNotIn` and enums with no common value are told) in words, for the
 * formats without the keyword (OpenAI strict mode, Gemini), so their models still read it.
 */
export function notNote(not: unknown): string {
  const schema = (isPlainObject(not) ? not : {}) as JsonSchema;
  if (Object.keys(schema).length === 0) return 'no value is accepted';
  if (schema.const !== undefined && Object.keys(schema).length === 1) return `must not be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && Object.keys(schema).length === 1)
    return `must not be one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  return `must not match ${JSON.stringify(not)}`;
}

/** Appends the notes (constraints a format cannot carry) to the description. */
export function withNotes<T extends { description?: string }>(schema: T, notes: string[]): T {
  if (notes.length === 0) return schema;
  const note = notes.join('; ');
  return { ...schema, description: schema.description ? `${schema.description} (${note})` : note };
}

export function mapValues<T, U>(record: Record<string, T>, map: (value: T, key: string) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const [key, value] of Object.entries(record)) setOwn(out, key, map(value, key));
  return out;
}

/** Defines an own property, so a key such as `__proto__` is data, never a prototype change. */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}
