import type { JsonSchema } from '../metadata/json-schema';
import { TW } from '../metadata/schema-keywords';

/** Keywords that check every key of an object beyond `properties`. */
const PER_KEY = ['additionalProperties', 'patternProperties', 'propertyNames'] as const;

/** A subschema of `x-tw-per-key`: the original (first-error) and its bounded copy (all errors), by JSON pointer. */
export interface KeysAt {
  valid: string;
  report: string;
  schema: unknown;
}

/** Keywords whose value is a schema, a map of schemas, or a list of schemas (draft-07 and 2019-09). */
const SUBSCHEMA = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf']);

/** A copy of `schema` with every schema-valued `items` replaced by `x-tw-items` pointing at the original and its bounded copy. */
export function boundItems(schema: unknown, base: string, from: string, to: string): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  // A JSON pointer inside a URI fragment (Ajv decodes each part): a pattern's `%`, `#` or spaces stay intact.
  const pointer = (key: string) => '/' + encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
  const object = schema as JsonSchema;
  const perKey = PER_KEY.filter((keyword) => object[keyword] !== undefined);
  if (perKey.length) {
    // The keywords that give one error per key become one `x-tw-per-key` (see boundedKeys), as `items` becomes `x-tw-items`.
    const keys = `${to}/${TW.perKey}`;
    const sub = (value: unknown, original: string, copy: string): KeysAt => ({
      valid: `${base}#${original}`,
      report: `${base}#${keys}${copy}/schema`,
      schema: boundItems(value, base, original, `${keys}${copy}/schema`),
    });
    const additional = object.additionalProperties;
    const patterns = Object.entries((object.patternProperties ?? {}) as Record<string, unknown>);
    out[TW.perKey] = {
      known: Object.keys(object.properties ?? {}),
      patterns: patterns.map(([pattern, value], i) => ({
        pattern,
        ...sub(value, `${from}/patternProperties${pointer(pattern)}`, `/patterns/${i}`),
      })),
      additional:
        additional === undefined || typeof additional === 'boolean'
          ? additional
          : sub(additional, `${from}/additionalProperties`, '/additional'),
      names: object.propertyNames === undefined ? undefined : sub(object.propertyNames, `${from}/propertyNames`, '/names'),
    };
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const here = pointer(keyword);
    if ((PER_KEY as readonly string[]).includes(keyword)) continue;
    if (keyword === 'items' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const copy = `${to}/${TW.items}/schema`;
      out[TW.items] = {
        valid: `${base}#${from}${here}`,
        report: `${base}#${copy}`,
        schema: boundItems(value, base, from + here, copy),
      };
    } else if (SUBSCHEMA.has(keyword) || (keyword === 'items' && Array.isArray(value)) || SUBSCHEMA_LIST.has(keyword)) {
      out[keyword] = Array.isArray(value)
        ? value.map((v, i) => boundItems(v, base, `${from}${here}/${i}`, `${to}${here}/${i}`))
        : boundItems(value, base, from + here, to + here);
    } else if (SUBSCHEMA_MAP.has(keyword) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[keyword] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, boundItems(v, base, `${from}${here}${pointer(k)}`, `${to}${here}${pointer(k)}`)]),
      );
    } else {
      out[keyword] = value;
    }
  }
  return out;
}
