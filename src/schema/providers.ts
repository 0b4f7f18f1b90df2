import type { JsonSchema, JsonSchemaType, ToolDefinition } from './json-schema';

/**
 * One `ToolDefinition`, exported in each provider's tool format. Pure functions: the input is never
 * mutated and every result is a fresh copy, so callers may freeze or cache definitions freely.
 */

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
}

/** Gemini's `Schema`: a subset of the OpenAPI 3.0 schema object. */
export interface GeminiSchema {
  type?: Exclude<JsonSchemaType, 'null'>;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  example?: unknown;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Absent for a tool without arguments: Gemini rejects an object schema with no properties. */
  parameters?: GeminiSchema;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
}

// ---------------------------------------------------------------------------------------------
// OpenAI

/** String formats OpenAI strict mode accepts (Structured Outputs "supported properties"). */
const OPENAI_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Keywords OpenAI strict mode accepts; everything else is dropped (a few leave a note in the description). */
const OPENAI_STRICT_KEYWORDS = new Set([
  'type', 'title', 'description', 'enum', 'const', 'pattern', 'format', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
  'properties', 'required', 'additionalProperties', 'items', 'anyOf', '$ref', '$defs', 'definitions',
]);

/** Thrown inside the strict transform when a schema has no strict equivalent (an open object, say). */
class NotStrictRepresentable extends Error {}

/**
 * `{ type: 'function', function: { name, description, parameters, strict? } }`.
 *
 * With `strict: true` the parameters are rewritten for OpenAI Structured Outputs: every property is
 * listed in `required`, originally optional ones accept `null`, every object gets
 * `additionalProperties: false` (recursively), `oneOf` becomes `anyOf`, `allOf` is merged, and
 * keywords strict mode rejects are dropped. Map the model's arguments back with
 * `nullsToAbsent(def.parameters, args)` before validating them against the original schema.
 * A schema strict mode cannot express (a free-form object) falls back to `strict: false` rather
 * than silently changing its meaning.
 */
export function toOpenAITool(def: ToolDefinition, options: { strict?: boolean } = {}): OpenAITool {
  const base = { name: def.name, description: def.description };
  if (options.strict) {
    try {
      const root = withEmptyProperties(mergeAllOf(def.parameters));
      return { type: 'function', function: { ...base, parameters: clone(strictify(root)), strict: true } };
    } catch (error) {
      if (!(error instanceof NotStrictRepresentable)) throw error;
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
    else if (OPENAI_STRICT_KEYWORDS.has(keyword)) setOwn(out, keyword, value);
  }
  if (schema.oneOf && !schema.anyOf) out.anyOf = schema.oneOf;
  if (out.anyOf) out.anyOf = out.anyOf.map(strictify);
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = schema[key] as Record<string, JsonSchema> | undefined;
    if (defs) out[key] = mapValues(defs, strictify);
  }

  if (isObjectSchema(schema)) {
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      throw new NotStrictRepresentable('open object');
    }
    if (!schema.properties) throw new NotStrictRepresentable('object without properties');
    const required = new Set(schema.required ?? []);
    out.properties = mapValues(schema.properties, (property, key) =>
      required.has(key) ? strictify(property) : makeNullable(strictify(property)),
    );
    out.required = Object.keys(schema.properties);
    out.additionalProperties = false;
  }
  if (isArraySchema(schema)) {
    if (!schema.items) throw new NotStrictRepresentable('array without items');
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

// ---------------------------------------------------------------------------------------------
// Anthropic, MCP

/** `{ name, description, input_schema }`: Anthropic takes JSON Schema as written. */
export function toAnthropicTool(def: ToolDefinition): AnthropicTool {
  return { name: def.name, description: def.description, input_schema: asObjectSchema(def.parameters) };
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

function asObjectSchema(schema: JsonSchema): JsonSchema & { type: 'object' } {
  return { ...clone(schema), type: 'object' };
}

function describesObjects(schema: JsonSchema): boolean {
  if (isObjectSchema(schema)) return true;
  const branches = schema.oneOf ?? schema.anyOf;
  return !!branches && branches.length > 0 && branches.every(describesObjects);
}

// ---------------------------------------------------------------------------------------------
// Gemini

/** Formats Gemini acts on, by type; others are moved into the description. */
const GEMINI_FORMATS: Record<string, Set<string>> = {
  string: new Set(['date-time', 'enum']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/** Keywords copied as they are; the rest are rewritten below or dropped. */
const GEMINI_KEYWORDS = new Set([
  'title', 'description', 'minItems', 'maxItems', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'default',
]);

/**
 * `{ name, description, parameters }` in Gemini's OpenAPI-3 subset: type arrays with `null` become
 * `nullable: true`, `const` an enum of one, `oneOf` `anyOf`, `allOf` is merged, local `$ref`s are
 * inlined, `exclusiveMinimum`/`exclusiveMaximum` become bounds, `examples` the single `example`;
 * `additionalProperties`, `$schema` and unsupported formats are dropped (constraints the model
 * should still know about are kept as a note in the description).
 */
export function toGeminiFunctionDeclaration(def: ToolDefinition): GeminiFunctionDeclaration {
  const declaration: GeminiFunctionDeclaration = { name: def.name, description: def.description };
  const parameters = clone(toGeminiSchema(def.parameters, def.parameters, new Set()));
  if (parameters.properties && Object.keys(parameters.properties).length > 0) declaration.parameters = parameters;
  return declaration;
}

function toGeminiSchema(input: JsonSchema, root: JsonSchema, refs: Set<string>): GeminiSchema {
  if (typeof input.$ref === 'string') {
    const target = resolveLocalRef(root, input.$ref);
    // Gemini has no references: inline them, and stop at a cycle rather than recurse forever.
    if (!target || refs.has(input.$ref)) return { type: 'object', description: input.description ?? target?.description };
    const { $ref: _ref, ...siblings } = input;
    return toGeminiSchema({ ...target, ...siblings }, root, new Set([...refs, input.$ref]));
  }
  const schema = mergeAllOf(input);
  const out: GeminiSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (GEMINI_KEYWORDS.has(keyword)) setOwn(out, keyword, value);
  }

  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nonNull = types.filter((t): t is Exclude<JsonSchemaType, 'null'> => t !== 'null');
  if (types.includes('null')) out.nullable = true;
  if (nonNull.length === 1) out.type = nonNull[0];
  if (nonNull.length > 1) out.anyOf = nonNull.map((type) => ({ type }));

  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const real = branches.filter((branch) => branch.type !== 'null');
    if (real.length < branches.length) out.nullable = true;
    const converted = real.map((branch) => toGeminiSchema(branch, root, refs));
    if (converted.length === 1) Object.assign(out, converted[0], out.description ? { description: out.description } : {});
    else if (converted.length > 1) out.anyOf = converted;
  }

  const values = schema.const !== undefined ? [schema.const] : schema.enum;
  if (values) {
    // Gemini enums are string-only; other literal sets are described instead of enforced.
    if (values.every((v) => typeof v === 'string')) {
      out.type = 'string';
      out.enum = values as string[];
    } else {
      const listed = values.filter((v) => v !== null);
      if (listed.length < values.length) out.nullable = true;
      notes.push(`one of: ${listed.map((v) => JSON.stringify(v)).join(', ')}`);
    }
  }

  if (schema.format !== undefined) {
    if (out.type && GEMINI_FORMATS[out.type]?.has(schema.format)) out.format = schema.format;
    else notes.push(`format: ${schema.format}`);
  }
  const integer = out.type === 'integer';
  if (schema.exclusiveMinimum !== undefined) {
    if (integer) out.minimum = maxOf(out.minimum, schema.exclusiveMinimum + 1);
    else notes.push(`greater than ${schema.exclusiveMinimum}`);
  }
  if (schema.exclusiveMaximum !== undefined) {
    if (integer) out.maximum = minOf(out.maximum, schema.exclusiveMaximum - 1);
    else notes.push(`less than ${schema.exclusiveMaximum}`);
  }
  if (schema.multipleOf !== undefined) notes.push(`multiple of ${schema.multipleOf}`);
  if (schema.uniqueItems === true) notes.push('items must be unique');
  if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];

  if (schema.properties) {
    out.properties = mapValues(schema.properties, (property) => toGeminiSchema(property, root, refs));
    if (schema.required?.length) out.required = [...schema.required];
  }
  if (schema.items) out.items = toGeminiSchema(schema.items, root, refs);
  return withNotes(out, notes);
}

function resolveLocalRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1]] as Record<string, JsonSchema> | undefined;
  return defs && Object.prototype.hasOwnProperty.call(defs, match[2]) ? defs[match[2]] : undefined;
}

// ---------------------------------------------------------------------------------------------
// Strict-mode arguments back to the original shape

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

// ---------------------------------------------------------------------------------------------
// Shared helpers

function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.nullable === true || schema.const === null || schema.enum?.includes(null)) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(acceptsNull);
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || !!schema.properties;
}

function isArraySchema(schema: JsonSchema): boolean {
  return schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')) || !!schema.items;
}

/** Folds `allOf` object branches into their parent (properties and `required` united). */
function mergeAllOf(schema: JsonSchema): JsonSchema {
  if (!schema.allOf) return schema;
  const { allOf, ...rest } = schema;
  let merged: JsonSchema = rest;
  for (const branch of allOf.map(mergeAllOf)) {
    const required = [...new Set([...(merged.required ?? []), ...(branch.required ?? [])])];
    merged = { ...branch, ...merged };
    if (branch.properties) {
      // Earlier declarations keep their place and win on conflict; later branches only add.
      const properties = { ...merged.properties };
      for (const [key, value] of Object.entries(branch.properties)) if (!Object.prototype.hasOwnProperty.call(properties, key)) setOwn(properties, key, value);
      merged.properties = properties;
    }
    if (required.length) merged.required = required;
  }
  return merged;
}

/** A root object without `properties` is a tool that takes no arguments. */
function withEmptyProperties(schema: JsonSchema): JsonSchema {
  return schema.properties || schema.additionalProperties ? schema : { ...schema, type: 'object', properties: {} };
}

function withNotes<T extends { description?: string }>(schema: T, notes: string[]): T {
  if (notes.length === 0) return schema;
  const note = notes.join('; ');
  return { ...schema, description: schema.description ? `${schema.description} (${note})` : note };
}

function mapValues<T, U>(record: Record<string, T>, map: (value: T, key: string) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const [key, value] of Object.entries(record)) setOwn(out, key, map(value, key));
  return out;
}

/** Defines an own property, so a key such as `__proto__` is data, never a prototype change. */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function maxOf(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.max(a, b);
}

function minOf(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}
