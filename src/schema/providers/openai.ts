import type { JsonSchema, JsonSchemaType, ToolDefinition } from '../../metadata/json-schema';
import { checkOpenAILimits } from './openai-limits';
import {
  acceptsNull,
  clone,
  isArraySchema,
  isObjectSchema,
  mapValues,
  mergeAllOf,
  notNote,
  setOwn,
  withEmptyProperties,
  withNotes,
} from './schema-helpers';
import { NotStrictRepresentable, requireClosedObject, type StrictOptions } from './strict';

/** One `ToolDefinition` in OpenAI's function-tool format. */

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** String formats OpenAI strict mode accepts (Structured Outputs "supported properties"). */
const OPENAI_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Keywords OpenAI strict mode accepts; everything else is dropped (a few leave a note in the description). */
const OPENAI_STRICT_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'enum',
  'const',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
]);

/**
 * `{ type: 'function', function: { name, description, parameters, strict? } }`.
 *
 * With `strict: true` the parameters are rewritten for OpenAI Structured Outputs: every property is
 * listed in `required`, originally optional ones accept `null`, every object gets
 * `additionalProperties: false` (recursively), `oneOf` becomes `anyOf`, `allOf` is merged, and
 * keywords strict mode rejects are dropped. Map the model's arguments back with
 * `nullsToAbsent(def.parameters, args)` before validating them against the original schema.
 * A schema strict mode cannot express (a free-form object) or one over OpenAI's published limits
 * (`OPENAI_STRICT_LIMITS`) falls back to `strict: false`, rather than silently changing its meaning
 * or being refused by the API; `onFallback` is told why.
 */
export function toOpenAITool(def: ToolDefinition, options: StrictOptions = {}): OpenAITool {
  const base = { name: def.name, description: def.description };
  if (options.strict) {
    try {
      const parameters = strictify(withEmptyProperties(mergeAllOf(def.parameters)));
      checkOpenAILimits(parameters);
      return { type: 'function', function: { ...base, parameters: clone(parameters), strict: true } };
    } catch (error) {
      if (!(error instanceof NotStrictRepresentable)) throw error;
      options.onFallback?.(error.message, def.name);
      return { type: 'function', function: { ...base, parameters: clone(def.parameters), strict: false } };
    }
  }
  return { type: 'function', function: { ...base, parameters: clone(def.parameters) } };
}

function strictify(input: JsonSchema): JsonSchema {
  const schema = mergeAllOf(input);
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'format' && !OPENAI_STRICT_FORMATS.has(String(value))) notes.push(`format: ${String(value)}`);
    else if (keyword === 'default') notes.push(`default: ${JSON.stringify(value)}`);
    else if (keyword === 'uniqueItems' && value === true) notes.push('items must be unique');
    else if (keyword === 'not') notes.push(notNote(value));
    else if (OPENAI_STRICT_KEYWORDS.has(keyword)) setOwn(out, keyword, value);
  }
  if (schema.oneOf && !schema.anyOf) out.anyOf = schema.oneOf;
  if (out.anyOf) out.anyOf = out.anyOf.map(strictify);
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = schema[key] as Record<string, JsonSchema> | undefined;
    if (defs) out[key] = mapValues(defs, strictify);
  }

  if (isObjectSchema(schema)) {
    requireClosedObject(schema, 'strict mode');
    const required = new Set(schema.required ?? []);
    out.properties = mapValues(schema.properties, (property, key) =>
      required.has(key) ? strictify(property) : makeNullable(strictify(property)),
    );
    out.required = Object.keys(schema.properties);
    out.additionalProperties = false;
  }
  if (isArraySchema(schema)) {
    if (!schema.items) throw new NotStrictRepresentable('an array does not say what its items are, which strict mode cannot express');
    out.items = strictify(schema.items);
  }
  return withNotes(out, notes);
}

/** Lets an optional property be sent as `null`: the strict-mode spelling of "absent". */
function makeNullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  if (schema.anyOf) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  // `enum`/`const` restrict values whatever the type says, so a type array would still reject null.
  const needsUnion = schema.enum !== undefined || schema.const !== undefined || schema.type === 'object' || schema.type === undefined;
  if (needsUnion) return { anyOf: [schema, { type: 'null' }] };
  const types = Array.isArray(schema.type) ? schema.type : [schema.type as JsonSchemaType];
  return { ...schema, type: [...types, 'null'] };
}
