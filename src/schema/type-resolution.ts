import { ToolDefinitionError } from '../errors/errors';
import type { JsonSchema } from '../metadata/json-schema';
import { getDesignType, getTransformType, hasTransformType, type ValidationMetadata } from '../metadata/metadata';
import type { ClassType, ParamMetadata } from '../metadata/types';

/** What a property holds, resolved from its TypeScript type, `@Type`, `@Param({ type })` or its constraints. */
export type Kind =
  | { kind: 'string' | 'number' | 'integer' | 'boolean' | 'date' }
  | { kind: 'class'; cls: ClassType }
  | { kind: 'array'; item: Kind }
  | { kind: 'schema'; schema: JsonSchema };

export const SCALARS = new Map<unknown, Kind>([
  [String, { kind: 'string' }],
  [Number, { kind: 'number' }],
  [Boolean, { kind: 'boolean' }],
  [Date, { kind: 'date' }],
]);

/** Classes that are not data a model can send. */
const UNSUPPORTED = new Set<unknown>([
  Map,
  Set,
  WeakMap,
  WeakSet,
  Promise,
  Function,
  Symbol,
  RegExp,
  Buffer,
  Uint8Array,
  ArrayBuffer,
  BigInt,
  Error,
]);

export function classesOf(kind: Kind): ClassType[] {
  return kind.kind === 'class' ? [kind.cls] : kind.kind === 'array' ? classesOf(kind.item) : [];
}

/** A nested class whose module has not finished loading: say so, rather than blame its type. */
function notLoaded(what: string): ToolDefinitionError {
  return new ToolDefinitionError(
    `${what}: the class's decorators have not run yet. Usually two modules import each other, so one class is used before ` +
      'its module finished loading. Break the import cycle (move the nested class to its own module), import that module ' +
      'before ToolRegistry.build, and name the class lazily: @Type(() => Address) or @Param({ type: () => Address }).',
  );
}

/** A type thunk's class; one that throws ReferenceError names a class whose declaration has not run yet (an ES module cycle). */
function lazily<T>(thunk: () => T, where: string): T {
  try {
    return thunk();
  } catch (error) {
    if (error instanceof ReferenceError) throw notLoaded(`The type of ${where} names a class that is not initialized at build time`);
    throw error;
  }
}

export function resolveKind(cls: ClassType, name: string, param: ParamMetadata, metas: ValidationMetadata[], where: string): Kind {
  const fix = `Add @Param({ type: … }) to ${where}, e.g. type: 'integer', () => [String] or () => Address.`;
  const classify = (t: unknown, context: string): Kind => {
    const scalar = SCALARS.get(t);
    if (scalar) return scalar;
    if (t === undefined) throw notLoaded(`The type of ${where} names a class that is undefined at build time`);
    if (typeof t !== 'function' || t === Object || t === Array) {
      throw new ToolDefinitionError(`Cannot know the ${context} type of ${where}. ${fix}`);
    }
    if (UNSUPPORTED.has(t)) {
      throw new ToolDefinitionError(
        `${where} has type ${t.name}, which JSON cannot carry. Use a string, number, boolean, array or a plain class.`,
      );
    }
    return { kind: 'class', cls: t as ClassType };
  };

  if (typeof param.type === 'string') {
    if (param.type === 'array') {
      if (param.items) return { kind: 'array', item: { kind: 'schema', schema: param.items } };
      const t = lazily(() => getTransformType(cls, name), where);
      if (t) return { kind: 'array', item: classify(t, 'item') };
      throw new ToolDefinitionError(`Cannot know the item type of array ${where}. ${fix}`);
    }
    if (param.type === 'object' || param.type === 'null') return { kind: 'schema', schema: { type: param.type } };
    return { kind: param.type };
  }
  if (typeof param.type === 'function') {
    const t = lazily(param.type, where);
    return Array.isArray(t) ? { kind: 'array', item: classify(t[0], 'item') } : classify(t, 'property');
  }

  const design = getDesignType(cls, name);
  const transformType = lazily(() => getTransformType(cls, name), where);
  if (transformType === undefined && hasTransformType(cls, name))
    throw notLoaded(`The type of ${where} names a class that is undefined at build time`);
  if (design === Array) {
    if (transformType) return { kind: 'array', item: classify(transformType, 'item') };
    if (param.items) return { kind: 'array', item: { kind: 'schema', schema: param.items } };
    const each = inferFromConstraints(
      metas.filter((m) => m.each),
      param,
    );
    if (each) return { kind: 'array', item: each };
    throw new ToolDefinitionError(`Cannot know the item type of array ${where}. ${fix}`);
  }
  if (design === undefined || design === Object) {
    if (transformType) return classify(transformType, 'property');
    const inferred = inferFromConstraints(
      metas.filter((m) => !m.each),
      param,
    );
    if (inferred) return inferred;
    // TypeScript records `undefined` (not Object) when the class a property is typed with did not exist yet.
    if (design === undefined) throw notLoaded(`The TypeScript type of ${where} was undefined when ${cls.name} was decorated`);
    throw new ToolDefinitionError(`Cannot know the type of ${where} (its TypeScript type is not a class, or it has no decorator). ${fix}`);
  }
  const kind = classify(transformType ?? design, 'property');
  // @IsInt refines a TypeScript `number` to a JSON Schema integer.
  if (kind.kind === 'number' && metas.some((m) => m.name === 'isInt' && !m.each)) return { kind: 'integer' };
  return kind;
}

function inferFromConstraints(metas: ValidationMetadata[], param: ParamMetadata): Kind | undefined {
  const has = (n: string) => metas.some((m) => m.name === n);
  if (has('isString')) return { kind: 'string' };
  if (has('isInt')) return { kind: 'integer' };
  if (has('isNumber')) return { kind: 'number' };
  if (has('isBoolean')) return { kind: 'boolean' };
  const values =
    paramEnumValues(param.enum) ??
    metas.find((m) => m.name === 'isIn')?.constraints[0] ??
    enumValues(metas.find((m) => m.name === 'isEnum')?.constraints[0]);
  if (Array.isArray(values) && values.length) {
    if (values.every((v) => typeof v === 'string')) return { kind: 'string' };
    if (values.every((v) => Number.isInteger(v))) return { kind: 'integer' };
    if (values.every((v) => typeof v === 'number')) return { kind: 'number' };
  }
  return undefined;
}

/** `@Param({ enum })`'s values: the list, or the keys of `{ value: 'Title' }`. */
export function paramEnumValues(option: ParamMetadata['enum']): readonly (string | number | boolean)[] | undefined {
  return option === undefined || Array.isArray(option)
    ? (option as readonly (string | number | boolean)[] | undefined)
    : Object.keys(option);
}

/** A TypeScript enum's values, without the reverse mapping of numeric enums. */
export function enumValues(entity: unknown): unknown[] | undefined {
  if (!entity || typeof entity !== 'object') return undefined;
  const e = entity as Record<string, unknown>;
  return Object.keys(e)
    .filter((k) => !(typeof e[e[k] as string] === 'number' && typeof e[k] === 'string'))
    .map((k) => e[k]);
}
