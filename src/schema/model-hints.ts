import type { JsonSchema } from '../metadata/json-schema';
import type { ValidationMetadata } from '../metadata/metadata';

/**
 * What the model is told about the constraints enforced on a property: a JSON Schema keyword where
 * one states the constraint (merged with the strictest one already there), else a short phrase for
 * the description, in class-validator's own words.
 */

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
export function tell(schema: JsonSchema, keyword: string, value: unknown): void {
  const current = schema[keyword];
  if (current === undefined) schema[keyword] = value;
  else if (STRICTEST[keyword]) schema[keyword] = STRICTEST[keyword](current as never, value as never);
  else if (JSON.stringify(current) !== JSON.stringify(value)) schema.allOf = [...(schema.allOf ?? []), { [keyword]: value }];
}

/** Tells the model a constraint enforced by a check or by class-validator: a keyword where one states it, else a phrase. */
export function tellModel(schema: JsonSchema, m: ValidationMetadata, phrases: string[]): void {
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
