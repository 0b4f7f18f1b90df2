import 'reflect-metadata';
import { MetadataStorage, Validator, type ValidationError, type ValidatorOptions } from 'class-validator';
import {
  getValidatorConstraints as validatorConstraints,
  targetValidationMetadatas,
  transformerStorage as defaultMetadataStorage,
  ValidationExecutor,
  type ConstraintMetadata,
  type ValidationMetadata,
} from './private-apis';
import { PARAMS_KEY, PROMPT_OPTIONS_KEY, RESOURCE_OPTIONS_KEY, TOOL_OPTIONS_KEY } from './keys';
import type { PromptOptions, ResourceDeclaration } from './feature-types';
import type { ClassType, ParamMetadata, ToolOptions } from './types';

/*
 * The only module that reads or writes metadata: toolwright's own (on each class, via
 * Reflect.defineMetadata), TypeScript's design types, and class-validator's and
 * class-transformer's stores, which stay the single source of truth for constraints and types
 * (their private parts are reached only through ./private-apis).
 */

export function setToolOptions(target: Function, options: ToolOptions): void {
  Reflect.defineMetadata(TOOL_OPTIONS_KEY, Object.freeze({ ...options }), target);
}

/** Own options only: a subclass without `@Tool` is not a tool of its parent's name. */
export function getToolOptions(target: Function): ToolOptions | undefined {
  return Reflect.getOwnMetadata(TOOL_OPTIONS_KEY, target);
}

export function setResourceOptions(target: Function, declaration: ResourceDeclaration): void {
  Reflect.defineMetadata(RESOURCE_OPTIONS_KEY, Object.freeze({ ...declaration }), target);
}

export function getResourceOptions(target: Function): ResourceDeclaration | undefined {
  return Reflect.getOwnMetadata(RESOURCE_OPTIONS_KEY, target);
}

export function setPromptOptions(target: Function, options: PromptOptions): void {
  Reflect.defineMetadata(PROMPT_OPTIONS_KEY, Object.freeze({ ...options }), target);
}

export function getPromptOptions(target: Function): PromptOptions | undefined {
  return Reflect.getOwnMetadata(PROMPT_OPTIONS_KEY, target);
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
  for (const m of targetValidationMetadatas(target)) {
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

/** How class-transformer's plainToInstance maps one property: the JSON key it reads, its `@Transform`s, whether `@Exclude` drops it. */
export interface PropertyTransform {
  key: string;
  excluded: boolean;
  /** `@Expose`d: plainToInstance sets the property (to undefined when absent: class-transformer's exposeUnsetFields). */
  exposed: boolean;
  transforms: ((params: { value: unknown; key: string; obj: Record<string, unknown>; type: number; options: object }) => unknown)[];
}

const PLAIN_TO_CLASS = 0; // class-transformer's TransformationType.PLAIN_TO_CLASS

export function getPropertyTransform(target: Function, propertyName: string): PropertyTransform {
  const expose = defaultMetadataStorage.findExposeMetadata(target, propertyName);
  const exclude = defaultMetadataStorage.findExcludeMetadata(target, propertyName);
  const toClass = (o?: { toPlainOnly?: boolean; toClassOnly?: boolean }) => !o?.toPlainOnly || o.toClassOnly === true;
  // Transforms limited to groups never run in a plain plainToInstance call (no groups given).
  const transforms = defaultMetadataStorage
    .findTransformMetadatas(target, propertyName, PLAIN_TO_CLASS)
    .filter((m) => !m.options?.groups?.length)
    .map((m) => m.transformFn as PropertyTransform['transforms'][number]);
  return {
    key: expose && toClass(expose.options) && expose.options?.name ? expose.options.name : propertyName,
    excluded: !!exclude && toClass(exclude.options),
    exposed: !!expose && toClass(expose.options),
    transforms,
  };
}

/** class-validator's constraint classes behind a `@Validate`/`registerDecorator` metadata (its global store, read at build). */
export function getValidatorConstraints(constraintCls: Function): ConstraintMetadata[] {
  return validatorConstraints(constraintCls);
}

// class-validator's validation engine (a private path): its constructor reads the global metadata store,
// which holds every class of the process; toolwright points it at a small store per input class instead.
export interface ClassValidatorExecutor {
  metadataStorage: MetadataStorage;
  awaitingPromises: Promise<unknown>[];
  execute(object: object, targetSchema: string | undefined, errors: ValidationError[]): void;
  stripEmptyErrors(errors: ValidationError[]): ValidationError[];
}

const validator = new Validator();

/** class-validator's executor over `storage` only (the global store is never scanned at call time). */
export function createValidationExecutor(storage: MetadataStorage, options: ValidatorOptions): ClassValidatorExecutor {
  const executor = new (ValidationExecutor as new (validator: Validator, options: ValidatorOptions) => ClassValidatorExecutor)(
    validator,
    options,
  );
  executor.metadataStorage = storage;
  return executor;
}

/** Whether a property has `@Type(...)` at all (its thunk may still return undefined while its module loads). */
export function hasTransformType(target: Function, propertyName: string): boolean {
  return defaultMetadataStorage.findTypeMetadata(target, propertyName) !== undefined;
}
