import type { JsonSchema } from '../../metadata/json-schema';
import { NotStrictRepresentable } from './strict';

/**
 * OpenAI's published Structured Outputs limits: a schema over them is refused by the API, so the
 * tool is sent non-strict instead. Nesting counts object levels (the root object is level 1).
 */
export const OPENAI_STRICT_LIMITS = Object.freeze({
  maxNestingLevels: 10,
  maxProperties: 5_000,
  maxEnumValues: 1_000,
  /** One string enum with more than this many values ... */
  largeEnumValues: 250,
  /** ... may total at most this many characters. */
  largeEnumChars: 15_000,
  /** Property names, definition names, enum and const values together. */
  maxTotalChars: 120_000,
});

interface Tally {
  properties: number;
  enumValues: number;
  chars: number;
  depth: number;
}

/** Throws NotStrictRepresentable naming the first OpenAI limit the strict schema is over. */
export function checkOpenAILimits(root: JsonSchema): void {
  const tally: Tally = { properties: 0, enumValues: 0, chars: 0, depth: 0 };
  countSchema(root, 0, tally);
  const limits = OPENAI_STRICT_LIMITS;
  if (tally.depth > limits.maxNestingLevels) {
    throw new NotStrictRepresentable(
      `${tally.depth} levels of object nesting; OpenAI strict mode allows at most ${limits.maxNestingLevels}`,
    );
  }
  if (tally.properties > limits.maxProperties) {
    throw new NotStrictRepresentable(`${tally.properties} properties; OpenAI strict mode allows at most ${limits.maxProperties}`);
  }
  if (tally.enumValues > limits.maxEnumValues) {
    throw new NotStrictRepresentable(`${tally.enumValues} enum values in all; OpenAI strict mode allows at most ${limits.maxEnumValues}`);
  }
  if (tally.chars > limits.maxTotalChars) {
    throw new NotStrictRepresentable(
      `${tally.chars} characters of property names, definition names and enum/const values; ` +
        `OpenAI strict mode allows at most ${limits.maxTotalChars}`,
    );
  }
}

/** Adds one schema (and everything under it) to the tally; a large enum over its limit throws at once. */
function countSchema(schema: JsonSchema, level: number, tally: Tally): void {
  if (schema.properties) {
    level += 1;
    tally.depth = Math.max(tally.depth, level);
    for (const [name, property] of Object.entries(schema.properties)) {
      tally.properties += 1;
      tally.chars += name.length;
      countSchema(property, level, tally);
    }
  }
  if (schema.enum) countEnum(schema.enum, tally);
  if (schema.const !== undefined) tally.chars += JSON.stringify(schema.const).length;
  if (schema.items) countSchema(schema.items, level, tally);
  for (const branch of schema.anyOf ?? []) countSchema(branch, level, tally);
  for (const key of ['$defs', 'definitions'] as const) {
    for (const [name, definition] of Object.entries((schema[key] as Record<string, JsonSchema> | undefined) ?? {})) {
      tally.chars += name.length;
      countSchema(definition, 0, tally);
    }
  }
}

function countEnum(values: readonly unknown[], tally: Tally): void {
  const limits = OPENAI_STRICT_LIMITS;
  tally.enumValues += values.length;
  const total = values.reduce<number>((n, v) => n + String(v).length, 0);
  tally.chars += total;
  if (values.length > limits.largeEnumValues && total > limits.largeEnumChars) {
    throw new NotStrictRepresentable(
      `an enum of ${values.length} values totals ${total} characters; OpenAI strict mode allows at most ` +
        `${limits.largeEnumChars} characters for an enum of more than ${limits.largeEnumValues} values`,
    );
  }
}
