import type { JsonSchema } from '../../metadata/json-schema';
import { acceptsNull, isArraySchema, isObjectSchema, isPlainObject, mergeAllOf, setOwn } from './schema-helpers';

/**
 * Given the ORIGINAL (non-strict) parameters schema and the arguments a model produced under
 * OpenAI strict mode, returns a copy without the `null`s that stand for "absent": null values of
 * properties that were optional in the original schema (and did not themselves allow null),
 * recursively through nested objects and arrays. The result validates against the original schema.
 */
export function nullsToAbsent(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = branchFor(schema, value)?.items;
    return items ? value.map((item) => nullsToAbsent(items, item)) : [...value];
  }
  if (!isPlainObject(value)) return value;
  const objectSchema = branchFor(schema, value);
  const properties = objectSchema?.properties ?? {};
  const required = new Set(objectSchema?.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const property = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    if (child === null && property && !required.has(key) && !acceptsNull(property)) continue;
    setOwn(out, key, property ? nullsToAbsent(property, child) : child);
  }
  return out;
}

/** The branch of a union (or the merged `allOf`) that describes a value of this JS shape. */
function branchFor(schema: JsonSchema, value: unknown[] | Record<string, unknown>): JsonSchema | undefined {
  const merged = mergeAllOf(schema);
  const branches = merged.anyOf ?? merged.oneOf;
  if (!branches) return merged;
  const wanted = Array.isArray(value) ? isArraySchema : isObjectSchema;
  const branch = branches.find(wanted);
  return branch ? branchFor(branch, value) : undefined;
}
