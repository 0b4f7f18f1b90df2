import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types';
import addFormats from 'ajv-formats';
import type { FieldError } from '../errors/errors';
import type { ConstraintRef, ConstraintTable } from '../schema/class-schema';
import type { JsonSchema } from '../schema/json-schema';

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
  const full = new Ajv({ ...AJV_OPTIONS, allErrors: true, verbose: true }); // errors carry parentSchema: keyword → constraint
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
  fast.addKeyword({ keyword: 'x-tw-items', schemaType: 'object', macro: (items: JsonSchema) => ({ items }) });
  full.addKeyword({
    keyword: 'x-tw-items',
    schemaType: 'object',
    errors: true,
    compile(items: JsonSchema) {
      let itemValid: ValidateFunction | undefined;
      let itemReport: ValidateFunction | undefined;
      const validate = (data: unknown, cxt?: DataValidationCxt): boolean => {
        if (!Array.isArray(data)) return true; // `type` reports it
        itemValid ??= fast.compile(items);
        const errors: Partial<ErrorObject>[] = [];
        let failing = 0;
        for (let i = 0; i < data.length; i++) {
          if (itemValid(data[i]) || ++failing > MAX_FIELD_ERRORS) continue;
          itemReport ??= full.compile(items);
          itemReport(data[i]);
          for (const e of itemReport.errors ?? []) errors.push({ ...e, instancePath: `${cxt?.instancePath ?? ''}/${i}${e.instancePath}` });
        }
        if (failing > MAX_FIELD_ERRORS) {
          errors.push({
            keyword: 'x-tw-omitted',
            params: { count: failing - MAX_FIELD_ERRORS },
            instancePath: cxt?.instancePath ?? '',
            message: '',
          });
        }
        (validate as { errors?: unknown }).errors = errors;
        return failing === 0;
      };
      return validate;
    },
  });
  return (schema) => {
    const valid = fast.compile(schema);
    let all: ValidateFunction | undefined;
    return {
      valid,
      report: (value) => {
        all ??= full.compile(schema);
        return all(value) ? { errors: [], omitted: 0 } : toFieldErrors(all.errors, table);
      },
    };
  };
}

/**
 * Ajv for hand-written JSON Schemas (the PHP kit's style): standard formats, any keywords. It stops
 * at the first error, which bounds the answer whatever the input.
 */
export function createJsonSchemaAjv(): Ajv {
  const ajv = new Ajv({ allErrors: false, strict: false, strictNumbers: true, discriminator: true });
  addFormats(ajv);
  return ajv;
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
  for (const e of errors ?? []) {
    if (e.keyword === 'if' || (e.keyword === 'oneOf' && out.length)) continue; // wrappers: their inner error says more
    if (e.keyword === 'x-tw-omitted') {
      omitted += (e.params as { count: number }).count;
      continue;
    }
    if (out.length >= 5 * MAX_FIELD_ERRORS) {
      omitted++;
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
