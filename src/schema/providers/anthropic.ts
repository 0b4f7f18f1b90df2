import type { JsonSchema, ToolDefinition } from '../../metadata/json-schema';
import { recursiveRef, resolveLocalRef } from './refs';
import {
  asObjectSchema,
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

/** One `ToolDefinition` in Anthropic's tool format. */

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
  /** Strict tool use (grammar-constrained inputs); present when asked for. */
  strict?: boolean;
}

/** String formats Anthropic strict tool use accepts (the rest become a note in the description). */
const ANTHROPIC_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** Keywords that constrain nothing the model writes: dropped without a note. */
const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment', 'discriminator']);

/** Keywords rewritten recursively after the keyword pass, so it skips them. */
const NESTED_KEYWORDS = ['properties', 'items', 'anyOf', 'oneOf', '$defs', 'definitions', 'additionalProperties'];

/**
 * `{ name, description, input_schema }`: Anthropic takes JSON Schema as written.
 *
 * With `strict: true` (strict tool use, grammar-constrained inputs) the schema is rewritten to the
 * subset Anthropic publishes for it (the same rules as its SDK's `transformJSONSchema`): every object
 * gets `additionalProperties: false`; `required` stays as it is (optional properties may be left
 * out); `type`, `enum`/`const` of plain values, `anyOf` (`oneOf` becomes `anyOf`, `allOf` is
 * merged), local `$ref`/`$defs`, `title`, `description`, `items`, the supported string formats and
 * `minItems` of 0 or 1 are kept; every other keyword (`minimum`, `maxLength`, `pattern`, `maxItems`,
 * `default`, …) moves into the description, so the model still reads it and toolwright still
 * enforces it. A schema with no strict equivalent (a free-form object, a recursive `$ref`, a
 * property without a type) is sent non-strict (`strict: false`), and `onFallback` is told why.
 */
export function toAnthropicTool(def: ToolDefinition, options: StrictOptions = {}): AnthropicTool {
  const base = { name: def.name, description: def.description };
  if (options.strict) {
    try {
      const cycle = recursiveRef(def.parameters);
      if (cycle) throw new NotStrictRepresentable(`"${cycle}" refers to itself (a recursive schema), which strict tool use cannot express`);
      const root = anthropicStrict(withEmptyProperties(def.parameters), def.parameters);
      return { ...base, input_schema: { ...clone(root), type: 'object' }, strict: true };
    } catch (error) {
      if (!(error instanceof NotStrictRepresentable)) throw error;
      options.onFallback?.(error.message, def.name);
      return { ...base, input_schema: asObjectSchema(def.parameters), strict: false };
    }
  }
  return { ...base, input_schema: asObjectSchema(def.parameters) };
}

function anthropicStrict(input: JsonSchema, root: JsonSchema): JsonSchema {
  if (typeof input.$ref === 'string') {
    if (!resolveLocalRef(root, input.$ref)) throw new NotStrictRepresentable(`"${input.$ref}" is not a local $defs reference`);
    return { $ref: input.$ref };
  }
  const schema = mergeAllOf(input);
  const plain = (v: unknown) => v === null || typeof v !== 'object';
  const plainEnum = schema.enum !== undefined && schema.enum.length > 0 && schema.enum.every(plain);
  const literals = plainEnum || (schema.const !== undefined && plain(schema.const));
  const branches = schema.anyOf ?? schema.oneOf;
  const { out, notes } = strictKeywords(schema, literals);
  if (branches) out.anyOf = branches.map((branch) => anthropicStrict(branch, root));
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = schema[key] as Record<string, JsonSchema> | undefined;
    if (defs) out[key] = mapValues(defs, (definition) => anthropicStrict(definition, root));
  }
  if (schema.type === undefined && !literals && !branches) {
    throw new NotStrictRepresentable('a property has no type (nor enum, const or anyOf), which strict tool use requires');
  }
  if (isObjectSchema(schema)) {
    requireClosedObject(schema, 'strict tool use');
    out.properties = mapValues(schema.properties, (property) => anthropicStrict(property, root));
    out.additionalProperties = false;
  }
  if (isArraySchema(schema)) {
    if (!schema.items) throw new NotStrictRepresentable('an array does not say what its items are, which strict tool use cannot express');
    out.items = anthropicStrict(schema.items, root);
  }
  return withNotes(out, notes);
}

/** The keywords strict tool use keeps, and notes for the ones it does not (nested schemas aside). */
function strictKeywords(schema: JsonSchema, literals: boolean): { out: JsonSchema; notes: string[] } {
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    // With plain enum/const values the type says nothing more (Anthropic's SDK drops it too).
    if (keyword === 'type') {
      if (!literals) out.type = value as JsonSchema['type'];
    } else if (keyword === 'title' || keyword === 'description') setOwn(out, keyword, value);
    else if ((keyword === 'enum' || keyword === 'const') && literals) setOwn(out, keyword, value);
    else if (keyword === 'format' && ANTHROPIC_STRICT_FORMATS.has(String(value))) out.format = String(value);
    else if (keyword === 'minItems' && (value === 0 || value === 1)) out.minItems = value;
    else if (keyword === 'required' && Array.isArray(value)) out.required = [...(value as string[])];
    else if (NESTED_KEYWORDS.includes(keyword)) continue;
    else if (keyword === 'not') notes.push(notNote(value));
    else if (!SILENT_KEYWORDS.has(keyword)) notes.push(`${keyword}: ${JSON.stringify(value)}`);
  }
  return { out, notes };
}
