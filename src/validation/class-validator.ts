import { MetadataStorage, type ValidationError } from 'class-validator';
import type { FieldError } from '../errors/errors';
import { createValidationExecutor, getPropertyTransform, getValidatorConstraints, type ValidationMetadata } from '../metadata/metadata';
import type { ClassType } from '../metadata/types';
import type { FieldErrorList } from './field-errors';

/** Runs class-validator on an instance: the errors, synchronously unless a constraint is async. */
export type ResidualValidation = (instance: object) => FieldErrorList | Promise<FieldErrorList>;

/**
 * class-validator for the constraints Ajv does not run (custom and async validators, `@ValidateIf`,
 * transformed properties), with class-validator's own executor and semantics. Its metadata store
 * holds only these constraints of one class tree, built once: a call never scans the process-wide
 * store, whose size grows with every class loaded.
 */
export function compileResidual(residual: ReadonlyMap<ClassType, readonly ValidationMetadata[]>): ResidualValidation | undefined {
  if (residual.size === 0) return undefined;
  const storage = new MetadataStorage();
  const constraintClasses = new Set<Function>();
  for (const [cls, metas] of residual) {
    for (const meta of metas) {
      // Filed under the class itself (inherited constraints included), so lookups need no inheritance walk.
      storage.addValidationMetadata(
        Object.assign(Object.create(Object.getPrototypeOf(meta) as object) as ValidationMetadata, meta, { target: cls }),
      );
      if (meta.constraintCls && !constraintClasses.has(meta.constraintCls)) {
        constraintClasses.add(meta.constraintCls);
        for (const constraint of getValidatorConstraints(meta.constraintCls)) storage.addConstraintMetadata(constraint);
      }
    }
  }
  return (instance) => {
    const executor = createValidationExecutor(storage, { forbidUnknownValues: false });
    const errors: ValidationError[] = [];
    executor.execute(instance, undefined, errors);
    if (executor.awaitingPromises.length === 0) return { errors: flattenValidationErrors(executor.stripEmptyErrors(errors)), omitted: 0 };
    return Promise.all(executor.awaitingPromises).then(() => ({
      errors: flattenValidationErrors(executor.stripEmptyErrors(errors)),
      omitted: 0,
    }));
  };
}

/** class-validator's error tree as field errors, named by the JSON keys the model sends (`@Expose({ name })`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const owner = e.target?.constructor;
    const index = /^\d+$/.test(e.property);
    const key = index || !owner || owner === Object || owner === Array ? e.property : getPropertyTransform(owner, e.property).key;
    const path = index ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;
    const own = Object.entries(e.constraints ?? {}).map(([constraint, message]) => ({
      path,
      constraint,
      message: !message ? `${path} failed the ${constraint} constraint` : path !== e.property ? message.replace(e.property, path) : message,
    }));
    return [...own, ...flattenValidationErrors(e.children ?? [], path)];
  });
}
