import type { ErrorObject } from 'ajv';
import { fieldShape, type FieldError } from '../errors/errors';
import { ValidationUtils } from '../metadata/private-apis'; // class-validator's own message templating
import { TW } from '../metadata/schema-keywords';
import type { ConstraintRef, ConstraintTable } from '../schema/constraint-table';

/** Field errors reported per answer; the rest are counted. */
export const MAX_FIELD_ERRORS = 20;

export interface FieldErrorList {
  errors: FieldError[];
  /** Errors found but not listed. */
  omitted: number;
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
    if (e.keyword === TW.omitted) {
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
      e.keyword === TW.check ? table?.checks[(e.params as { check: number }).check] : table?.refsOf(e.parentSchema as object)?.[e.keyword];
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
