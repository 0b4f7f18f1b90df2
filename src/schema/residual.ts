import { getConstraints, getDesignType, getTransformType, type ValidationMetadata } from '../metadata/metadata';
import type { ClassType } from '../metadata/types';
import { classesOf, SCALARS, type Kind } from './type-resolution';

/**
 * The residual: constraints Ajv does not run, collected per class of the tree, which class-validator
 * runs (exactly these) on the hydrated instance.
 */
export type Residual = Map<ClassType, ValidationMetadata[]>;

export const isOptionalMeta = (m: ValidationMetadata) => m.type === 'conditionalValidation' && m.name === 'isOptional';

/** A property Ajv checks nothing of (`@ValidateIf`, `@Transform`): class-validator checks it and its nested classes whole. */
export function deferProperty(own: Set<ValidationMetadata>, tree: Residual, metas: ValidationMetadata[], kind: Kind): void {
  for (const m of metas) own.add(m);
  for (const nested of classesOf(kind)) addWholeClass(nested, tree);
}

/** What Ajv could not compile of a property: class-validator runs it under the property's own @IsOptional and through its @ValidateNested. */
export function keepUncompiled(
  own: Set<ValidationMetadata>,
  metas: ValidationMetadata[],
  uncompiled: ValidationMetadata[],
  nestedResidual: boolean,
): void {
  if (!uncompiled.length && !nestedResidual) return;
  for (const m of uncompiled) own.add(m);
  for (const m of metas) if (isOptionalMeta(m) || (nestedResidual && m.type === 'nestedValidation')) own.add(m);
}

/** Every constraint of a class and of the classes it nests, for class-validator to run. */
function addWholeClass(cls: ClassType, residual: Residual): void {
  const constraints = getConstraints(cls);
  residual.set(cls, [...constraints.values()].flat());
  for (const [name, metas] of constraints) {
    if (!metas.some((m) => m.type === 'nestedValidation')) continue;
    const type = getTransformType(cls, name) ?? getDesignType(cls, name);
    if (typeof type === 'function' && !SCALARS.has(type) && type !== Array && type !== Object && !residual.has(type as ClassType))
      addWholeClass(type as ClassType, residual);
  }
}
