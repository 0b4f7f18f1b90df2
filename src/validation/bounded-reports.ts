import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types';
import type { JsonSchema } from '../metadata/json-schema';
import { TW } from '../metadata/schema-keywords';
import { enumerated } from './arguments';
import { MAX_FIELD_ERRORS } from './field-errors';
import type { Tally } from './key-count';

/**
 * The all-errors validators' bounded reports: for arrays and for keys beyond `properties`, Ajv's
 * allErrors would build one error object per failing item or key (200,000 of them for one
 * argument); these name the first few and count the rest.
 */

export type DataValidateFunction = ((data: unknown, cxt?: DataValidationCxt) => boolean) & { errors?: Partial<ErrorObject>[] };

/**
 * `items` that reports the first few failing items in full and counts the rest: Ajv's allErrors
 * would build one error object per bad item (200,000 of them for one argument), and so would a
 * first-error validator called per item. `count` (see `counter`) counts the failing items without
 * building any; `itemReport` (all errors) names what is wrong with the first few.
 */
export function boundedItems(tally: Tally, count: () => ValidateFunction, itemReport: () => ValidateFunction): DataValidateFunction {
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
        keyword: TW.omitted,
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
export interface Lazy {
  count: () => ValidateFunction;
  report: () => ValidateFunction;
}

/** What one object schema says about keys beyond `properties`: the keywords that give one error per key. */
export interface KeysSpec {
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
export function boundedKeys(spec: KeysSpec, parentSchema?: object): DataValidateFunction {
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
      errors.push({ keyword: TW.omitted, params: { count: failing - MAX_FIELD_ERRORS }, instancePath: at, message: '' });
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
export function patternsOf(patterns: unknown, flags: string): { re: RegExp }[] {
  return Object.keys(patterns ?? {})
    .filter((p) => p !== '__proto__')
    .map((p) => ({ re: new RegExp(p, flags) }));
}

/** A schema inside a class's `@Param({ schema })` compiled on its own; one that cannot be (a `$ref` out of it) reports nothing more. */
export function standalone(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch {
    return Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;
  }
}
