import { isRFC3339 } from 'class-validator';
import { ToolDefinitionError } from '../errors/errors';
import type { JsonSchema, JsonSchemaType } from '../metadata/json-schema';
import { getConstraints, getParams, getPropertyTransform, type PropertyTransform, type ValidationMetadata } from '../metadata/metadata';
import { TW } from '../metadata/schema-keywords';
import type { ClassType, ParamMetadata } from '../metadata/types';
import { applyConstraints, applyNotEmptyInstance, type PropertySchemas } from './apply-constraints';
import type { ConstraintTable } from './constraint-table';
import { tellModel } from './model-hints';
import { deferProperty, isOptionalMeta, keepUncompiled, type Residual } from './residual';
import { paramEnumValues, resolveKind, type Kind } from './type-resolution';

/**
 * Turns an input (or output) class into two JSON Schemas built side by side:
 * - `schema`: what the model is told (plain JSON Schema, as an author would write it, plus a short
 *   phrase in the description for each enforced constraint JSON Schema has no keyword for);
 * - `validation`: what Ajv compiles to enforce it: the same keywords, plus toolwright's own
 *   (src/metadata/schema-keywords.ts): class-validator's own validator where JSON Schema has no exact
 *   word (formats, `@IsAlpha`…), bounded error collection for array items, key counting on closed
 *   classes, and optional properties that also accept null (as `@IsOptional` does).
 * Each keyword of `validation` remembers, in the registry's ConstraintTable, the class-validator
 * constraint it came from, so an Ajv error is reported with that constraint's name and message.
 * Constraints that cannot be compiled (async or user-written validators, `@ValidateIf`, properties
 * with a `@Transform`) are collected per class in `residual`: class-validator runs only those,
 * on the hydrated instance.
 */

/** How a property's JSON value becomes what the instance holds (src/validation/hydrator.ts compiles it). */
export type Conversion = { to: 'date' } | { to: 'class'; plan: ClassPlan } | { to: 'array'; item: Conversion };

export interface PropertyPlan {
  /** The instance's property name. */
  name: string;
  /** The JSON key the model sends (`@Expose({ name })`, else the property name). */
  key: string;
  required: boolean;
  /** Only for keys that objects inherit (`constructor`, `toString`): read them as own properties. */
  ownOnly: boolean;
  conversion?: Conversion;
  /** `@Transform`s, applied in order to the converted value (as plainToInstance does). */
  transform?: (value: unknown, plain: Record<string, unknown>) => unknown;
}

export interface ClassPlan {
  cls: ClassType;
  schema: JsonSchema;
  validation: JsonSchema;
  properties: PropertyPlan[];
  closed: boolean;
  /** Constraints of the whole tree that Ajv does not run, by class: class-validator runs exactly these. */
  residual: Residual;
  /** Somewhere in the tree a value is free-form (an open class or a plain `object` schema), so the schema does not bound its depth. */
  freeForm: boolean;
}

export interface BuildClassOptions {
  closed: boolean;
  /** Where the class is used, for error messages: `tool "process_refund" input`. */
  usage: string;
  /** The registry's constraint table: checks and keyword refs are recorded there. */
  table: ConstraintTable;
}

interface BuiltProperty extends PropertySchemas {
  conversion?: Conversion;
  /** A nested class of this property has constraints left to class-validator. */
  nestedResidual: boolean;
}

/** One class being planned: what each of its properties adds to. */
interface ClassBuild {
  plan: ClassPlan;
  options: BuildClassOptions;
  /** The classes above this one, and this one: a class met again is recursive. */
  seen: ClassType[];
  /** An instance made with no arguments, for its field initializers; undefined when the class needs arguments. */
  probe: Record<string, unknown> | undefined;
  /** This class's own residual constraints. */
  residual: Set<ValidationMetadata>;
  required: string[];
}

export function buildClassPlan(cls: ClassType, options: BuildClassOptions, seen: ClassType[] = []): ClassPlan {
  if (seen.includes(cls)) {
    throw new ToolDefinitionError(
      `${[...seen, cls].map((c) => c.name).join(' → ')} is recursive (${options.usage}). ` +
        'Tool schemas must be finite: break the cycle with a separate, shallower class.',
    );
  }
  const params = getParams(cls);
  const constraints = getConstraints(cls);
  // No properties is a class with none ("options: {}"), not one still loading: a class that exists ran its
  // decorators with its declaration. Not loaded yet is the class itself missing (undefined, or a thunk that throws).
  const names = [...new Set([...params.keys(), ...constraints.keys()])];
  const validation: JsonSchema = { type: 'object', properties: {} };
  const plan: ClassPlan = {
    cls,
    schema: { type: 'object', properties: {} },
    validation,
    properties: [],
    closed: options.closed,
    residual: new Map(),
    freeForm: !options.closed,
  };
  Object.assign(options.table.own(validation), {
    type: { constraint: 'nestedValidation', message: `$property must be an object` },
    required: { constraint: 'isDefined', message: '$property should not be null or undefined' },
    additionalProperties: { constraint: 'whitelistValidation', message: 'property $property should not exist' },
  });
  const build: ClassBuild = { plan, options, seen: seen.concat(cls), probe: probeOf(cls), residual: new Set(), required: [] };
  for (const name of names) {
    const metas = (constraints.get(name) ?? []).filter((m) => m.type !== 'whitelistValidation');
    planProperty(build, name, params.get(name) ?? { propertyName: name }, metas);
  }
  if (build.required.length) plan.schema.required = validation.required = build.required;
  if (options.closed) {
    plan.schema.additionalProperties = validation.additionalProperties = false;
    validation[TW.keys] = true; // the first-error validator counts the keys it accepts (see createClassAjv)
  }
  if (build.residual.size) plan.residual.set(cls, [...build.residual]);
  return plan;
}

/** Field initializers are the defaults the tool really gets (hydration keeps them): the model is told them. */
function probeOf(cls: ClassType): Record<string, unknown> | undefined {
  try {
    return new cls() as Record<string, unknown>;
  } catch {
    return undefined; // a class that needs constructor arguments has no initializer defaults to read
  }
}

/** One property: its schemas in both, its residual constraints, and how the hydrator fills it. */
function planProperty(build: ClassBuild, name: string, param: ParamMetadata, metas: ValidationMetadata[]): void {
  const { plan } = build;
  const cls = plan.cls;
  const where = `${cls.name}.${name}`;
  const transform = getPropertyTransform(cls, name);
  if (transform.excluded) {
    // plainToInstance drops the key (even from a closed class): accept it, tell nothing; class-validator checks the property.
    plan.validation.properties![transform.key] = {};
    for (const m of metas) build.residual.add(m);
    return;
  }
  const key = transform.key;
  const kind = resolveKind(cls, name, param, metas, where);
  const isOptional = metas.some(isOptionalMeta);
  // @ValidateIf: when its condition is false class-validator skips the property's every constraint (presence
  // included), which a static schema cannot know. Ajv accepts any value there; class-validator decides.
  const conditional = metas.some((m) => m.type === 'conditionalValidation' && m.name !== 'isOptional');
  // @Transform: class-validator checks the transformed value, which only exists on the instance.
  const deferred = conditional || transform.transforms.length > 0;
  const isRequired = param.required ?? (!isOptional && !conditional);
  if (param.required === false && !isOptional && metas.some((m) => m.type !== 'nestedValidation')) {
    throw new ToolDefinitionError(
      `${where} is marked @Param({ required: false }) but class-validator would still reject it when absent. ` +
        'Add @IsOptional() to the property.',
    );
  }
  const prop = buildProperty(kind, metas, param, where, build);
  annotate(prop.schema, prop, param, defaultOf(build.probe, name, param, where));
  plan.schema.properties![key] = prop.schema;
  // Optional properties accept null (as @IsOptional does); strict-mode providers send null for "absent".
  plan.validation.properties![key] = deferred ? {} : isRequired ? prop.validation : { [TW.nullable]: prop.validation };
  if (deferred) {
    plan.freeForm = true;
    // Ajv checks nothing below this property: class-validator checks the nested classes whole.
    deferProperty(build.residual, plan.residual, metas, kind);
  } else keepUncompiled(build.residual, metas, prop.uncompiled, prop.nestedResidual);
  if (isRequired) build.required.push(key);
  plan.properties.push({
    name,
    key,
    required: isRequired,
    ownOnly: key in Object.prototype,
    conversion: prop.conversion,
    transform: transformOf(transform, name),
  });
}

/** What `@Param` says about a property besides its type, for the model (a format is enforced too). */
function annotate(schema: JsonSchema, prop: BuiltProperty, param: ParamMetadata, fallback: unknown): void {
  const description = [param.description, ...prop.phrases].filter(Boolean).join(' ');
  if (description) schema.description = description;
  if (param.title) schema.title = param.title;
  if (param.format) schema.format = prop.validation.format = param.format;
  if (fallback !== undefined) schema.default = fallback;
  if (param.examples) schema.examples = [...param.examples];
}

/** plainToInstance's custom transforms for one property: each gets the previous one's value. */
function transformOf(transform: PropertyTransform, name: string): PropertyPlan['transform'] {
  if (!transform.transforms.length) return undefined;
  const options = Object.freeze({});
  return (value, plain) => transform.transforms.reduce((v, fn) => fn({ value: v, key: name, obj: plain, type: 0, options }), value);
}

/** `@Param({ default })`, else the field initializer's value; both given must agree. */
function defaultOf(probe: Record<string, unknown> | undefined, name: string, param: ParamMetadata, where: string): unknown {
  const initial = probe && Object.prototype.hasOwnProperty.call(probe, name) ? probe[name] : undefined;
  if (initial === undefined || initial === null || typeof initial === 'function') return param.default;
  const json = JSON.stringify(initial);
  if (param.default !== undefined && JSON.stringify(param.default) !== json) {
    throw new ToolDefinitionError(
      `${where}: @Param({ default: ${JSON.stringify(param.default)} }) differs from its initializer (${json}). Keep one.`,
    );
  }
  return JSON.parse(json);
}

function buildProperty(kind: Kind, metas: ValidationMetadata[], param: ParamMetadata, where: string, build: ClassBuild): BuiltProperty {
  const own = metas.filter((m) => !m.each);
  const each = metas.filter((m) => m.each);
  if (kind.kind === 'array') {
    const item = buildValue(kind.item, each, param, where + '[]', build);
    const built: BuiltProperty = {
      schema: { type: 'array' as const, items: item.schema },
      // Bounded `items` (see createClassAjv).
      validation: { type: 'array' as const, [TW.items]: item.validation },
      conversion: item.conversion && { to: 'array', item: item.conversion },
      uncompiled: item.uncompiled,
      nestedResidual: item.nestedResidual,
      phrases: item.phrases,
    };
    applyConstraints(built, 'array', own, where, build.plan.cls.name, build.options.table);
    return built;
  }
  if (each.length) throw new ToolDefinitionError(`${where} uses { each: true } but is not an array. Type it as an array or drop "each".`);
  return buildValue(kind, own, param, where, build);
}

function buildValue(kind: Kind, metas: ValidationMetadata[], param: ParamMetadata, where: string, build: ClassBuild): BuiltProperty {
  if (kind.kind === 'schema') return buildGiven(kind.schema, metas, build.plan);
  if (kind.kind === 'array')
    throw new ToolDefinitionError(`${where}: arrays of arrays are not supported. Wrap the inner array in a class.`);
  if (kind.kind === 'class') return buildNested(kind.cls, metas, where, build);
  const { table } = build.options;
  const type: JsonSchemaType = kind.kind === 'date' ? 'string' : kind.kind;
  const built: BuiltProperty = { schema: { type }, validation: { type }, uncompiled: [], nestedResidual: false, phrases: [] };
  if (param.enum) applyEnum(built, param);
  applyConstraints(built, kind.kind, metas, where, build.plan.cls.name, table);
  if (kind.kind === 'date') {
    built.schema.format = 'date-time';
    built.conversion = { to: 'date' };
    // What `new Date()` reads the same everywhere: an RFC 3339 date-time (ISO 8601 also allows weeks, ordinal days…).
    table.addCheck(built.validation, {
      constraint: 'isDateString',
      message: '$property must be a valid RFC 3339 date-time string',
      validate: (v) => isRFC3339(v) && !Number.isNaN(Date.parse(v as string)),
    });
  }
  return built;
}

/** `@Param({ enum })`: validated as `enum`; titled values told as `oneOf: [{ const, title }]` (or legacy `enumNames`). */
function applyEnum(built: BuiltProperty, param: ParamMetadata): void {
  const values = paramEnumValues(param.enum)!;
  built.validation.enum = [...values];
  if (Array.isArray(param.enum)) built.schema.enum = [...values];
  else if (param.enumNames) {
    built.schema.enum = [...values];
    built.schema.enumNames = Object.values(param.enum!);
  } else built.schema.oneOf = Object.entries(param.enum!).map(([value, title]) => ({ const: value, title }));
}

/** A schema given as is (`@Param({ schema })`, `items`): no keyword mapping, class-validator runs its constraints. */
function buildGiven(given: JsonSchema, metas: ValidationMetadata[], owner: ClassPlan): BuiltProperty {
  owner.freeForm = true;
  const uncompiled = metas.filter((m) => !isOptionalMeta(m) && m.type !== 'isDefined');
  const schema = structuredClone(given);
  const phrases: string[] = [];
  for (const m of uncompiled) tellModel(schema, m, phrases);
  return { schema, validation: structuredClone(given), uncompiled, nestedResidual: false, phrases };
}

/** A nested class: its own plan, whose residual joins the owner's. */
function buildNested(cls: ClassType, metas: ValidationMetadata[], where: string, build: ClassBuild): BuiltProperty {
  const { plan: owner, options } = build;
  const nested = buildClassPlan(cls, options, build.seen);
  for (const [c, residual] of nested.residual) owner.residual.set(c, residual);
  owner.freeForm ||= nested.freeForm;
  const built: BuiltProperty = {
    schema: nested.schema,
    validation: nested.validation,
    conversion: { to: 'class', plan: nested },
    uncompiled: [],
    nestedResidual: nested.residual.size > 0,
    phrases: [],
  };
  const notEmpty = metas.filter((m) => m.name === 'isNotEmptyObject');
  applyConstraints(
    built,
    'class',
    metas.filter((m) => m.name !== 'isNotEmptyObject'),
    where,
    owner.cls.name,
    options.table,
  );
  for (const m of notEmpty) applyNotEmptyInstance(built, cls, m, options.table);
  return built;
}
