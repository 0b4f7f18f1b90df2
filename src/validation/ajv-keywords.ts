import type Ajv from 'ajv';
import { _, type ErrorObject, type KeywordCxt } from 'ajv';
import limitLength from 'ajv/dist/vocabularies/validation/limitLength';
import { maxLength, minLength } from 'class-validator';
import type { JsonSchema } from '../metadata/json-schema';
import { TW } from '../metadata/schema-keywords';
import type { ConstraintTable } from '../schema/constraint-table';
import type { KeysAt } from './bounded-copy';
import { boundedItems, boundedKeys, patternsOf, standalone, type Lazy } from './bounded-reports';
import { shortestText, type Tally } from './key-count';

/** toolwright's Ajv keywords (the vocabulary is src/metadata/schema-keywords.ts), each added to the instances that use it. */

/** `x-tw-check`: the registry's class-validator checks, by index; the first that fails is the error. */
export function addCheckKeyword(ajv: Ajv, table: ConstraintTable): void {
  const validate: ((indexes: number[], data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] } = (indexes, data) => {
    for (const i of indexes) {
      if (!table.checks[i].validate(data)) {
        validate.errors = [{ keyword: TW.check, params: { check: i }, message: table.checks[i].constraint }];
        return false;
      }
    }
    return true;
  };
  ajv.addKeyword({ keyword: TW.check, schemaType: 'array', errors: true, validate });
}

/** `x-tw-nullable`: null passes, anything else must match the subschema. */
export function addNullableKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: TW.nullable,
    schemaType: 'object',
    code(cxt: KeywordCxt) {
      // Ajv's `if: { type: 'null' }` would build an error object per call.
      cxt.gen.if(_`${cxt.data} !== null`, () => void cxt.subschema({ keyword: TW.nullable }, cxt.gen.name('valid')));
    },
  });
}

/** `x-tw-items` for a first-error validator: plain `items`. */
export function addPlainItems(ajv: Ajv): void {
  ajv.addKeyword({ keyword: TW.items, schemaType: 'object', macro: (items: JsonSchema) => ({ items }) });
}

/**
 * `minLength` and `maxLength` as class-validator's @MinLength/@MaxLength/@Length count, as validator.js's
 * isLength does: a surrogate pair, or a character with its variation selector (U+FE0E/U+FE0F), is one.
 * Ajv's code-point count is not that, and walks the whole string on every call. That length is at most
 * the UTF-16 length and at least a third of it ("😀\uFE0F" is 1), so class-validator's own check runs only in between.
 */
export function addLengthKeywords(ajv: Ajv): void {
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

/** `x-tw-items` for a class's all-errors validator: the items `fast` counts failing, the first few reported by `full`. */
export function addBoundedItems(full: Ajv, fast: Ajv, tally: Tally): void {
  full.addKeyword({
    keyword: TW.items,
    schemaType: 'object',
    errors: true,
    compile: (items: JsonSchema) =>
      boundedItems(
        tally,
        () => fast.compile(counter(items)),
        () => full.compile(items),
      ),
  });
}

/**
 * `x-tw-keys`: each declared property the object holds (a closed class: it holds no other); own-only for
 * names Object.prototype also has. JSON has no undefined values. `len`: the fewest characters
 * the object's text takes, `{}` and each member `"key":value,` (nested objects add their own).
 */
export function addKeyCounter(ajv: Ajv, tally: Tally): void {
  ajv.addKeyword({
    keyword: TW.keys,
    type: 'object',
    schemaType: 'boolean',
    code(cxt: KeywordCxt) {
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
}

/**
 * `x-tw-count` always holds and counts how often it ran, as one inline increment (a function
 * keyword would build a data context per call). Under `else` of an `if` on the item schema it
 * counts the failing items: Ajv evaluates `if` without creating errors.
 */
export function addCounter(ajv: Ajv, tally: Tally): void {
  ajv.addKeyword({
    keyword: TW.count,
    schemaType: 'boolean',
    code(cxt: KeywordCxt) {
      cxt.gen.code(_`${cxt.gen.scopeValue('keyword', { ref: tally })}.n++`);
    },
  });
}

/** An array schema whose validator counts the items failing `items`. */
export const counter = (items: JsonSchema): JsonSchema => ({ items: { if: items, else: { [TW.count]: true } } });

/** `additionalProperties` for a class's all-errors validator: 200,000 extra keys give 20 errors and a count, not 200,000 error objects. */
export function addBoundedAdditional(full: Ajv, fast: Ajv): void {
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
}

/** The copy's `x-tw-items` and `x-tw-per-key` (see boundItems) for a hand-written schema's all-errors validator. */
export function addBoundedPointers(ajv: Ajv, fast: Ajv, tally: Tally): void {
  ajv.addKeyword({
    keyword: TW.items,
    schemaType: 'object',
    errors: true,
    compile: (at: { valid: string; report: string }) =>
      boundedItems(
        tally,
        () => fast.compile(counter({ $ref: at.valid })),
        () => ajv.getSchema(at.report)!,
      ),
  });
  const lazy = (at: KeysAt): Lazy => ({ count: () => fast.getSchema(at.valid)!, report: () => ajv.getSchema(at.report)! });
  ajv.addKeyword({
    keyword: TW.perKey,
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
}
