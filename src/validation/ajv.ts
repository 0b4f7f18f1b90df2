import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../errors/errors';
import { constraintRefs, type Check, type ConstraintRef } from '../schema/class-schema';

import { ValidationUtils } from '../metadata/private-apis'; // class-validator's own message templating

/** Ajv for schemas generated from classes: their checks are class-validator's own functions. */
export function createClassAjv(checks: Check[]): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true, // errors carry parentSchema, which maps a keyword back to its constraint
    strict: false,
    strictNumbers: true,
    unicodeRegExp: false, // class-validator's @Matches builds RegExps without the u flag
    discriminator: true,
    validateFormats: false, // formats are informative for the model; the constraint checks enforce them
  });
  const validate: ((indexes: number[], data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] } = (indexes, data) => {
    for (const i of indexes) {
      if (!checks[i].validate(data)) {
        validate.errors = [{ keyword: 'x-tw-check', params: { check: i }, message: checks[i].constraint }];
        return false;
      }
    }
    return true;
  };
  ajv.addKeyword({ keyword: 'x-tw-check', schemaType: 'array', errors: true, validate });
  return ajv;
}

/** Ajv for hand-written JSON Schemas (the PHP kit's style): standard formats, any keywords. */
export function createJsonSchemaAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, strictNumbers: true, discriminator: true });
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

/** Ajv's errors as per-field errors named and worded like class-validator's. */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, checks: readonly Check[] = []): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors ?? []) {
    if (e.keyword === 'if' || e.keyword === 'oneOf' && out.length) continue; // wrappers: their inner error says more
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
        ? checks[(e.params as { check: number }).check]
        : constraintRefs.get(e.parentSchema as object)?.[e.keyword];
    out.push({
      path,
      constraint: ref?.constraint ?? e.keyword,
      message: ref ? render(ref, path, value) : `${path || 'arguments'} ${e.message ?? 'is invalid'}`,
    });
  }
  return out;
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

