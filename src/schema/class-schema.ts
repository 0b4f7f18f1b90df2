import { isNotEmptyObject, isRFC3339 } from 'class-validator';
import { ToolDefinitionError } from '../errors/errors';
import {
  getConstraints,
  getDesignType,
  getParams,
  getPropertyTransform,
  getTransformType,
  type PropertyTransform,
  hasTransformType,
  type ValidationMetadata,
} from '../metadata/metadata';
import type { ClassType, ParamMetadata } from '../metadata/types';
import type { JsonSchema, JsonSchemaType } from '../metadata/json-schema';

/**
 * Turns an input (or output) class into two JSON Schemas built side by side:
 * - `schema`: what the model is told (plain JSON Schema, as an author would write it, plus a short
 *   phrase in the description for each enforced constraint JSON Schema has no keyword for);
 * - `validation`: what Ajv compiles to enforce it: the same keywords, plus a `x-tw-check`
 *   keyword that calls class-validator's own validator where JSON Schema has no exact word
 *   (formats, `@IsAlpha`…), `x-tw-items` for array items (bounded error collection), `x-tw-keys` on
 *   closed classes (the validator counts the keys it accepts), and `x-tw-nullable` around optional
 *   properties, which also accept null (as `@IsOptional` does).
 * Each keyword of `validation` remembers, in the registry's ConstraintTable, the class-validator
 * constraint it came from, so an Ajv error is reported with that constraint's name and message.
 * Constraints that cannot be compiled (async or user-written validators, `@ValidateIf`, properties
 * with a `@Transform`) are collected per class in `residual`: class-validator runs only those,
 * on the hydrated instance.
 */

export interface ConstraintRef {
  /** The class-validator constraint name (`min`, `isString`, …) or a toolwright one (`isDefined`, `whitelistValidation`). */
  constraint: string;
  meta?: ValidationMetadata;
  /** For synthesized checks without class-validator metadata: `$property must be …`. */
  message?: string;
}

/** A check run by the `x-tw-check` keyword: class-validator's own constraint, called on one value. */
export interface Check extends ConstraintRef {
  validate: (value: unknown) => boolean;
}

/**
 * One registry's compiled constraints: the checks `x-tw-check` holds indexes into, and for each
 * validation-schema object its keyword → constraint refs (Ajv's `parentSchema` in verbose errors).
 * Built with the registry's class plans and handed explicitly to what reports their errors.
 */
export class ConstraintTable {
  readonly checks: Check[] = [];
  private readonly refs = new WeakMap<object, Record<string, ConstraintRef>>();

  refsOf(schema: object): Record<string, ConstraintRef> | undefined {
    return this.refs.get(schema);
  }

  /** The refs of one validation-schema object, created on first use. */
  own(schema: object): Record<string, ConstraintRef> {
    let refs = this.refs.get(schema);
    if (!refs) this.refs.set(schema, (refs = {}));
    return refs;
  }

  addCheck(validation: JsonSchema, check: Check): void {
    this.checks.push(check);
    validation['x-tw-check'] = [...((validation['x-tw-check'] as number[] | undefined) ?? []), this.checks.length - 1];
  }
}

export interface PropertyPlan {
  /** The instance's property name. */
  name: string;
  /** The JSON key the model sends (`@Expose({ name })`, else the property name). */
  key: string;
  required: boolean;
  /** Only for keys that objects inherit (`constructor`, `toString`): read them as own properties. */
  ownOnly: boolean;
  convert?: (value: unknown) => unknown;
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
  residual: Map<ClassType, ValidationMetadata[]>;
  /** Somewhere in the tree a value is free-form (an open class or a plain `object` schema), so the schema does not bound its depth. */
  freeForm: boolean;
}

type Kind =
  | { kind: 'string' | 'number' | 'integer' | 'boolean' | 'date' }
  | { kind: 'class'; cls: ClassType }
  | { kind: 'array'; item: Kind }
  | { kind: 'schema'; schema: JsonSchema };

const SCALARS = new Map<unknown, Kind>([
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

/** Built-in class-validator constraints whose result depends on the value and constraints only. */
const PURE_BUILTINS = new Set(
  (
    'isLocale isEmail isISO31661Alpha2 isLength isCreditCard isLowercase isCurrency matches isNumberString isMilitaryTime ' +
    'isSurrogatePair isIso8601 isUrl isPassportNumber isMacAddress isTimeZone isISRC isHexadecimal isIp isEthereumAddress isBIC ' +
    'isBase58 isHash isEAN isVariableWidth maxLength isBase64 isOctal isMongoId isPhoneNumber isBase32 isISO31661Numeric isFqdn ' +
    'isUuid isTaxId minLength isJwt isByteLength isPort isUppercase isMagnetURI isJson isAlpha isIsin isDataURI isBooleanString ' +
    'isISO4217CurrencyCode isISO6391 isRFC3339 isIdentityCard isISSN isFullWidth isDateString isIBAN isHalfWidth isStrongPassword ' +
    'isRgbColor isHexColor isMimeType isSemVer isAlphanumeric isMultibyte isISO31661Alpha3 isMobilePhone isAscii isIsbn isHSL ' +
    'isPostalCode isBtcAddress IsFirebasePushId isDecimal arrayMinSize arrayNotEmpty arrayUnique arrayMaxSize arrayContains ' +
    'arrayNotContains isNotEmptyObject isNotEmpty notEquals isIn equals isLongitude isLatitude isEmpty isLatLong isNotIn min ' +
    'isPositive isDivisibleBy isNegative max isNumber isInt isArray isObject isBoolean isEnum isString'
  ).split(' '),
);

/** Formats the model is told; enforcement still calls the constraint itself. */
const FORMATS: Record<string, string> = {
  isEmail: 'email',
  isUuid: 'uuid',
  isUrl: 'uri',
  isDateString: 'date-time',
  isIso8601: 'date-time',
  isRFC3339: 'date-time',
};

/** What the model is told for checks JSON Schema can state exactly (the check still enforces them). */
const TOLD: Record<string, (c: unknown[]) => JsonSchema | undefined> = {
  isAlpha: (c) => (c[0] === undefined || c[0] === 'en-US' ? { pattern: '^[A-Za-z]+$' } : undefined),
  isAlphanumeric: (c) => (c[0] === undefined || c[0] === 'en-US' ? { pattern: '^[A-Za-z0-9]+$' } : undefined),
  isHexColor: () => ({ pattern: '^#?(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$' }),
  isMongoId: () => ({ pattern: '^(?:[0-9A-Fa-f]{24}|0[xXhH][0-9A-Fa-f]{22})$' }),
  isBooleanString: () => ({ enum: ['true', 'false', '1', '0'] }),
  isIp: (c) => (String(c[0]) === '4' ? { format: 'ipv4' } : String(c[0]) === '6' ? { format: 'ipv6' } : undefined),
  isNotEmptyObject: () => ({ minProperties: 1 }),
  contains: (c) => ({ pattern: String(c[0]).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') }),
  notEquals: (c) => ({ not: { const: c[0] } }),
  isNotIn: (c) => (Array.isArray(c[0]) ? { not: { enum: [...c[0]] } } : undefined),
};

/** Constraints compiled to a keyword that Ajv applies to one JSON type only. */
const NUMERIC = ['number', 'integer'];
const APPLIES_TO: Record<string, string[]> = {
  min: NUMERIC,
  max: NUMERIC,
  isPositive: NUMERIC,
  isNegative: NUMERIC,
  isDivisibleBy: NUMERIC,
  minLength: ['string', 'date'],
  maxLength: ['string', 'date'],
  isLength: ['string', 'date'],
  matches: ['string', 'date'],
  arrayMinSize: ['array'],
  arrayMaxSize: ['array'],
  arrayNotEmpty: ['array'],
  arrayUnique: ['array'],
};

const TYPE_CONSTRAINT: Record<string, string> = {
  string: 'isString',
  number: 'isNumber',
  integer: 'isInt',
  boolean: 'isBoolean',
  date: 'isDateString',
  array: 'isArray',
  class: 'nestedValidation',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer number',
  boolean: 'a boolean value',
  date: 'a valid ISO 8601 date string',
  array: 'an array',
  class: 'an object',
};

export interface BuildClassOptions {
  closed: boolean;
  /** Where the class is used, for error messages: `tool "process_refund" input`. */
  usage: string;
  /** The registry's constraint table: checks and keyword refs are recorded there. */
  table: ConstraintTable;
}

const isOptionalMeta = (m: ValidationMetadata) => m.type === 'conditionalValidation' && m.name === 'isOptional';

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
  const schema: JsonSchema = { type: 'object', properties: {} };
  const validation: JsonSchema = { type: 'object', properties: {} };
  const required: string[] = [];
  const plan: ClassPlan = {
    cls,
    schema,
    validation,
    properties: [],
    closed: options.closed,
    residual: new Map(),
    freeForm: !options.closed,
  };
  const residual = new Set<ValidationMetadata>();
  Object.assign(options.table.own(validation), {
    type: { constraint: 'nestedValidation', message: `$property must be an object` },
    required: { constraint: 'isDefined', message: '$property should not be null or undefined' },
    additionalProperties: { constraint: 'whitelistValidation', message: 'property $property should not exist' },
  });

  // Field initializers are the defaults the tool really gets (hydration keeps them): tell the model.
  let probe: Record<string, unknown> | undefined;
  try {
    probe = new cls() as Record<string, unknown>;
  } catch {
    probe = undefined; // a class that needs constructor arguments has no initializer defaults to read
  }
  for (const name of names) {
    const where = `${cls.name}.${name}`;
    const metas = (constraints.get(name) ?? []).filter((m) => m.type !== 'whitelistValidation');
    const transform = getPropertyTransform(cls, name);
    if (transform.excluded) {
      // plainToInstance drops the key (even from a closed class): accept it, tell nothing; class-validator checks the property.
      validation.properties![transform.key] = {};
      for (const m of metas) residual.add(m);
      continue;
    }
    const key = transform.key;
    const param = params.get(name) ?? { propertyName: name };
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
    const prop = buildProperty(kind, metas, param, where, options, seen.concat(cls), plan);
    const description = [param.description, ...prop.phrases].filter(Boolean).join(' ');
    if (description) prop.schema.description = description;
    if (param.title) prop.schema.title = param.title;
    if (param.format) prop.schema.format = prop.validation.format = param.format;
    const fallback = defaultOf(probe, name, param, where);
    if (fallback !== undefined) prop.schema.default = fallback;
    if (param.examples) prop.schema.examples = [...param.examples];
    schema.properties![key] = prop.schema;
    // Optional properties accept null (as @IsOptional does); strict-mode providers send null for "absent".
    // `x-tw-nullable` (see createClassAjv) is `if: { type: 'null' }, else`, without the error object Ajv's `if` builds per call.
    validation.properties![key] = deferred ? {} : isRequired ? prop.validation : { 'x-tw-nullable': prop.validation };
    if (deferred) {
      plan.freeForm = true;
      for (const m of metas) residual.add(m);
      // Ajv checks nothing below this property: class-validator checks the nested classes whole.
      for (const nested of classesOf(kind)) addWholeClass(nested, plan.residual);
    } else if (prop.uncompiled.length || prop.nestedResidual) {
      // class-validator runs what Ajv cannot, under the property's own @IsOptional and through its @ValidateNested.
      for (const m of prop.uncompiled) residual.add(m);
      for (const m of metas) if (isOptionalMeta(m) || (prop.nestedResidual && m.type === 'nestedValidation')) residual.add(m);
    }
    if (isRequired) required.push(key);
    plan.properties.push({
      name,
      key,
      required: isRequired,
      ownOnly: key in Object.prototype,
      convert: prop.convert,
      transform: transformOf(transform, name),
    });
  }
  if (required.length) schema.required = validation.required = required;
  if (options.closed) {
    schema.additionalProperties = validation.additionalProperties = false;
    validation['x-tw-keys'] = true; // the first-error validator counts the keys it accepts (see createClassAjv)
  }
  if (residual.size) plan.residual.set(cls, [...residual]);
  return plan;
}

function classesOf(kind: Kind): ClassType[] {
  return kind.kind === 'class' ? [kind.cls] : kind.kind === 'array' ? classesOf(kind.item) : [];
}

/** Every constraint of a class and of the classes it nests, for class-validator to run. */
function addWholeClass(cls: ClassType, residual: Map<ClassType, ValidationMetadata[]>): void {
  const constraints = getConstraints(cls);
  residual.set(cls, [...constraints.values()].flat());
  for (const [name, metas] of constraints) {
    if (!metas.some((m) => m.type === 'nestedValidation')) continue;
    const type = getTransformType(cls, name) ?? getDesignType(cls, name);
    if (typeof type === 'function' && !SCALARS.has(type) && type !== Array && type !== Object && !residual.has(type as ClassType))
      addWholeClass(type as ClassType, residual);
  }
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

function resolveKind(cls: ClassType, name: string, param: ParamMetadata, metas: ValidationMetadata[], where: string): Kind {
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
    param.enum ??
    metas.find((m) => m.name === 'isIn')?.constraints[0] ??
    enumValues(metas.find((m) => m.name === 'isEnum')?.constraints[0]);
  if (Array.isArray(values) && values.length) {
    if (values.every((v) => typeof v === 'string')) return { kind: 'string' };
    if (values.every((v) => Number.isInteger(v))) return { kind: 'integer' };
    if (values.every((v) => typeof v === 'number')) return { kind: 'number' };
  }
  return undefined;
}

/** A TypeScript enum's values, without the reverse mapping of numeric enums. */
function enumValues(entity: unknown): unknown[] | undefined {
  if (!entity || typeof entity !== 'object') return undefined;
  const e = entity as Record<string, unknown>;
  return Object.keys(e)
    .filter((k) => !(typeof e[e[k] as string] === 'number' && typeof e[k] === 'string'))
    .map((k) => e[k]);
}

interface BuiltProperty {
  schema: JsonSchema;
  validation: JsonSchema;
  convert?: (value: unknown) => unknown;
  /** Constraints Ajv does not run (class-validator does). */
  uncompiled: ValidationMetadata[];
  /** A nested class of this property has constraints left to class-validator. */
  nestedResidual: boolean;
  /** What the model is told in words, for enforced constraints JSON Schema cannot state. */
  phrases: string[];
}

function buildProperty(
  kind: Kind,
  metas: ValidationMetadata[],
  param: ParamMetadata,
  where: string,
  options: BuildClassOptions,
  seen: ClassType[],
  owner: ClassPlan,
): BuiltProperty {
  const own = metas.filter((m) => !m.each);
  const each = metas.filter((m) => m.each);
  if (kind.kind === 'array') {
    const item = buildValue(kind.item, each, param.enum, where + '[]', options, seen, owner);
    const convertItem = item.convert;
    const built: BuiltProperty = {
      schema: { type: 'array' as const, items: item.schema },
      // x-tw-items is `items` with a bounded error report (see createClassAjv).
      validation: { type: 'array' as const, 'x-tw-items': item.validation },
      convert: convertItem && ((v: unknown) => (Array.isArray(v) ? v.map(convertItem) : v)),
      uncompiled: item.uncompiled,
      nestedResidual: item.nestedResidual,
      phrases: item.phrases,
    };
    apply(built, 'array', own, where, owner, options.table);
    return built;
  }
  if (each.length) throw new ToolDefinitionError(`${where} uses { each: true } but is not an array. Type it as an array or drop "each".`);
  return buildValue(kind, own, param.enum, where, options, seen, owner);
}

function buildValue(
  kind: Kind,
  metas: ValidationMetadata[],
  enumOption: ParamMetadata['enum'],
  where: string,
  options: BuildClassOptions,
  seen: ClassType[],
  owner: ClassPlan,
): BuiltProperty {
  if (kind.kind === 'schema') {
    owner.freeForm = true;
    // No keyword mapping for a schema given as is: class-validator runs its constraints.
    const uncompiled = metas.filter((m) => !isOptionalMeta(m) && m.type !== 'isDefined');
    const schema = structuredClone(kind.schema);
    const phrases: string[] = [];
    for (const m of uncompiled) tellModel(schema, m, phrases);
    return { schema, validation: structuredClone(kind.schema), uncompiled, nestedResidual: false, phrases };
  }
  if (kind.kind === 'array')
    throw new ToolDefinitionError(`${where}: arrays of arrays are not supported. Wrap the inner array in a class.`);
  if (kind.kind === 'class') {
    const nested = buildClassPlan(kind.cls, options, seen);
    for (const [cls, residual] of nested.residual) owner.residual.set(cls, residual);
    owner.freeForm ||= nested.freeForm;
    const built: BuiltProperty = {
      schema: nested.schema,
      validation: nested.validation,
      convert: compileHydrator(nested) as (v: unknown) => unknown,
      uncompiled: [],
      nestedResidual: nested.residual.size > 0,
      phrases: [],
    };
    apply(
      built,
      'class',
      metas.filter((m) => m.name !== 'isNotEmptyObject'),
      where,
      owner,
      options.table,
    );
    for (const m of metas) if (m.name === 'isNotEmptyObject') notEmptyInstance(built, kind.cls, m, options.table);
    return built;
  }
  const type: JsonSchemaType = kind.kind === 'date' ? 'string' : kind.kind;
  const built: BuiltProperty = { schema: { type }, validation: { type }, uncompiled: [], nestedResidual: false, phrases: [] };
  if (enumOption) built.schema.enum = built.validation.enum = [...enumOption];
  apply(built, kind.kind, metas, where, owner, options.table);
  if (kind.kind === 'date') {
    built.schema.format = 'date-time';
    built.convert = (v) => new Date(v as string);
    // What `new Date()` reads the same everywhere: an RFC 3339 date-time (ISO 8601 also allows weeks, ordinal days…).
    options.table.addCheck(built.validation, {
      constraint: 'isDateString',
      message: '$property must be a valid RFC 3339 date-time string',
      validate: (v) => isRFC3339(v) && !Number.isNaN(Date.parse(v as string)),
    });
  }
  return built;
}

/**
 * `@IsNotEmptyObject` on a nested class judges the instance class-validator sees: field initializers
 * count, keys plainToInstance drops (an `@Exclude`d property, a name the instance has a method for) do not.
 */
function notEmptyInstance(built: BuiltProperty, cls: ClassType, m: ValidationMetadata, table: ConstraintTable): void {
  let probe: Record<string, unknown>;
  try {
    probe = new cls() as Record<string, unknown>;
  } catch {
    probe = Object.create(cls.prototype as object) as Record<string, unknown>;
  }
  const names = [...new Set([...getParams(cls).keys(), ...getConstraints(cls).keys()])];
  const excluded = new Set(names.filter((n) => getPropertyTransform(cls, n).excluded));
  // An @Expose'd property is on every instance (undefined when absent: exposeUnsetFields), so the instance is never empty.
  const exposed = names.filter((n) => !excluded.has(n) && getPropertyTransform(cls, n).exposed);
  const kept = (key: string) => !excluded.has(key) && typeof probe[key] !== 'function';
  const initial = Object.keys(probe);
  if (!initial.length && !exposed.length) tell(built.schema, 'minProperties', 1);
  table.addCheck(built.validation, {
    constraint: 'isNotEmptyObject',
    meta: m,
    validate: (value) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      const view: Record<string, unknown> = {};
      for (const name of exposed) view[name] = undefined;
      for (const key of initial) view[key] = probe[key];
      for (const key of Object.keys(value)) if (kept(key)) view[key] = (value as Record<string, unknown>)[key];
      return isNotEmptyObject(view, m.constraints?.[0] as { nullable?: boolean } | undefined);
    },
  });
}

/** JSON Schema keywords that several constraints may each set: the model is told the strictest. */
const STRICTEST: Record<string, (a: never, b: never) => unknown> = {
  minimum: Math.max,
  exclusiveMinimum: Math.max,
  minLength: Math.max,
  minItems: Math.max,
  minProperties: Math.max,
  maximum: Math.min,
  exclusiveMaximum: Math.min,
  maxLength: Math.min,
  maxItems: Math.min,
  maxProperties: Math.min,
  enum: (a: unknown[], b: unknown[]) => a.filter((x) => b.some((y) => JSON.stringify(x) === JSON.stringify(y))),
  uniqueItems: (a: boolean, b: boolean) => a || b,
};

/** Adds a keyword to what the model sees: merged with one already there (strictest), or under allOf. */
function tell(schema: JsonSchema, keyword: string, value: unknown): void {
  const current = schema[keyword];
  if (current === undefined) schema[keyword] = value;
  else if (STRICTEST[keyword]) schema[keyword] = STRICTEST[keyword](current as never, value as never);
  else if (JSON.stringify(current) !== JSON.stringify(value)) schema.allOf = [...(schema.allOf ?? []), { [keyword]: value }];
}

/** Tells the model a constraint enforced by a check or by class-validator: a keyword where one states it, else a phrase. */
function tellModel(schema: JsonSchema, m: ValidationMetadata, phrases: string[]): void {
  if (m.name && repeatsType(schema, m.name)) {
    // "Must be an object." beside `type: object` says nothing more; a decimal-places limit still does.
    const places = m.name === 'isNumber' ? (m.constraints?.[0] as { maxDecimalPlaces?: number } | undefined)?.maxDecimalPlaces : undefined;
    if (places !== undefined) phrases.push(`At most ${places} decimal places.`);
    return;
  }
  const told = m.name ? TOLD[m.name]?.(m.constraints ?? []) : undefined;
  if (told) {
    for (const [keyword, value] of Object.entries(told)) tell(schema, keyword, value);
    return;
  }
  if (m.name && FORMATS[m.name]) {
    schema.format = FORMATS[m.name];
    if (m.name === 'isUuid' && m.constraints?.[0] !== undefined && m.constraints[0] !== 'all')
      phrases.push(`Must be a UUID version ${m.constraints[0]}.`);
    return;
  }
  const text = phraseOf(m);
  if (text && !phrases.includes(text)) phrases.push(text);
}

/** The JSON types each type constraint accepts: on a JSON value class-validator's check is exactly that type. */
const TYPE_CHECKS: Record<string, readonly string[]> = {
  isString: ['string'],
  isNumber: ['number', 'integer'],
  isInt: ['integer'],
  isBoolean: ['boolean'],
  isArray: ['array'],
  isObject: ['object'],
};

/** A type constraint on a schema whose own `type` already says it (a schema given as is: `@Param({ type: 'object' })`, `items`). */
function repeatsType(schema: JsonSchema, constraint: string): boolean {
  return typeof schema.type === 'string' && TYPE_CHECKS[constraint]?.includes(schema.type) === true;
}

/** class-validator's message for a constraint, about "the value" rather than a property: "Must contain only letters (a-zA-Z)." */
function phraseOf(m: ValidationMetadata): string | undefined {
  if (m.type === 'conditionalValidation' || m.type === 'nestedValidation' || m.type === 'isDefined' || m.type === 'promiseValidation')
    return undefined;
  if (m.name === 'isDate') return undefined; // the model sends a date-time string (the format says so); the tool gets the Date
  const constraints = (m.constraints ?? []) as unknown[];
  let template: unknown = typeof m.message === 'string' ? m.message : undefined;
  if (!template && m.constraintCls) {
    try {
      const instance = new (m.constraintCls as new () => { defaultMessage?(a: object): string })();
      template = instance.defaultMessage?.({ property: '$property', value: undefined, constraints, targetName: '', object: {} });
    } catch {
      template = undefined; // a constraint class that needs its container: no phrase
    }
  }
  if (typeof template !== 'string' || !template || template.includes('$value')) return undefined;
  const text = template
    .replace(/\$property/g, m.each ? 'the list' : 'the value')
    .replace(/\$constraint(\d+)/g, (_, n: string) => {
      const c = constraints[Number(n) - 1];
      return c instanceof Date ? c.toISOString() : typeof c === 'string' ? c : (JSON.stringify(c) ?? String(c));
    })
    .replace(/^the value /, '')
    .trim();
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
}

/** Writes each constraint's keyword into both schemas and remembers where it came from. */
function apply(
  built: BuiltProperty,
  kind: string,
  metas: ValidationMetadata[],
  where: string,
  owner: ClassPlan,
  table: ConstraintTable,
): void {
  const { schema, validation } = built;
  // A nested class's schema already has its object-level refs (required, additionalProperties): extend them.
  const refs = table.own(validation);
  refs.type ??= { constraint: TYPE_CONSTRAINT[kind], message: `$property must be ${TYPE_WORDS[kind]}` };
  // Every constraint holds: a keyword already taken by another constraint is enforced again under allOf.
  const set = (keyword: string, value: unknown, meta: ValidationMetadata) => {
    const ref = { constraint: meta.name ?? meta.type, meta };
    if (validation[keyword] === undefined) {
      validation[keyword] = value;
      refs[keyword] = ref;
    } else {
      const extra: JsonSchema = { [keyword]: value };
      table.own(extra)[keyword] = ref;
      validation.allOf = [...(validation.allOf ?? []), extra];
    }
    tell(schema, keyword, value);
  };
  const check = (meta: ValidationMetadata) => {
    const instance = new (meta.constraintCls as new () => { validate(v: unknown, a: unknown): boolean })();
    const args = { constraints: meta.constraints, property: '', value: undefined as unknown, targetName: owner.cls.name, object: {} };
    table.addCheck(validation, {
      constraint: meta.name!,
      meta,
      validate: (value) => {
        try {
          return instance.validate(value, { ...args, value }) === true;
        } catch {
          return false; // validator.js throws on some values (isNumber's maxDecimalPlaces on 1e-7): the value fails
        }
      },
    });
  };

  for (const m of metas) {
    const c = m.constraints ?? [];
    if (m.type === 'conditionalValidation') continue; // @IsOptional and @ValidateIf are the property's business
    if (m.type === 'nestedValidation' || m.type === 'isDefined') continue; // nested classes and presence are compiled already
    if (m.type !== 'customValidation' || !m.name || !PURE_BUILTINS.has(m.name)) {
      built.uncompiled.push(m); // async or user-written validators: class-validator runs them
      tellModel(schema, m, built.phrases);
      continue;
    }
    const typeOf = { isString: 'string', isNumber: 'number', isInt: 'integer', isBoolean: 'boolean', isArray: 'array', isObject: 'class' }[
      m.name
    ];
    if (typeOf) {
      const compatible = typeOf === kind || (typeOf === 'number' && kind === 'integer') || (typeOf === 'integer' && kind === 'number');
      if (!compatible)
        throw new ToolDefinitionError(
          `${where}: @${m.name.replace(/^is/, 'Is')}() disagrees with its type (${kind}). Make the TypeScript type and the decorator agree.`,
        );
      refs.type = { constraint: m.name, meta: m };
      if (m.name === 'isInt' && kind === 'number') schema.type = validation.type = 'integer'; // @Param({ type: 'number' }) or () => [Number]
      if (m.name === 'isNumber' && c[0] && Object.keys(c[0]).length) {
        check(m); // maxDecimalPlaces and friends
        const places = (c[0] as { maxDecimalPlaces?: number }).maxDecimalPlaces;
        if (places !== undefined) built.phrases.push(`At most ${places} decimal places.`);
      }
      continue;
    }
    const appliesTo = APPLIES_TO[m.name];
    if (appliesTo && !appliesTo.includes(kind)) {
      throw new ToolDefinitionError(
        `${where}: the ${m.name} constraint cannot apply to a property of type ${kind} (class-validator would reject every value). Remove it or make the type agree.`,
      );
    }
    switch (m.name) {
      case 'min':
        set('minimum', c[0], m);
        break;
      case 'max':
        set('maximum', c[0], m);
        break;
      case 'isPositive':
        set('exclusiveMinimum', 0, m);
        break;
      case 'isNegative':
        set('exclusiveMaximum', 0, m);
        break;
      case 'isDivisibleBy':
        // validator.js divides by parseInt(divisor) and tests `%` on the number's decimal text: only a check agrees on every value.
        if (!Number.isInteger(c[0]) || (c[0] as number) === 0) {
          throw new ToolDefinitionError(
            `${where}: @IsDivisibleBy(${String(c[0])}) rejects every value (class-validator divides by the integer part of the divisor). Use a non-zero integer divisor.`,
          );
        }
        tell(schema, 'multipleOf', Math.abs(c[0] as number));
        check(m);
        break;
      case 'minLength':
        set('minLength', c[0], m);
        break;
      case 'maxLength':
        set('maxLength', c[0], m);
        break;
      case 'isLength':
        set('minLength', c[0], m);
        if (c[1] !== undefined) set('maxLength', c[1], m);
        break;
      case 'isNotEmpty':
        if (kind === 'string') set('minLength', 1, m);
        else check(m);
        break;
      case 'isIn':
        set('enum', [...c[0]], m);
        break;
      case 'isEnum':
        set('enum', enumValues(c[0]), m);
        break;
      case 'equals':
        set('const', c[0], m);
        break;
      case 'arrayMinSize':
        set('minItems', c[0], m);
        break;
      case 'arrayMaxSize':
        set('maxItems', c[0], m);
        break;
      case 'arrayNotEmpty':
        set('minItems', 1, m);
        break;
      case 'matches': {
        const re = c[0] instanceof RegExp ? c[0] : new RegExp(c[0], c[1]);
        if (re.flags.replace(/g/g, '')) {
          // A JSON Schema pattern has no flags: told without `i`, `m` or `s` it would refuse what the check accepts
          // ("A" for /^[a-z]+$/i), so the model reads the regular expression in words; `u` alone is how patterns run.
          if (re.flags.replace(/[gu]/g, ''))
            built.phrases.push(`Must match the regular expression /${re.source}/${re.flags.replace(/g/g, '')}.`);
          else tell(schema, 'pattern', re.source);
          check(m);
        } else set('pattern', re.source, m);
        break;
      }
      default:
        if (m.name === 'arrayUnique' && !c[0]) {
          set('uniqueItems', true, m);
          break;
        }
        tellModel(schema, m, built.phrases);
        check(m);
    }
  }
  // Enums with no value in common: no value passes (an empty array or an absent optional property still may), but
  // `enum: []` is not a valid JSON Schema; `not: {}` says the same.
  if (Array.isArray(schema.enum) && !schema.enum.length) {
    delete schema.enum;
    tell(schema, 'not', {});
  }
}

/**
 * class-transformer's plainToInstance for one class, compiled into one function (as Ajv compiles
 * validators): `new Cls()` keeps field initializers, then each known property present and not
 * null is copied from its JSON key (`@Expose({ name })`), nested classes and Dates converted and
 * `@Transform`s applied; unknown keys never reach the instance. Names come from the class, never
 * from the input, and are embedded as JSON string literals. A value that is not an object is
 * returned as is (as plainToInstance does), for class-validator to report on an invalid input; so is an array
 * where the class is expected (the type error is reported once, not again for each property).
 */
export function compileHydrator(plan: ClassPlan): (plain: Record<string, unknown>) => object {
  const body = plan.properties.map((p, i) => {
    const key = JSON.stringify(p.key);
    const name = JSON.stringify(p.name);
    const read = p.ownOnly ? `hasOwn.call(plain, ${key}) ? plain[${key}] : undefined` : `plain[${key}]`;
    const converted = p.convert ? `convert[${i}](v)` : 'v';
    if (p.transform) {
      // plainToInstance transforms the keys the input has, after converting their value.
      return `if (hasOwn.call(plain, ${key})) {\nv = plain[${key}];\nv = transform[${i}](v === undefined || v === null ? v : ${converted}, plain);\nif (v !== undefined && v !== null) o[${name}] = v;\n}`;
    }
    return `v = ${read};\nif (v !== undefined && v !== null) o[${name}] = ${converted};`;
  });
  const factory = new Function(
    'Cls',
    'convert',
    'transform',
    'hasOwn',
    `return function hydrate(plain) {\nif (plain === null || typeof plain !== 'object' || Array.isArray(plain)) return plain;\nconst o = new Cls();\nlet v;\n${body.join('\n')}\nreturn o;\n}`,
  );
  return factory(
    plan.cls,
    plan.properties.map((p) => p.convert),
    plan.properties.map((p) => p.transform),
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the generated code calls it with .call(obj, key)
    Object.prototype.hasOwnProperty,
  );
}
