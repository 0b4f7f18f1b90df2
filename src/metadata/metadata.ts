import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';

// class-transformer keeps @Type/@Transform metadata in this module-level store (not re-exported by its index).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerStorage };
import { PARAMS_KEY, TOOL_OPTIONS_KEY } from './keys';
import type { ClassType, ParamMetadata, ToolOptions } from './types';

/*
 * The only module that reads or writes metadata: toolwright's own (on each class, via
 * Reflect.defineMetadata), TypeScript's design types, and class-validator's and
 * class-transformer's stores, which stay the single source of truth for constraints and types.
 */

export function setToolOptions(target: Function, options: ToolOptions): void {
  Reflect.defineMetadata(TOOL_OPTIONS_KEY, Object.freeze({ ...options }), target);
}

/** Own options only: a subclass without `@Tool` is not a tool of its parent's name. */
export function getToolOptions(target: Function): ToolOptions | undefined {
  return Reflect.getOwnMetadata(TOOL_OPTIONS_KEY, target);
}

export function addParam(target: Function, param: ParamMetadata): void {
  const own: ParamMetadata[] = Reflect.getOwnMetadata(PARAMS_KEY, target) ?? [];
  Reflect.defineMetadata(PARAMS_KEY, [...own.filter((p) => p.propertyName !== param.propertyName), param], target);
}

/** `@Param` options by property, parents first, a subclass's own options winning. */
export function getParams(target: Function): Map<string, ParamMetadata> {
  const chain: Function[] = [];
  for (let c: Function | null = target; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  const params = new Map<string, ParamMetadata>();
  for (const c of chain) for (const p of (Reflect.getOwnMetadata(PARAMS_KEY, c) ?? []) as ParamMetadata[]) params.set(p.propertyName, p);
  return params;
}

/** `design:type` of a property: present when the property carries any decorator. */
export function getDesignType(target: Function, propertyName: string): unknown {
  return Reflect.getMetadata('design:type', target.prototype, propertyName);
}

/** Constructor parameter types; present when the class carries a decorator. */
export function getConstructorParamTypes(target: Function): unknown[] | undefined {
  return Reflect.getMetadata('design:paramtypes', target);
}

/** class-validator constraints of a class (inherited included), by property. */
export function getConstraints(target: Function): Map<string, ValidationMetadata[]> {
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)) {
    byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
  }
  return byProperty;
}

/** class-transformer's `@Type(() => X)` for a property. */
export type { ValidationMetadata };

export function getTransformType(target: Function, propertyName: string): ClassType | undefined {
  const meta = defaultMetadataStorage.findTypeMetadata(target, propertyName);
  return meta?.typeFunction() as ClassType | undefined;
}

/** Whether class-transformer decorators other than `@Type` shape this class (then its own plainToInstance runs). */
export function hasCustomTransforms(target: Function, propertyNames: Iterable<string>): boolean {
  for (const name of propertyNames) {
    if (defaultMetadataStorage.findTransformMetadatas(target, name, 0).length) return true;
    if (defaultMetadataStorage.findExcludeMetadata(target, name)) return true;
  }
  return defaultMetadataStorage.getExposedMetadatas(target).length > 0;
}

/** Whether a property has `@Type(...)` at all (its thunk may still return undefined while its module loads). */
export function hasTransformType(target: Function, propertyName: string): boolean {
  return defaultMetadataStorage.findTypeMetadata(target, propertyName) !== undefined;
}
