import type { JsonSchema, JsonSchemaType } from '../../metadata/json-schema';
import { resolveLocalRef } from './refs';
import { mergeAllOf, notNote, setOwn, withNotes } from './schema-helpers';

/** JSON Schema rewritten as Gemini's `Schema` (an OpenAPI-3 subset), one step per kind of keyword. */

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

/** Thrown inside the Gemini transform for a part Gemini refuses (an OBJECT without properties). */
export class NotGeminiRepresentable extends Error {
  constructor(
    readonly reason: string,
    readonly path = '',
  ) {
    super(reason);
  }
}

/** Where the conversion is: the root (for `$ref`s), the references being inlined, the property path. */
interface At {
  root: JsonSchema;
  refs: Set<string>;
  path: string;
}

/**
 * The schema in Gemini's subset. Throws NotGeminiRepresentable for a part Gemini refuses; an
 * optional property or a union branch of that kind is left out instead.
 */
export function toGeminiSchema(input: JsonSchema, root: JsonSchema): GeminiSchema {
  return convert(input, { root, refs: new Set(), path: '' });
}

function convert(input: JsonSchema, at: At): GeminiSchema {
  if (typeof input.$ref === 'string') return inlineRef(input, input.$ref, at);
  const schema = mergeAllOf(input);
  const out: GeminiSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (GEMINI_KEYWORDS.has(keyword)) setOwn(out, keyword, value);
  }
  convertType(schema, out);
  convertBranches(schema, out, at);
  convertLiterals(schema, out, notes);
  convertFormatAndBounds(schema, out, notes);
  noteUnsupported(schema, notes);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];
  if (schema.properties) convertProperties(schema, schema.properties, out, at);
  if (schema.items) out.items = convert(schema.items, { ...at, path: `${at.path}[]` });
  requireProperties(schema, out, at.path);
  return withNotes(out, notes);
}

/** Gemini has no references: inline them. A cycle cannot be inlined (and would be an empty OBJECT). */
function inlineRef(input: JsonSchema, ref: string, at: At): GeminiSchema {
  const target = resolveLocalRef(at.root, ref);
  if (!target) throw new NotGeminiRepresentable(`a reference Gemini cannot inline (${ref})`, at.path);
  if (at.refs.has(ref)) throw new NotGeminiRepresentable(`a recursive reference (${ref})`, at.path);
  const { $ref: _ref, ...siblings } = input;
  return convert({ ...target, ...siblings }, { ...at, refs: new Set([...at.refs, ref]) });
}

/** A type array with `null` becomes `nullable`; several other types an `anyOf`. */
function convertType(schema: JsonSchema, out: GeminiSchema): void {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nonNull = types.filter((t): t is Exclude<JsonSchemaType, 'null'> => t !== 'null');
  if (types.includes('null')) out.nullable = true;
  if (nonNull.length === 1) out.type = nonNull[0];
  if (nonNull.length > 1) out.anyOf = nonNull.map((type) => ({ type }));
}

/** `anyOf`/`oneOf`: a `null` branch becomes `nullable`, a single branch left is merged in. */
function convertBranches(schema: JsonSchema, out: GeminiSchema, at: At): void {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!branches) return;
  const real = branches.filter((branch) => branch.type !== 'null');
  if (real.length < branches.length) out.nullable = true;
  // A branch Gemini refuses is dropped; with none left, the value itself cannot be declared.
  const converted = real.flatMap((branch) => {
    try {
      return [convert(branch, at)];
    } catch (error) {
      if (error instanceof NotGeminiRepresentable && real.length > 1) return [];
      throw error;
    }
  });
  if (converted.length === 0) throw new NotGeminiRepresentable('a union of objects without properties', at.path);
  if (converted.length === 1) Object.assign(out, converted[0], out.description ? { description: out.description } : {});
  else out.anyOf = converted;
}

/** `const` and `enum`: Gemini enums are string-only; other literal sets are described instead of enforced. */
function convertLiterals(schema: JsonSchema, out: GeminiSchema, notes: string[]): void {
  const values = schema.const !== undefined ? [schema.const] : schema.enum;
  if (!values) return;
  if (values.every((v) => typeof v === 'string')) {
    out.type = 'string';
    out.enum = values as string[];
  } else {
    const listed = values.filter((v) => v !== null);
    if (listed.length < values.length) out.nullable = true;
    notes.push(`one of: ${listed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
}

/** Formats Gemini acts on are kept; exclusive bounds become inclusive ones for integers. */
function convertFormatAndBounds(schema: JsonSchema, out: GeminiSchema, notes: string[]): void {
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
}

/** Constraints Gemini has no keyword for, told to the model in the description. */
function noteUnsupported(schema: JsonSchema, notes: string[]): void {
  if (schema.multipleOf !== undefined) notes.push(`multiple of ${schema.multipleOf}`);
  if (schema.not !== undefined) notes.push(notNote(schema.not));
  if (schema.uniqueItems === true) notes.push('items must be unique');
}

/** An optional property Gemini refuses is left out; a required one cannot be. */
function convertProperties(schema: JsonSchema, declared: Record<string, JsonSchema>, out: GeminiSchema, at: At): void {
  const required = new Set(schema.required ?? []);
  const properties: Record<string, GeminiSchema> = {};
  for (const [key, property] of Object.entries(declared)) {
    const path = at.path ? `${at.path}.${key}` : key;
    try {
      setOwn(properties, key, convert(property, { ...at, path }));
    } catch (error) {
      if (!(error instanceof NotGeminiRepresentable) || required.has(key)) throw error;
    }
  }
  out.properties = properties;
  const listed = (schema.required ?? []).filter((key) => Object.prototype.hasOwnProperty.call(properties, key));
  if (listed.length) out.required = listed;
}

/** Gemini refuses an OBJECT without properties. */
function requireProperties(schema: JsonSchema, out: GeminiSchema, path: string): void {
  if (out.type !== 'object' || (out.properties && Object.keys(out.properties).length > 0)) return;
  const declared = schema.properties ? Object.keys(schema.properties).length : -1;
  const what =
    declared < 0 ? 'a free-form object' : declared === 0 ? 'an object without properties' : 'an object with every property left out';
  throw new NotGeminiRepresentable(what, path);
}

function maxOf(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.max(a, b);
}

function minOf(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}
