import { ToolDefinitionError } from '../errors/errors';
import { enumValues } from './type-resolution';

/**
 * What each class-validator constraint compiles to, one entry per constraint (the data form of
 * class-validator's one file per constraint). A constraint listed here is a built-in whose result
 * depends on the value and its constraints only; every other one (async or user-written) is left to
 * class-validator, on the hydrated instance.
 */

/** What an entry's `compile` can do to one property's two schemas. */
export interface ConstraintTarget {
  /** The property's kind: `string`, `number`, `integer`, `boolean`, `date`, `array` or `class`. */
  kind: string;
  /** `Class.property`, for definition errors. */
  where: string;
  /** Enforces `keyword: value` and tells the model (a keyword already set is enforced again under allOf). */
  set(keyword: string, value: unknown): void;
  /** Enforces the constraint with class-validator's own function (the `x-tw-check` keyword). */
  check(): void;
  /** Tells the model a keyword the check enforces. */
  tell(keyword: string, value: unknown): void;
  /** Tells the model the constraint: a keyword where one states it, else a phrase. */
  describe(): void;
  /** Adds a phrase to what the model reads in the description. */
  phrase(text: string): void;
  /** Narrows both schemas' `type` (`number` to `integer`). */
  retype(type: 'integer'): void;
}

export interface ConstraintRule {
  /** The kinds its keyword applies to: on any other class-validator rejects every value (a definition error). */
  appliesTo?: readonly string[];
  /** A type constraint: the kind it states, which the property's kind must agree with. */
  typeOf?: string;
  /** How it compiles. Absent: class-validator's own check, and the model is told of it. */
  compile?: (c: any[], to: ConstraintTarget) => void;
}

const NUMERIC = ['number', 'integer'];
const TEXT = ['string', 'date'];
const ARRAY = ['array'];

/** Decimal places beyond `isNumber`'s type: a check, and a phrase. */
function numberOptions(c: any[], to: ConstraintTarget): void {
  if (!c[0] || !Object.keys(c[0]).length) return;
  to.check();
  const places = (c[0] as { maxDecimalPlaces?: number }).maxDecimalPlaces;
  if (places !== undefined) to.phrase(`At most ${places} decimal places.`);
}

/** validator.js divides by parseInt(divisor) and tests `%` on the number's decimal text: only a check agrees on every value. */
function divisibleBy(c: any[], to: ConstraintTarget): void {
  if (!Number.isInteger(c[0]) || (c[0] as number) === 0) {
    throw new ToolDefinitionError(
      `${to.where}: @IsDivisibleBy(${String(c[0])}) rejects every value (class-validator divides by the integer part of the divisor). Use a non-zero integer divisor.`,
    );
  }
  to.tell('multipleOf', Math.abs(c[0] as number));
  to.check();
}

function matches(c: any[], to: ConstraintTarget): void {
  const re = c[0] instanceof RegExp ? c[0] : new RegExp(c[0], c[1]);
  if (!re.flags.replace(/g/g, '')) return to.set('pattern', re.source);
  // A JSON Schema pattern has no flags: told without `i`, `m` or `s` it would refuse what the check accepts
  // ("A" for /^[a-z]+$/i), so the model reads the regular expression in words; `u` alone is how patterns run.
  if (re.flags.replace(/[gu]/g, '')) to.phrase(`Must match the regular expression /${re.source}/${re.flags.replace(/g/g, '')}.`);
  else to.tell('pattern', re.source);
  to.check();
}

const RULES: Record<string, ConstraintRule> = {
  isString: { typeOf: 'string' },
  isNumber: { typeOf: 'number', compile: numberOptions },
  // @Param({ type: 'number' }) or () => [Number]: @IsInt makes it an integer.
  isInt: {
    typeOf: 'integer',
    compile: (_c, to) => {
      if (to.kind === 'number') to.retype('integer');
    },
  },
  isBoolean: { typeOf: 'boolean' },
  isArray: { typeOf: 'array' },
  isObject: { typeOf: 'class' },
  min: { appliesTo: NUMERIC, compile: (c, to) => to.set('minimum', c[0]) },
  max: { appliesTo: NUMERIC, compile: (c, to) => to.set('maximum', c[0]) },
  isPositive: { appliesTo: NUMERIC, compile: (_c, to) => to.set('exclusiveMinimum', 0) },
  isNegative: { appliesTo: NUMERIC, compile: (_c, to) => to.set('exclusiveMaximum', 0) },
  isDivisibleBy: { appliesTo: NUMERIC, compile: divisibleBy },
  minLength: { appliesTo: TEXT, compile: (c, to) => to.set('minLength', c[0]) },
  maxLength: { appliesTo: TEXT, compile: (c, to) => to.set('maxLength', c[0]) },
  isLength: {
    appliesTo: TEXT,
    compile: (c, to) => {
      to.set('minLength', c[0]);
      if (c[1] !== undefined) to.set('maxLength', c[1]);
    },
  },
  matches: { appliesTo: TEXT, compile: matches },
  isNotEmpty: { compile: (_c, to) => (to.kind === 'string' ? to.set('minLength', 1) : to.check()) },
  isIn: { compile: (c, to) => to.set('enum', [...c[0]]) },
  isEnum: { compile: (c, to) => to.set('enum', enumValues(c[0])) },
  equals: { compile: (c, to) => to.set('const', c[0]) },
  arrayMinSize: { appliesTo: ARRAY, compile: (c, to) => to.set('minItems', c[0]) },
  arrayMaxSize: { appliesTo: ARRAY, compile: (c, to) => to.set('maxItems', c[0]) },
  arrayNotEmpty: { appliesTo: ARRAY, compile: (_c, to) => to.set('minItems', 1) },
  arrayUnique: {
    appliesTo: ARRAY,
    compile: (c, to) => {
      if (!c[0]) return to.set('uniqueItems', true);
      to.describe(); // by a selector: only the check knows
      to.check();
    },
  },
};

/** Built-ins without a keyword of their own: class-validator's own function checks each, the model is told. */
const CHECKED = (
  'isLocale isEmail isISO31661Alpha2 isCreditCard isLowercase isCurrency isNumberString isMilitaryTime ' +
  'isSurrogatePair isIso8601 isUrl isPassportNumber isMacAddress isTimeZone isISRC isHexadecimal isIp isEthereumAddress isBIC ' +
  'isBase58 isHash isEAN isVariableWidth isBase64 isOctal isMongoId isPhoneNumber isBase32 isISO31661Numeric isFqdn ' +
  'isUuid isTaxId isJwt isByteLength isPort isUppercase isMagnetURI isJson isAlpha isIsin isDataURI isBooleanString ' +
  'isISO4217CurrencyCode isISO6391 isRFC3339 isIdentityCard isISSN isFullWidth isDateString isIBAN isHalfWidth isStrongPassword ' +
  'isRgbColor isHexColor isMimeType isSemVer isAlphanumeric isMultibyte isISO31661Alpha3 isMobilePhone isAscii isIsbn isHSL ' +
  'isPostalCode isBtcAddress IsFirebasePushId isDecimal arrayContains arrayNotContains isNotEmptyObject notEquals ' +
  'isLongitude isLatitude isEmpty isLatLong isNotIn'
).split(' ');

const TABLE = new Map<string, ConstraintRule>([...CHECKED.map((name) => [name, {}] as const), ...Object.entries(RULES)]);

/** The entry of a built-in constraint Ajv can run; undefined for one class-validator must run. */
export function ruleOf(name: string): ConstraintRule | undefined {
  return TABLE.get(name);
}
