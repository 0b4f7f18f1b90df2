import Ajv, { _, type ErrorObject, type KeywordCxt, type ValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types';
import limitLength from 'ajv/dist/vocabularies/validation/limitLength';
import addFormats from 'ajv-formats';
import { maxLength, minLength } from 'class-validator';
import { fieldShape, type FieldError } from '../errors/errors';
import { enumerated, scalarText } from './arguments';
import type { ConstraintRef, ConstraintTable } from '../schema/constraint-table';
import type { JsonSchema } from '../metadata/json-schema';

import { ValidationUtils } from '../metadata/private-apis'; // class-validator's own message templating

/** Field errors reported per answer; the rest are counted. */
export const MAX_FIELD_ERRORS = 20;

export interface FieldErrorList {
  errors: FieldError[];
  /** Errors found but not listed. */
  omitted: number;
}

/** One class's compiled validation: `valid` on every call, `report` (every failing property, bounded) only on failure. */
export interface ClassValidation {
  valid: (value: unknown) => boolean;
  report: (value: unknown) => FieldErrorList;
  /**
   * After `valid` accepted a value: how many keys its objects hold, counted by the validator as it
   * accepted them (never more than there are). Absent when the schema cannot count them all.
   */
  keyCount?: () => number;
  /**
   * After `valid` accepted a value (with `keyCount`, closed classes): a JSON text of it shorter than
   * this repeats no key. The fewest characters any text of the value takes, as the validator summed
   * them (never more), plus the fewest a repeated member adds (`,"k":0`, k the shortest declared key).
   */
  textFloor?: () => number;
}

const AJV_OPTIONS = {
  strict: false,
  strictNumbers: true,
  unicodeRegExp: false, // class-validator's @Matches builds RegExps without the u flag
  discriminator: true,
  validateFormats: false, // formats are informative for the model; the constraint checks enforce them
} as const;

/**
 * Ajv for schemas generated from classes (their checks are class-validator's own functions), as two
 * instances: a first-error validator that decides every call, and an all-errors one, compiled on the
 * first invalid call, that names every failing property. Arrays use `x-tw-items`: plain `items` for
 * the first, and for the second a loop that reports the first few failing items and counts the rest
 * (Ajv's allErrors would build one error object per bad item: 200,000 of them for one argument).
 */
export function createClassAjv(table: ConstraintTable): (schema: JsonSchema) => ClassValidation {
  const fast = new Ajv({ ...AJV_OPTIONS, allErrors: false });
  // Errors carry parentSchema: keyword → constraint. `fast` has checked each schema against the meta-schema already.
  const full = new Ajv({ ...AJV_OPTIONS, allErrors: true, verbose: true, validateSchema: false });
  for (const ajv of [fast, full]) {
    const validate: ((indexes: number[], data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] } = (indexes, data) => {
      for (const i of indexes) {
        if (!table.checks[i].validate(data)) {
          validate.errors = [{ keyword: 'x-tw-check', params: { check: i }, message: table.checks[i].constraint }];
          return false;
        }
      }
      return true;
    };
    ajv.addKeyword({ keyword: 'x-tw-check', schemaType: 'array', errors: true, validate });
  }
  for (const ajv of [fast, full]) {
    ajv.addKeyword({
      keyword: 'x-tw-nullable',
      schemaType: 'object',
      code(cxt: KeywordCxt) {
        // Null passes, anything else must match the subschema: Ajv's `if: { type: 'null' }` would build an error object per call.
        cxt.gen.if(_`${cxt.data} !== null`, () => void cxt.subschema({ keyword: 'x-tw-nullable' }, cxt.gen.name('valid')));
      },
    });
  }
  fast.addKeyword({ keyword: 'x-tw-items', schemaType: 'object', macro: (items: JsonSchema) => ({ items }) });
  // class-validator's @MinLength/@MaxLength/@Length count as validator.js's isLength does: a surrogate
  // pair, or a character with its variation selector (U+FE0E/U+FE0F), is one. Ajv's code-point count
  // is not that, and walks the whole string on every call. That length is at most the UTF-16 length
  // and at least a third of it ("😀\uFE0F" is 1), so class-validator's own check runs only in between.
  for (const ajv of [fast, full]) {
    ajv.removeKeyword('minLength');
    ajv.removeKeyword('maxLength');
    ajv.addKeyword({
      ...limitLength,
      code(cxt: KeywordCxt) {
        const { keyword, data, schemaCode, gen } = cxt;
        cxt.fail$data(
          keyword === 'minLength'
            ? _`${data}.length < 3 * ${schemaCode} && !${gen.scopeValue('keyword', { ref: minLength })}(${data}, ${schemaCode})`
            : _`${data}.length > ${schemaCode} && !${gen.scopeValue('keyword', { ref: maxLength })}(${data}, ${schemaCode})`,
        );
      },
    });
  }
  full.addKeyword({
    keyword: 'x-tw-items',
    schemaType: 'object',
    errors: true,
    compile: (items: JsonSchema) =>
      boundedItems(
        () => fast.compile(counter(items)),
        () => full.compile(items),
      ),
  });
  addCounter(fast);
  fast.addKeyword({
    keyword: 'x-tw-keys',
    type: 'object',
    schemaType: 'boolean',
    code(cxt: KeywordCxt) {
      // Each declared property the object holds (a closed class: it holds no other); own-only for
      // names Object.prototype also has. JSON has no undefined values. `len`: the fewest characters
      // the object's text takes, `{}` and each member `"key":value,` (nested objects add their own).
      const { gen, data, parentSchema } = cxt;
      const shortest = gen.scopeValue('keyword', { ref: shortestText });
      let sum = _`0`;
      let len = _`1`;
      for (const key of Object.keys((parentSchema as JsonSchema).properties ?? {})) {
        const has = key in Object.prototype ? _`Object.prototype.hasOwnProperty.call(${data}, ${key})` : _`(${data}[${key}] !== undefined)`;
        sum = _`${sum} + ${has}`;
        // Strings, the common case, inline.
        const value = _`${data}[${key}]`;
        len = _`${len} + (typeof ${value} === "string" ? ${key.length + 6} + ${value}.length : ${has} ? ${key.length + 4} + ${shortest}(${value}) : 0)`;
      }
      const counts = gen.scopeValue('keyword', { ref: tally });
      gen.code(_`${counts}.keys += ${sum}`);
      gen.code(_`${counts}.len += ${len}`);
    },
  });
  // The all-errors pass answers an object with 200,000 extra keys with 20 errors and a count, not 200,000 error objects.
  full.removeKeyword('additionalProperties');
  full.addKeyword({
    keyword: 'additionalProperties',
    type: 'object',
    schemaType: ['boolean', 'object'],
    errors: true,
    compile: (additional: boolean | JsonSchema, parentSchema: JsonSchema) =>
      boundedKeys(
        {
          known: parentSchema.properties,
          patterns: patternsOf(parentSchema.patternProperties, ''),
          additional:
            typeof additional === 'boolean'
              ? additional
              : { count: () => standalone(fast, additional), report: () => standalone(full, additional) },
        },
        parentSchema,
      ),
  });
  return (schema) => {
    const compiled = fast.compile(schema);
    const counts = countsEveryKey(schema, true);
    const repeated = 5 + shortestKey(schema); // `,"k":0`
    let all: ValidateFunction | undefined;
    return {
      valid: counts
        ? (value) => {
            tally.keys = 0;
            tally.len = 0;
            return compiled(value);
          }
        : compiled,
      report: (value) => {
        all ??= full.compile(schema);
        return all(value) ? { errors: [], omitted: 0 } : toFieldErrors(all.errors, table);
      },
      keyCount: counts ? () => tally.keys : undefined,
      textFloor: counts ? () => tally.len + repeated : undefined,
    };
  };
}

/**
 * `items` that reports the first few failing items in full and counts the rest: Ajv's allErrors
 * would build one error object per bad item (200,000 of them for one argument), and so would a
 * first-error validator called per item. `count` (see `counter`) counts the failing items without
 * building any; `itemReport` (all errors) names what is wrong with the first few.
 */
function boundedItems(count: () => ValidateFunction, itemReport: () => ValidateFunction): DataValidateFunction {
  let counter: ValidateFunction | undefined;
  let report: ValidateFunction | undefined;
  const validate: DataValidateFunction = (data, cxt) => {
    if (!Array.isArray(data)) return true; // `type` reports it
    counter ??= count();
    const before = tally.n;
    void counter(data);
    const failing = tally.n - before;
    if (failing === 0) return true; // Ajv reads `errors` only after a false
    report ??= itemReport();
    const errors: Partial<ErrorObject>[] = [];
    for (let i = 0, found = 0; i < data.length && found < MAX_FIELD_ERRORS; i++) {
      if (report(data[i])) continue;
      found++;
      for (const e of report.errors ?? []) errors.push({ ...e, instancePath: `${cxt?.instancePath ?? ''}/${i}${e.instancePath}` });
    }
    if (failing > MAX_FIELD_ERRORS) {
      errors.push({
        keyword: 'x-tw-omitted',
        params: { count: failing - MAX_FIELD_ERRORS },
        instancePath: cxt?.instancePath ?? '',
        message: '',
      });
    }
    validate.errors = errors;
    return false;
  };
  return validate;
}

/** A subschema's validators, compiled on first use: a first-error one that decides, an all-errors one that names what is wrong. */
interface Lazy {
  count: () => ValidateFunction;
  report: () => ValidateFunction;
}

/** What one object schema says about keys beyond `properties`: the keywords that give one error per key. */
interface KeysSpec {
  known?: Record<string, unknown>;
  /** `patternProperties`: the RegExp and, unless only used to tell which keys are additional, its schema. */
  patterns: { re: RegExp; schema?: Lazy }[];
  /** `additionalProperties`: false refuses every other key, a schema checks each; true/absent: no check. */
  additional?: boolean | Lazy;
  /** `propertyNames`. */
  names?: Lazy;
}

/**
 * `additionalProperties`, `patternProperties` and `propertyNames` with Ajv's errors for the first
 * few failing keys and a count of the rest: Ajv's allErrors builds an error object per failing key
 * (200,000 of them for 200,000 extra keys). Each key is first decided by a first-error validator.
 */
function boundedKeys(spec: KeysSpec, parentSchema?: object): DataValidateFunction {
  const compiled = new Map<Lazy, { count: ValidateFunction; report?: ValidateFunction }>();
  const use = (lazy: Lazy) => {
    let v = compiled.get(lazy);
    if (!v) compiled.set(lazy, (v = { count: lazy.count() }));
    return v;
  };
  const known = spec.known ?? {};
  const checksAdditional = spec.additional !== undefined && spec.additional !== true;
  // A closed object (no pattern, no name rule): a key is wrong exactly when it is not declared.
  const closedOnly = !spec.names && spec.patterns.length === 0 && typeof spec.additional !== 'object';
  const declared = (key: string) => key !== '__proto__' && Object.prototype.hasOwnProperty.call(known, key);
  const validate: DataValidateFunction = (data, cxt) => {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return true;
    if (closedOnly && !checksAdditional) return true;
    // An object of many keys the key walk listed already: listing them again costs what parsing them did.
    const listed = enumerated.get(data);
    if (closedOnly && allDeclared(data, listed, declared)) return true; // the usual answer (Ajv reads `errors` only after a false)
    const keys = listed ?? Object.keys(data);
    validate.errors = [];
    const at = cxt?.instancePath ?? '';
    const errors: Partial<ErrorObject>[] = [];
    let failing = 0;
    // One failing (keyword, key) pair: named while fewer than MAX_FIELD_ERRORS are, counted after.
    const fail = (key: string, lazy: Lazy | undefined, value: unknown, own?: Partial<ErrorObject>) => {
      if (++failing > MAX_FIELD_ERRORS) return;
      if (own) errors.push({ instancePath: at, parentSchema, ...own });
      if (!lazy) return;
      const v = use(lazy);
      v.report ??= lazy.report();
      if (v.report(value)) return;
      const path = own ? at : `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`; // propertyNames: errors on the object
      for (const e of v.report.errors ?? []) errors.push({ ...e, instancePath: path + e.instancePath });
    };
    const names = spec.names && use(spec.names).count;
    const additional = typeof spec.additional === 'object' ? use(spec.additional).count : undefined;
    const record = data as Record<string, unknown>;
    for (const key of keys) {
      if (names && !names(key)) {
        fail(key, spec.names, key, { keyword: 'propertyNames', params: { propertyName: key }, message: 'property name must be valid' });
      }
      let matched = false;
      for (const { re, schema } of spec.patterns) {
        if (!re.test(key)) continue;
        matched = true;
        if (schema && !use(schema).count(record[key])) fail(key, schema, record[key]);
      }
      if (matched || !checksAdditional || declared(key)) continue;
      if (additional === undefined) {
        fail(key, undefined, undefined, {
          keyword: 'additionalProperties',
          params: { additionalProperty: key },
          message: 'must NOT have additional properties',
        });
      } else if (!additional(record[key])) {
        fail(key, spec.additional as Lazy, record[key]);
      }
    }
    if (failing === 0) return true;
    if (failing > MAX_FIELD_ERRORS) {
      errors.push({ keyword: 'x-tw-omitted', params: { count: failing - MAX_FIELD_ERRORS }, instancePath: at, message: '' });
    }
    validate.errors = errors;
    return false;
  };
  return validate;
}

/** Whether every key of `data` (listed already, or not) is a declared one; nothing is allocated for a small object. */
function allDeclared(data: object, listed: readonly string[] | undefined, declared: (key: string) => boolean): boolean {
  if (listed !== undefined) return listed.every(declared);
  for (const key in data) if (!declared(key)) return false;
  return true;
}

/** `patternProperties` as Ajv compiles them (its `u` flag follows `unicodeRegExp`). */
function patternsOf(patterns: unknown, flags: string): { re: RegExp }[] {
  return Object.keys(patterns ?? {})
    .filter((p) => p !== '__proto__')
    .map((p) => ({ re: new RegExp(p, flags) }));
}

/** A schema inside a class's `@Param({ schema })` compiled on its own; one that cannot be (a `$ref` out of it) reports nothing more. */
function standalone(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch {
    return Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;
  }
}

/**
 * `n`: how many times `x-tw-count` ran; `keys`, `len`: what `x-tw-keys` counted (validation is
 * synchronous: read them before and after one call).
 */
const tally = { n: 0, keys: 0, len: 0 };

/**
 * The fewest characters a JSON text of `value` takes (see scalarText), for what `x-tw-keys` does
 * not count itself: an object is 0, its own `x-tw-keys` counts it.
 */
function shortestText(value: unknown): number {
  if (!Array.isArray(value)) return scalarText(value);
  let n = 1; // `[]`, and a comma after every item but the last
  for (const item of value) n += 1 + shortestText(item);
  return n;
}

/** The shortest property name declared anywhere in a schema. */
function shortestKey(schema: unknown): number {
  let min = Infinity;
  if (schema === null || typeof schema !== 'object') return min;
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' && value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) min = Math.min(min, key.length);
    }
    min = Math.min(min, shortestKey(value));
  }
  return min;
}

/**
 * Whether `x-tw-keys` counts each object of a valid value once: it appears only where the validator
 * goes once per object (through `properties`, `items` and `x-tw-nullable` around an optional property),
 * never under a branch Ajv may try and drop (`anyOf`, `not`…) nor behind a `$ref`, and no property
 * is named like a prototype-polluting key (those the key walk must see).
 */
function countsEveryKey(schema: unknown, once: boolean): boolean {
  if (schema === null || typeof schema !== 'object') return true;
  if (Array.isArray(schema)) return schema.every((s) => countsEveryKey(s, false));
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$ref' || (keyword === 'x-tw-keys' && !once)) return false;
    if (keyword === 'properties' && value !== null && typeof value === 'object') {
      if (Object.keys(value).some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype')) return false;
      if (!Object.values(value).every((s) => countsEveryKey(s, once))) return false;
    } else if (keyword === 'items' || keyword === 'x-tw-items' || keyword === 'else' || keyword === 'x-tw-nullable') {
      if (!countsEveryKey(value, once)) return false;
    } else if (value !== null && typeof value === 'object' && !countsEveryKey(value, false)) {
      return false;
    }
  }
  return true;
}

/**
 * `x-tw-count` always holds and counts how often it ran, as one inline increment (a function
 * keyword would build a data context per call). Under `else` of an `if` on the item schema it
 * counts the failing items: Ajv evaluates `if` without creating errors.
 */
function addCounter(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-tw-count',
    schemaType: 'boolean',
    code(cxt: KeywordCxt) {
      cxt.gen.code(_`${cxt.gen.scopeValue('keyword', { ref: tally })}.n++`);
    },
  });
}

/** An array schema whose validator counts the items failing `items`. */
const counter = (items: JsonSchema): JsonSchema => ({ items: { if: items, else: { 'x-tw-count': true } } });

type DataValidateFunction = ((data: unknown, cxt?: DataValidationCxt) => boolean) & { errors?: Partial<ErrorObject>[] };

const JSON_SCHEMA_OPTIONS = { strict: false, strictNumbers: true, discriminator: true } as const;

/**
 * Ajv for hand-written JSON Schemas (the PHP kit's style): standard formats, any keywords. As for
 * classes, a first-error validator decides every call; on failure an all-errors validator names
 * every failing property, over a copy of the schema whose `items` are bounded (`x-tw-items`, which
 * reaches the original item schemas by JSON pointer, so their `$ref`s resolve against the root).
 */
export function createJsonSchemaAjv(): (schema: JsonSchema) => ClassValidation {
  const fast = new Ajv({ ...JSON_SCHEMA_OPTIONS, allErrors: false });
  addFormats(fast);
  addCounter(fast);
  let full: Ajv | undefined;
  const fullAjv = (): Ajv => {
    if (full) return full;
    const ajv = new Ajv({ ...JSON_SCHEMA_OPTIONS, allErrors: true });
    addFormats(ajv);
    ajv.addKeyword({
      keyword: 'x-tw-items',
      schemaType: 'object',
      errors: true,
      compile: (at: { valid: string; report: string }) =>
        boundedItems(
          () => fast.compile(counter({ $ref: at.valid })),
          () => ajv.getSchema(at.report)!,
        ),
    });
    const lazy = (at: KeysAt): Lazy => ({ count: () => fast.getSchema(at.valid)!, report: () => ajv.getSchema(at.report)! });
    ajv.addKeyword({
      keyword: 'x-tw-per-key',
      schemaType: 'object',
      errors: true,
      compile: (at: { known: string[]; patterns: (KeysAt & { pattern: string })[]; additional?: boolean | KeysAt; names?: KeysAt }) =>
        boundedKeys({
          known: Object.fromEntries(at.known.map((key) => [key, true])),
          patterns: at.patterns.filter((p) => p.pattern !== '__proto__').map((p) => ({ re: new RegExp(p.pattern, 'u'), schema: lazy(p) })),
          additional: at.additional === undefined || typeof at.additional === 'boolean' ? at.additional : lazy(at.additional),
          names: at.names && lazy(at.names),
        }),
    });
    return (full = ajv);
  };
  let count = 0;
  return (schema) => {
    // Registered under a key (or the schema's own $id) so that item schemas can be reached by `key#/pointer`.
    const key = typeof schema.$id === 'string' ? undefined : `toolwright:parameters:${++count}`;
    fast.addSchema(schema, key);
    const base = key ?? (schema.$id as string).replace(/#$/, '');
    const valid = fast.getSchema(base)!;
    let all: ValidateFunction | null | undefined; // null: a schema the rewrite cannot serve (a $ref into an `items`)
    return {
      valid,
      report: (value) => {
        if (all === undefined) {
          try {
            const ajv = fullAjv();
            ajv.addSchema(boundItems(schema, base, '', '') as JsonSchema, base);
            all = ajv.getSchema(base)!;
          } catch {
            all = null;
          }
        }
        if (all && !all(value)) return toFieldErrors(all.errors);
        return valid(value) ? { errors: [], omitted: 0 } : toFieldErrors(valid.errors); // the first error stands
      },
    };
  };
}

/** Keywords that check every key of an object beyond `properties`. */
const PER_KEY = ['additionalProperties', 'patternProperties', 'propertyNames'] as const;

/** A subschema of `x-tw-per-key`: the original (first-error) and its bounded copy (all errors), by JSON pointer. */
interface KeysAt {
  valid: string;
  report: string;
  schema: unknown;
}

/** Keywords whose value is a schema, a map of schemas, or a list of schemas (draft-07 and 2019-09). */
const SUBSCHEMA = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf']);

/** A copy of `schema` with every schema-valued `items` replaced by `x-tw-items` pointing at the original and its bounded copy. */
function boundItems(schema: unknown, base: string, from: string, to: string): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  // A JSON pointer inside a URI fragment (Ajv decodes each part): a pattern's `%`, `#` or spaces stay intact.
  const pointer = (key: string) => '/' + encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
  const object = schema as JsonSchema;
  const perKey = PER_KEY.filter((keyword) => object[keyword] !== undefined);
  if (perKey.length) {
    // The keywords that give one error per key become one `x-tw-per-key` (see boundedKeys), as `items` becomes `x-tw-items`.
    const keys = `${to}/x-tw-per-key`;
    const sub = (value: unknown, original: string, copy: string): KeysAt => ({
      valid: `${base}#${original}`,
      report: `${base}#${keys}${copy}/schema`,
      schema: boundItems(value, base, original, `${keys}${copy}/schema`),
    });
    const additional = object.additionalProperties;
    const patterns = Object.entries((object.patternProperties ?? {}) as Record<string, unknown>);
    out['x-tw-per-key'] = {
      known: Object.keys(object.properties ?? {}),
      patterns: patterns.map(([pattern, value], i) => ({
        pattern,
        ...sub(value, `${from}/patternProperties${pointer(pattern)}`, `/patterns/${i}`),
      })),
      additional:
        additional === undefined || typeof additional === 'boolean'
          ? additional
          : sub(additional, `${from}/additionalProperties`, '/additional'),
      names: object.propertyNames === undefined ? undefined : sub(object.propertyNames, `${from}/propertyNames`, '/names'),
    };
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const here = pointer(keyword);
    if ((PER_KEY as readonly string[]).includes(keyword)) continue;
    if (keyword === 'items' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const copy = `${to}/x-tw-items/schema`;
      out['x-tw-items'] = {
        valid: `${base}#${from}${here}`,
        report: `${base}#${copy}`,
        schema: boundItems(value, base, from + here, copy),
      };
    } else if (SUBSCHEMA.has(keyword) || (keyword === 'items' && Array.isArray(value)) || SUBSCHEMA_LIST.has(keyword)) {
      out[keyword] = Array.isArray(value)
        ? value.map((v, i) => boundItems(v, base, `${from}${here}/${i}`, `${to}${here}/${i}`))
        : boundItems(value, base, from + here, to + here);
    } else if (SUBSCHEMA_MAP.has(keyword) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[keyword] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, boundItems(v, base, `${from}${here}${pointer(k)}`, `${to}${here}${pointer(k)}`)]),
      );
    } else {
      out[keyword] = value;
    }
  }
  return out;
}

const paths = new Map<string, string>();

/** `/address/zip` → `address.zip`, `/tags/2` → `tags[2]`. */
function toPath(pointer: string, extra?: string): string {
  if (extra === undefined) {
    let path = paths.get(pointer);
    if (path === undefined) {
      path = toPath(pointer, '');
      if (paths.size < 10_000) paths.set(pointer, path); // pointers come from the schema's shape, plus array indexes
    }
    return path;
  }
  let path = '';
  const parts = pointer ? pointer.slice(1).split('/') : [];
  if (extra) parts.push(extra);
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part;
  }
  return path;
}

/**
 * Ajv's errors as per-field errors named and worded like class-validator's: a few more than one
 * answer lists (ToolInputError keeps one per property first, then the rest up to its limit), the rest counted.
 */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, table?: ConstraintTable): FieldErrorList {
  const out: FieldError[] = [];
  let omitted = 0;
  // Past the cap an error is kept only for a property not named yet (a few more), so one property's many items cannot hide another's.
  const shapes = new Set<string>();
  let late = 0;
  for (const e of errors ?? []) {
    if (e.keyword === 'if' || (e.keyword === 'oneOf' && out.length)) continue; // wrappers: their inner error says more
    if (e.keyword === 'x-tw-omitted') {
      omitted += (e.params as { count: number }).count;
      continue;
    }
    let path = toPath(e.instancePath);
    let value = e.data;
    if (e.keyword === 'required') {
      path = toPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty);
      value = undefined;
    } else if (e.keyword === 'additionalProperties') {
      path = toPath(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty);
    }
    const shape = fieldShape(path);
    if (out.length >= 5 * MAX_FIELD_ERRORS && (shapes.has(shape) || late++ >= MAX_FIELD_ERRORS)) {
      omitted++;
      continue;
    }
    shapes.add(shape);
    const ref: ConstraintRef | undefined =
      e.keyword === 'x-tw-check'
        ? table?.checks[(e.params as { check: number }).check]
        : table?.refsOf(e.parentSchema as object)?.[e.keyword];
    out.push({
      path,
      constraint: ref?.constraint ?? e.keyword,
      message: ref ? render(ref, path, value) : `${path || 'arguments'} ${e.message ?? 'is invalid'}`,
    });
  }
  return { errors: out, omitted };
}

/** Messages without `$value` depend only on the constraint and the path: render each once. */
const rendered = new WeakMap<ConstraintRef, Map<string, string>>();

function render(ref: ConstraintRef, path: string, value: unknown): string {
  let byPath = rendered.get(ref);
  const cached = byPath?.get(path);
  if (cached !== undefined) return cached;
  const args = { property: path || 'arguments', value, constraints: ref.meta?.constraints ?? [], targetName: '', object: {} };
  let template: unknown = ref.meta?.message || ref.message;
  if (!template && ref.meta) {
    const instance = new (ref.meta.constraintCls as new () => { defaultMessage?(a: object): string })();
    template = instance.defaultMessage?.(args);
  }
  const message = ValidationUtils.replaceMessageSpecialTokens(template || `$property failed ${ref.constraint}`, args);
  if (typeof template === 'string' && !template.includes('$value')) {
    if (!byPath) rendered.set(ref, (byPath = new Map()));
    if (byPath.size < 1000) byPath.set(path, message);
  }
  return message;
}
