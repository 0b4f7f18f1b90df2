import { isISO8601 } from 'class-validator';
import { ToolDefinitionError } from '../errors/errors';
import {
  getConstraints,
  getDesignType,
  getParams,
  getTransformType,
  hasCustomTransforms,
  hasTransformType,
  type ValidationMetadata,
} from '../metadata/metadata';
import type { ClassType, ParamMetadata } from '../metadata/types';
import type { JsonSchema, JsonSchemaType } from './json-schema';

/**
 * Turns an input (or output) class into two JSON Schemas built side by side:
 * - `schema`: what the model is told (plain JSON Schema, as an author would write it);
 * - `validation`: what Ajv compiles to enforce it: the same keywords, plus a `x-tw-check`
 *   keyword that calls class-validator's own validator where JSON Schema has no exact word
 *   (formats, `@IsAlpha`…), and optional properties that also accept null (as `@IsOptional` does).
 * Each keyword of `validation` remembers the class-validator constraint it came from, so an
 * Ajv error is reported with that constraint's name and its own default message.
 * Constraints that cannot be compiled (async or user-written validators, `@ValidateIf`) make
 * `needsClassValidator` true: class-validator then also runs on the instance.
 */

export interface ConstraintRef {
  /** The class-validator constraint name (`min`, `isString`, …) or a toolwright one (`isDefined`, `whitelistValidation`). */
  constraint: string;
  meta?: ValidationMetadata;
  /** For synthesized checks without class-validator metadata: `$property must be …`. */
  message?: string;
}

/** Keyword → constraint, per validation-schema object (Ajv's `parentSchema` in verbose errors). */
export const constraintRefs = new WeakMap<object, Record<string, ConstraintRef>>();

/** A check run by the `x-tw-check` keyword: class-validator's own constraint, called on one value. */
export interface Check extends ConstraintRef {
  validate: (value: unknown) => boolean;
}

export interface PropertyPlan {
  name: string;
  required: boolean;
  /** Only for names that objects inherit (`constructor`, `toString`): read them as own properties. */
  ownOnly: boolean;
  convert?: (value: unknown) => unknown;
}

export interface ClassPlan {
  cls: ClassType;
  schema: JsonSchema;
  validation: JsonSchema;
  properties: PropertyPlan[];
  closed: boolean;
  /** Somewhere in the tree a constraint could not be compiled: run class-validator too. */
  needsClassValidator: boolean;
  /** Somewhere in the tree class-transformer decorators other than @Type apply: use plainToInstance. */
  needsClassTransformer: boolean;
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
const UNSUPPORTED = new Set<unknown>([Map, Set, WeakMap, WeakSet, Promise, Function, Symbol, RegExp, Buffer, Uint8Array, ArrayBuffer, BigInt, Error]);

/** Built-in class-validator constraints whose result depends on the value and constraints only. */
const PURE_BUILTINS = new Set(
  ('isLocale isEmail isISO31661Alpha2 isLength isCreditCard isLowercase isCurrency matches isNumberString isMilitaryTime ' +
    'isSurrogatePair isIso8601 isUrl isPassportNumber isMacAddress isTimeZone isISRC isHexadecimal isIp isEthereumAddress isBIC ' +
    'isBase58 isHash isEAN isVariableWidth maxLength isBase64 isOctal isMongoId isPhoneNumber isBase32 isISO31661Numeric isFqdn ' +
    'isUuid isTaxId minLength isJwt isByteLength isPort isUppercase isMagnetURI isJson isAlpha isIsin isDataURI isBooleanString ' +
    'isISO4217CurrencyCode isISO6391 isRFC3339 isIdentityCard isISSN isFullWidth isDateString isIBAN isHalfWidth isStrongPassword ' +
    'isRgbColor isHexColor isMimeType isSemVer isAlphanumeric isMultibyte isISO31661Alpha3 isMobilePhone isAscii isIsbn isHSL ' +
    'isPostalCode isBtcAddress IsFirebasePushId isDecimal arrayMinSize arrayNotEmpty arrayUnique arrayMaxSize arrayContains ' +
    'arrayNotContains isNotEmptyObject isNotEmpty notEquals isIn equals isLongitude isLatitude isEmpty isLatLong isNotIn min ' +
    'isPositive isDivisibleBy isNegative max isNumber isInt isArray isObject isBoolean isEnum isString').split(' '),
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

/** Constraints compiled to a keyword that Ajv applies to one JSON type only. */
const NUMERIC = ['number', 'integer'];
const APPLIES_TO: Record<string, string[]> = {
  min: NUMERIC, max: NUMERIC, isPositive: NUMERIC, isNegative: NUMERIC, isDivisibleBy: NUMERIC,
  minLength: ['string', 'date'], maxLength: ['string', 'date'], isLength: ['string', 'date'], matches: ['string', 'date'],
  arrayMinSize: ['array'], arrayMaxSize: ['array'], arrayNotEmpty: ['array'], arrayUnique: ['array'],
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
  /** The registry's checks; `x-tw-check` holds indexes into it. */
  checks: Check[];
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
  const names = [...new Set([...params.keys(), ...constraints.keys()])];
  if (names.length === 0 && seen.length > 0) throw notLoaded(`${cls.name}, the class of a nested property (${options.usage}), has no decorated properties`);
  const schema: JsonSchema = { type: 'object', properties: {} };
  const validation: JsonSchema = { type: 'object', properties: {} };
  const required: string[] = [];
  const plan: ClassPlan = {
    cls,
    schema,
    validation,
    properties: [],
    closed: options.closed,
    needsClassValidator: false,
    needsClassTransformer: hasCustomTransforms(cls, names),
    freeForm: !options.closed,
  };
  const objectRefs: Record<string, ConstraintRef> = {
    type: { constraint: 'nestedValidation', message: `$property must be an object` },
    required: { constraint: 'isDefined', message: '$property should not be null or undefined' },
    additionalProperties: { constraint: 'whitelistValidation', message: 'property $property should not exist' },
  };
  constraintRefs.set(validation, objectRefs);

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
    const param = params.get(name) ?? { propertyName: name };
    const kind = resolveKind(cls, name, param, metas, where);
    const isOptional = metas.some((m) => m.type === 'conditionalValidation' && m.name === 'isOptional');
    // @ValidateIf: when its condition is false class-validator skips the property's every constraint (presence
    // included), which a static schema cannot know. Ajv accepts any value there; class-validator decides.
    const conditional = metas.some((m) => m.type === 'conditionalValidation' && m.name !== 'isOptional');
    const isRequired = param.required ?? (!isOptional && !conditional);
    if (param.required === false && !isOptional && metas.some((m) => m.type !== 'nestedValidation')) {
      throw new ToolDefinitionError(
        `${where} is marked @Param({ required: false }) but class-validator would still reject it when absent. ` +
          'Add @IsOptional() to the property.',
      );
    }
    const prop = buildProperty(kind, metas, param, where, options, seen.concat(cls), plan);
    if (param.description) prop.schema.description = param.description;
    if (param.title) prop.schema.title = param.title;
    if (param.format) prop.schema.format = prop.validation.format = param.format;
    const fallback = defaultOf(probe, name, param, where);
    if (fallback !== undefined) prop.schema.default = fallback;
    if (param.examples) prop.schema.examples = [...param.examples];
    schema.properties![name] = prop.schema;
    // Optional properties accept null (as @IsOptional does); strict-mode providers send null for "absent".
    validation.properties![name] = conditional ? {} : isRequired ? prop.validation : { if: { type: 'null' }, else: prop.validation };
    if (conditional) plan.freeForm = plan.needsClassValidator = true;
    if (isRequired) required.push(name);
    plan.properties.push({ name, required: isRequired, ownOnly: name in Object.prototype, convert: prop.convert });
  }
  if (required.length) schema.required = validation.required = required;
  if (options.closed) schema.additionalProperties = validation.additionalProperties = false;
  return plan;
}

/** `@Param({ default })`, else the field initializer's value; both given must agree. */
function defaultOf(probe: Record<string, unknown> | undefined, name: string, param: ParamMetadata, where: string): unknown {
  const initial = probe && Object.prototype.hasOwnProperty.call(probe, name) ? probe[name] : undefined;
  if (initial === undefined || initial === null || typeof initial === 'function') return param.default;
  const json = JSON.stringify(initial);
  if (param.default !== undefined && JSON.stringify(param.default) !== json) {
    throw new ToolDefinitionError(`${where}: @Param({ default: ${JSON.stringify(param.default)} }) differs from its initializer (${json}). Keep one.`);
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
      throw new ToolDefinitionError(`${where} has type ${(t as Function).name}, which JSON cannot carry. Use a string, number, boolean, array or a plain class.`);
    }
    return { kind: 'class', cls: t as ClassType };
  };

  if (typeof param.type === 'string') {
    if (param.type === 'array') {
      if (param.items) return { kind: 'array', item: { kind: 'schema', schema: param.items } };
      const t = getTransformType(cls, name);
      if (t) return { kind: 'array', item: classify(t, 'item') };
      throw new ToolDefinitionError(`Cannot know the item type of array ${where}. ${fix}`);
    }
    if (param.type === 'object' || param.type === 'null') return { kind: 'schema', schema: { type: param.type } };
    return { kind: param.type };
  }
  if (typeof param.type === 'function') {
    const t = param.type();
    return Array.isArray(t) ? { kind: 'array', item: classify(t[0], 'item') } : classify(t, 'property');
  }

  const design = getDesignType(cls, name);
  const transformType = getTransformType(cls, name);
  if (transformType === undefined && hasTransformType(cls, name)) throw notLoaded(`The type of ${where} names a class that is undefined at build time`);
  if (design === Array) {
    if (transformType) return { kind: 'array', item: classify(transformType, 'item') };
    if (param.items) return { kind: 'array', item: { kind: 'schema', schema: param.items } };
    const each = inferFromConstraints(metas.filter((m) => m.each), param);
    if (each) return { kind: 'array', item: each };
    throw new ToolDefinitionError(`Cannot know the item type of array ${where}. ${fix}`);
  }
  if (design === undefined || design === Object) {
    if (transformType) return classify(transformType, 'property');
    const inferred = inferFromConstraints(metas.filter((m) => !m.each), param);
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
  const values = param.enum ?? metas.find((m) => m.name === 'isIn')?.constraints[0] ?? enumValues(metas.find((m) => m.name === 'isEnum')?.constraints[0]);
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
    const built = {
      schema: { type: 'array' as const, items: item.schema },
      validation: { type: 'array' as const, items: item.validation },
      convert: item.convert && ((v: unknown) => (v as unknown[]).map(item.convert!)),
    };
    apply(built, 'array', own, where, owner, options.checks);
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
    if (metas.some((m) => !(m.type === 'conditionalValidation' && m.name === 'isOptional') && m.type !== 'isDefined')) owner.needsClassValidator = true;
    return { schema: structuredClone(kind.schema), validation: structuredClone(kind.schema) };
  }
  if (kind.kind === 'array') throw new ToolDefinitionError(`${where}: arrays of arrays are not supported. Wrap the inner array in a class.`);
  if (kind.kind === 'class') {
    const nested = buildClassPlan(kind.cls, options, seen);
    owner.needsClassValidator ||= nested.needsClassValidator;
    owner.needsClassTransformer ||= nested.needsClassTransformer;
    owner.freeForm ||= nested.freeForm;
    const built = { schema: nested.schema, validation: nested.validation, convert: compileHydrator(nested) as (v: unknown) => unknown };
    apply(built, 'class', metas, where, owner, options.checks);
    return built;
  }
  const type: JsonSchemaType = kind.kind === 'date' ? 'string' : kind.kind;
  const built: BuiltProperty = { schema: { type }, validation: { type } };
  if (enumOption) built.schema.enum = built.validation.enum = [...enumOption];
  apply(built, kind.kind, metas, where, owner, options.checks);
  if (kind.kind === 'date') {
    built.schema.format = 'date-time';
    built.convert = (v) => new Date(v as string);
    if (!built.validation['x-tw-check']) addCheck(built.validation, options.checks, { constraint: 'isDateString', message: '$property must be a valid ISO 8601 date string', validate: (v) => isISO8601(v) });
  }
  return built;
}

/** Writes each constraint's keyword into both schemas and remembers where it came from. */
function apply(built: BuiltProperty, kind: string, metas: ValidationMetadata[], where: string, owner: ClassPlan, checks: Check[]): void {
  const { schema, validation } = built;
  // A nested class's schema already has its object-level refs (required, additionalProperties): extend them.
  const refs = constraintRefs.get(validation) ?? {};
  refs.type ??= { constraint: TYPE_CONSTRAINT[kind], message: `$property must be ${TYPE_WORDS[kind]}` };
  constraintRefs.set(validation, refs);
  const set = (keyword: string, value: unknown, meta: ValidationMetadata) => {
    schema[keyword] = value;
    validation[keyword] = value;
    refs[keyword] = { constraint: meta.name ?? meta.type, meta };
  };
  const check = (meta: ValidationMetadata) => {
    const instance = new (meta.constraintCls as new () => { validate(v: unknown, a: unknown): boolean })();
    const args = { constraints: meta.constraints, property: '', value: undefined as unknown, targetName: owner.cls.name, object: {} };
    addCheck(validation, checks, { constraint: meta.name!, meta, validate: (value) => instance.validate(value, { ...args, value }) === true });
  };

  for (const m of metas) {
    const c = m.constraints ?? [];
    if (m.type === 'conditionalValidation' && m.name === 'isOptional') continue;
    if (m.type === 'nestedValidation' || m.type === 'isDefined') continue; // nested classes and presence are compiled already
    if (m.type !== 'customValidation' || !m.name || !PURE_BUILTINS.has(m.name)) {
      owner.needsClassValidator = true; // @ValidateIf, async or user-written validators: class-validator runs them
      continue;
    }
    const typeOf = { isString: 'string', isNumber: 'number', isInt: 'integer', isBoolean: 'boolean', isArray: 'array', isObject: 'class' }[m.name];
    if (typeOf) {
      const compatible = typeOf === kind || (typeOf === 'number' && kind === 'integer') || (typeOf === 'integer' && kind === 'number');
      if (!compatible) throw new ToolDefinitionError(`${where}: @${m.name.replace(/^is/, 'Is')}() disagrees with its type (${kind}). Make the TypeScript type and the decorator agree.`);
      refs.type = { constraint: m.name, meta: m };
      if (m.name === 'isInt' && kind === 'number') schema.type = validation.type = 'integer'; // @Param({ type: 'number' }) or () => [Number]
      if (m.name === 'isNumber' && c[0] && Object.keys(c[0]).length) check(m); // maxDecimalPlaces and friends
      continue;
    }
    const appliesTo = APPLIES_TO[m.name];
    if (appliesTo && !appliesTo.includes(kind)) {
      throw new ToolDefinitionError(`${where}: the ${m.name} constraint cannot apply to a property of type ${kind} (class-validator would reject every value). Remove it or make the type agree.`);
    }
    switch (m.name) {
      case 'min': set('minimum', c[0], m); break;
      case 'max': set('maximum', c[0], m); break;
      case 'isPositive': set('exclusiveMinimum', 0, m); break;
      case 'isNegative': set('exclusiveMaximum', 0, m); break;
      case 'isDivisibleBy': set('multipleOf', c[0], m); break;
      case 'minLength': set('minLength', c[0], m); break;
      case 'maxLength': set('maxLength', c[0], m); break;
      case 'isLength':
        set('minLength', c[0], m);
        if (c[1] !== undefined) set('maxLength', c[1], m);
        break;
      case 'isNotEmpty':
        if (kind === 'string') set('minLength', 1, m);
        else check(m);
        break;
      case 'isIn': set('enum', [...c[0]], m); break;
      case 'isEnum': set('enum', enumValues(c[0]), m); break;
      case 'equals': set('const', c[0], m); break;
      case 'arrayMinSize': set('minItems', c[0], m); break;
      case 'arrayMaxSize': set('maxItems', c[0], m); break;
      case 'arrayNotEmpty': set('minItems', 1, m); break;
      case 'matches': {
        const re = c[0] instanceof RegExp ? c[0] : new RegExp(c[0], c[1]);
        if (re.flags.replace(/g/g, '')) {
          schema.pattern = re.source; // the model sees the pattern; its flags are enforced by the check
          check(m);
        } else set('pattern', re.source, m);
        break;
      }
      default:
        if (m.name === 'arrayUnique' && !c[0]) {
          set('uniqueItems', true, m);
          break;
        }
        if (FORMATS[m.name]) schema.format = FORMATS[m.name];
        check(m);
    }
  }
}

function addCheck(validation: JsonSchema, checks: Check[], check: Check): void {
  checks.push(check);
  validation['x-tw-check'] = [...((validation['x-tw-check'] as number[] | undefined) ?? []), checks.length - 1];
}

/**
 * class-transformer's plainToInstance for a class without custom transforms, compiled into one
 * function (as Ajv compiles validators): `new Cls()` keeps field initializers, then each known
 * property present and not null is copied, nested classes and Dates converted. Property names
 * come from the class, never from the input, and are embedded as JSON string literals.
 */
export function compileHydrator(plan: ClassPlan): (plain: Record<string, unknown>) => object {
  const body = plan.properties.map((p, i) => {
    const key = JSON.stringify(p.name);
    const read = p.ownOnly ? `hasOwn.call(plain, ${key}) ? plain[${key}] : undefined` : `plain[${key}]`;
    return `v = ${read};\nif (v !== undefined && v !== null) o[${key}] = ${p.convert ? `convert[${i}](v)` : 'v'};`;
  });
  const factory = new Function('Cls', 'convert', 'hasOwn', `return function hydrate(plain) {\nconst o = new Cls();\nlet v;\n${body.join('\n')}\nreturn o;\n}`);
  return factory(plan.cls, plan.properties.map((p) => p.convert), Object.prototype.hasOwnProperty);
}
