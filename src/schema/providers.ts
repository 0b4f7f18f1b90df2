import { ToolDefinitionError } from '../errors/errors';
import type { JsonSchema, JsonSchemaType, ToolDefinition } from '../metadata/json-schema';

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
  /** Strict tool use (grammar-constrained inputs); present when asked for. */
  strict?: boolean;
}

export interface StrictOptions {
  /** Send the tool in the provider's strict mode when its schema allows it (default false). */
  strict?: boolean;
  /** Told why a tool asked for in strict mode is sent non-strict instead (the schema is sent as written). */
  onFallback?: (reason: string, tool: string) => void;
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

/** Thrown inside a strict transform when a schema has no strict equivalent (an open object, say). */
class NotStrictRepresentable extends Error {}

/**
 * OpenAI's published Structured Outputs limits: a schema over them is refused by the API, so the
 * tool is sent non-strict instead. Nesting counts object levels (the root object is level 1).
 */
export const OPENAI_STRICT_LIMITS = Object.freeze({
  maxNestingLevels: 10,
  maxProperties: 5_000,
  maxEnumValues: 1_000,
  /** One string enum with more than this many values ... */
  largeEnumValues: 250,
  /** ... may total at most this many characters. */
  largeEnumChars: 15_000,
  /** Property names, definition names, enum and const values together. */
  maxTotalChars: 120_000,
});

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

/** Throws NotStrictRepresentable naming the first OpenAI limit the strict schema is over. */
function checkOpenAILimits(root: JsonSchema): void {
  const limits = OPENAI_STRICT_LIMITS;
  let properties = 0;
  let enumValues = 0;
  let chars = 0;
  let depth = 0;
  const visit = (schema: JsonSchema, level: number): void => {
    if (schema.properties) {
      level += 1;
      depth = Math.max(depth, level);
      for (const [name, property] of Object.entries(schema.properties)) {
        properties += 1;
        chars += name.length;
        visit(property, level);
      }
    }
    if (schema.enum) {
      enumValues += schema.enum.length;
      const total = schema.enum.reduce<number>((n, v) => n + String(v).length, 0);
      chars += total;
      if (schema.enum.length > limits.largeEnumValues && total > limits.largeEnumChars) {
        throw new NotStrictRepresentable(
          `an enum of ${schema.enum.length} values totals ${total} characters; OpenAI strict mode allows at most ` +
            `${limits.largeEnumChars} characters for an enum of more than ${limits.largeEnumValues} values`,
        );
      }
    }
    if (schema.const !== undefined) chars += JSON.stringify(schema.const).length;
    if (schema.items) visit(schema.items, level);
    for (const branch of schema.anyOf ?? []) visit(branch, level);
    for (const key of ['$defs', 'definitions'] as const) {
      for (const [name, definition] of Object.entries((schema[key] as Record<string, JsonSchema> | undefined) ?? {})) {
        chars += name.length;
        visit(definition, 0);
      }
    }
  };
  visit(root, 0);
  if (depth > limits.maxNestingLevels) {
    throw new NotStrictRepresentable(`${depth} levels of object nesting; OpenAI strict mode allows at most ${limits.maxNestingLevels}`);
  }
  if (properties > limits.maxProperties) {
    throw new NotStrictRepresentable(`${properties} properties; OpenAI strict mode allows at most ${limits.maxProperties}`);
  }
  if (enumValues > limits.maxEnumValues) {
    throw new NotStrictRepresentable(`${enumValues} enum values in all; OpenAI strict mode allows at most ${limits.maxEnumValues}`);
  }
  if (chars > limits.maxTotalChars) {
    throw new NotStrictRepresentable(
      `${chars} characters of property names, definition names and enum/const values; ` +
        `OpenAI strict mode allows at most ${limits.maxTotalChars}`,
    );
  }
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

/** Strict modes close every object: one that accepts unlisted properties has no strict equivalent. */
function requireClosedObject(schema: JsonSchema, mode: string): asserts schema is JsonSchema & { properties: Record<string, JsonSchema> } {
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    throw new NotStrictRepresentable(`an object accepts properties it does not list (additionalProperties), which ${mode} cannot express`);
  }
  if (!schema.properties) {
    throw new NotStrictRepresentable(`an object lists no properties (a free-form object), which ${mode} cannot express`);
  }
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

/** String formats Anthropic strict tool use accepts (the rest become a note in the description). */
const ANTHROPIC_STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** Keywords that constrain nothing the model writes: dropped without a note. */
const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment', 'discriminator']);

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
  const out: JsonSchema = {};
  const notes: string[] = [];
  const plain = (v: unknown) => v === null || typeof v !== 'object';
  const plainEnum = schema.enum !== undefined && schema.enum.length > 0 && schema.enum.every(plain);
  const literals = plainEnum || (schema.const !== undefined && plain(schema.const));
  const branches = schema.anyOf ?? schema.oneOf;
  for (const [keyword, value] of Object.entries(schema)) {
    // With plain enum/const values the type says nothing more (Anthropic's SDK drops it too).
    if (keyword === 'type') {
      if (!literals) out.type = value as JsonSchema['type'];
    } else if (keyword === 'title' || keyword === 'description') setOwn(out, keyword, value);
    else if ((keyword === 'enum' || keyword === 'const') && literals) setOwn(out, keyword, value);
    else if (keyword === 'format' && ANTHROPIC_STRICT_FORMATS.has(String(value))) out.format = String(value);
    else if (keyword === 'minItems' && (value === 0 || value === 1)) out.minItems = value;
    else if (keyword === 'required' && Array.isArray(value)) out.required = [...(value as string[])];
    else if (['properties', 'items', 'anyOf', 'oneOf', '$defs', 'definitions', 'additionalProperties'].includes(keyword)) continue;
    else if (keyword === 'not') notes.push(notNote(value));
    else if (!SILENT_KEYWORDS.has(keyword)) notes.push(`${keyword}: ${JSON.stringify(value)}`);
  }
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
  'title',
  'description',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'default',
]);

/** Gemini's function names: a letter or `_` first, then letters, digits, `_`, `.`, `:` or `-`; at most 64. */
const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** Thrown inside the Gemini transform for a part Gemini refuses (an OBJECT without properties). */
class NotGeminiRepresentable extends Error {
  constructor(
    readonly reason: string,
    readonly path = '',
  ) {
    super(reason);
  }
}

/**
 * `{ name, description, parameters }` in Gemini's OpenAPI-3 subset: type arrays with `null` become
 * `nullable: true`, `const` an enum of one, `oneOf` `anyOf`, `allOf` is merged, local `$ref`s are
 * inlined, `exclusiveMinimum`/`exclusiveMaximum` become bounds, `examples` the single `example`;
 * `additionalProperties`, `$schema` and unsupported formats are dropped (constraints the model
 * should still know about are kept as a note in the description).
 *
 * Gemini refuses an OBJECT without properties (a free-form object, an empty nested class, a
 * recursive `$ref`): an OPTIONAL property of that kind is left out (the model cannot send it; the
 * tool runs without it), a union branch of that kind is dropped, and a REQUIRED one cannot be
 * declared, so this throws a ToolDefinitionError naming the tool, the property and the fix. So does
 * a tool name Gemini refuses (it must start with a letter or an underscore).
 */
export function toGeminiFunctionDeclaration(def: ToolDefinition): GeminiFunctionDeclaration {
  if (!GEMINI_NAME.test(def.name)) {
    throw new ToolDefinitionError(
      `Tool "${def.name}" cannot be declared to Gemini: a function name must start with a letter or an underscore and ` +
        'use only letters, digits, "_", ".", ":" or "-" (at most 64). Rename the tool, e.g. with @Tool({ name }).',
    );
  }
  const declaration: GeminiFunctionDeclaration = { name: def.name, description: def.description };
  // A root without properties is a tool without arguments: Gemini takes no `parameters` at all.
  if (!def.parameters.properties && !def.parameters.$ref && !def.parameters.allOf) return declaration;
  let parameters: GeminiSchema;
  try {
    parameters = clone(toGeminiSchema(def.parameters, def.parameters, new Set(), ''));
  } catch (error) {
    if (!(error instanceof NotGeminiRepresentable)) throw error;
    if (error.path === '') return declaration; // every property was optional and left out
    throw new ToolDefinitionError(
      `Tool "${def.name}" cannot be declared to Gemini: its required parameter "${error.path}" is ${error.reason}, and Gemini ` +
        'refuses an OBJECT without properties. List its properties (a nested class with @Param properties), make it optional ' +
        '(Gemini then leaves it out), or send this tool to another provider.',
    );
  }
  if (parameters.properties && Object.keys(parameters.properties).length > 0) declaration.parameters = parameters;
  return declaration;
}

function toGeminiSchema(input: JsonSchema, root: JsonSchema, refs: Set<string>, path: string): GeminiSchema {
  if (typeof input.$ref === 'string') {
    const target = resolveLocalRef(root, input.$ref);
    // Gemini has no references: inline them. A cycle cannot be inlined (and would be an empty OBJECT).
    if (!target) throw new NotGeminiRepresentable(`a reference Gemini cannot inline (${input.$ref})`, path);
    if (refs.has(input.$ref)) throw new NotGeminiRepresentable(`a recursive reference (${input.$ref})`, path);
    const { $ref: _ref, ...siblings } = input;
    return toGeminiSchema({ ...target, ...siblings }, root, new Set([...refs, input.$ref]), path);
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
    // A branch Gemini refuses is dropped; with none left, the value itself cannot be declared.
    const converted = real.flatMap((branch) => {
      try {
        return [toGeminiSchema(branch, root, refs, path)];
      } catch (error) {
        if (error instanceof NotGeminiRepresentable && real.length > 1) return [];
        throw error;
      }
    });
    if (converted.length === 0) throw new NotGeminiRepresentable('a union of objects without properties', path);
    if (converted.length === 1) Object.assign(out, converted[0], out.description ? { description: out.description } : {});
    else out.anyOf = converted;
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
  if (schema.not !== undefined) notes.push(notNote(schema.not));
  if (schema.uniqueItems === true) notes.push('items must be unique');
  if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];

  if (schema.properties) {
    const required = new Set(schema.required ?? []);
    const properties: Record<string, GeminiSchema> = {};
    for (const [key, property] of Object.entries(schema.properties)) {
      const where = path ? `${path}.${key}` : key;
      try {
        setOwn(properties, key, toGeminiSchema(property, root, refs, where));
      } catch (error) {
        // An optional property Gemini refuses is left out; a required one cannot be.
        if (!(error instanceof NotGeminiRepresentable) || required.has(key)) throw error;
      }
    }
    out.properties = properties;
    const listed = (schema.required ?? []).filter((key) => Object.prototype.hasOwnProperty.call(properties, key));
    if (listed.length) out.required = listed;
  }
  if (schema.items) out.items = toGeminiSchema(schema.items, root, refs, `${path}[]`);
  if (out.type === 'object' && (!out.properties || Object.keys(out.properties).length === 0)) {
    const declared = schema.properties ? Object.keys(schema.properties).length : -1;
    const what =
      declared < 0 ? 'a free-form object' : declared === 0 ? 'an object without properties' : 'an object with every property left out';
    throw new NotGeminiRepresentable(what, path);
  }
  return withNotes(out, notes);
}

/** The first local `$ref` that leads back to itself (directly or through other definitions), if any. */
function recursiveRef(root: JsonSchema): string | undefined {
  const refsIn = (schema: unknown, found: string[] = []): string[] => {
    if (Array.isArray(schema)) for (const item of schema) refsIn(item, found);
    else if (schema && typeof schema === 'object') {
      for (const [key, value] of Object.entries(schema)) {
        if (key === '$ref' && typeof value === 'string') found.push(value);
        else if (key !== '$defs' && key !== 'definitions') refsIn(value, found);
      }
    }
    return found;
  };
  const done = new Set<string>();
  const visit = (ref: string, path: readonly string[]): string | undefined => {
    if (path.includes(ref)) return ref;
    if (done.has(ref)) return undefined;
    const target = resolveLocalRef(root, ref);
    for (const next of target ? refsIn(target) : []) {
      const cycle = visit(next, [...path, ref]);
      if (cycle) return cycle;
    }
    done.add(ref);
    return undefined;
  };
  for (const ref of refsIn(root)) {
    const cycle = visit(ref, []);
    if (cycle) return cycle;
  }
  for (const key of ['$defs', 'definitions'] as const) {
    for (const name of Object.keys((root[key] as Record<string, JsonSchema> | undefined) ?? {})) {
      const cycle = visit(`#/${key}/${name}`, []);
      if (cycle) return cycle;
    }
  }
  return undefined;
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
      for (const [key, value] of Object.entries(branch.properties))
        if (!Object.prototype.hasOwnProperty.call(properties, key)) setOwn(properties, key, value);
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

/**
 * `not` (how `@NotEquals`, `@IsNotIn` and enums with no common value are told) in words, for the
 * formats without the keyword: OpenAI strict mode and Gemini dropped it, so their models were never told.
 */
function notNote(not: unknown): string {
  const schema = (isPlainObject(not) ? not : {}) as JsonSchema;
  if (Object.keys(schema).length === 0) return 'no value is accepted';
  if (schema.const !== undefined && Object.keys(schema).length === 1) return `must not be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && Object.keys(schema).length === 1)
    return `must not be one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  return `must not match ${JSON.stringify(not)}`;
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
