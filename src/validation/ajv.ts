import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema } from '../metadata/json-schema';
import type { ConstraintTable } from '../schema/constraint-table';
import {
  addBoundedAdditional,
  addBoundedItems,
  addBoundedPointers,
  addCheckKeyword,
  addCounter,
  addKeyCounter,
  addLengthKeywords,
  addNullableKeyword,
  addPlainItems,
} from './ajv-keywords';
import { boundItems } from './bounded-copy';
import { toFieldErrors, type FieldErrorList } from './field-errors';
import { countsEveryKey, newTally, shortestKey, type Tally } from './key-count';

/** One class's compiled validation: `valid` on every call, `report` (every failing property, bounded) only on failure. */
export interface ClassValidation {
  valid: (value: unknown) => boolean;
  report: (value: unknown) => FieldErrorList;
  /**
   * After `valid` accepted a value: how many keys its objects hold, counted by the validator as it
   * accepted them (never more than there are). Absent when the schema cannot count them all.
   */
  keyCount?: () => number;
  /**
   * After `valid` accepted a value (with `keyCount`, closed classes): a JSON text of it shorter than
   * this repeats no key. The fewest characters any text of the value takes, as the validator summed
   * them (never more), plus the fewest a repeated member adds (`,"k":0`, k the shortest declared key).
   */
  textFloor?: () => number;
}

const AJV_OPTIONS = {
  strict: false,
  strictNumbers: true,
  unicodeRegExp: false, // class-validator's @Matches builds RegExps without the u flag
  discriminator: true,
  validateFormats: false, // formats are informative for the model; the constraint checks enforce them
} as const;

/**
 * Ajv for schemas generated from classes (their checks are class-validator's own functions), as two
 * instances: a first-error validator that decides every call, and an all-errors one, compiled on the
 * first invalid call, that names every failing property. Arrays use `x-tw-items`: plain `items` for
 * the first, and for the second a loop that reports the first few failing items and counts the rest
 * (Ajv's allErrors would build one error object per bad item: 200,000 of them for one argument).
 */
export function createClassAjv(table: ConstraintTable): (schema: JsonSchema) => ClassValidation {
  const tally = newTally(); // what this instance's counting keywords add up, read after each call
  const fast = new Ajv({ ...AJV_OPTIONS, allErrors: false });
  // Errors carry parentSchema: keyword → constraint. `fast` has checked each schema against the meta-schema already.
  const full = new Ajv({ ...AJV_OPTIONS, allErrors: true, verbose: true, validateSchema: false });
  // The order each instance gets its keywords in is the order Ajv runs them.
  for (const ajv of [fast, full]) addCheckKeyword(ajv, table);
  for (const ajv of [fast, full]) addNullableKeyword(ajv);
  addPlainItems(fast);
  for (const ajv of [fast, full]) addLengthKeywords(ajv);
  addBoundedItems(full, fast, tally);
  addCounter(fast, tally);
  addKeyCounter(fast, tally);
  addBoundedAdditional(full, fast);
  return (schema) => classValidation(schema, fast, full, table, tally);
}

/** One class schema compiled by createClassAjv's instances. */
function classValidation(schema: JsonSchema, fast: Ajv, full: Ajv, table: ConstraintTable, tally: Tally): ClassValidation {
  const compiled = fast.compile(schema);
  const counts = countsEveryKey(schema, true);
  const repeated = 5 + shortestKey(schema); // `,"k":0`
  let all: ValidateFunction | undefined;
  return {
    valid: counts
      ? (value) => {
          tally.keys = 0;
          tally.len = 0;
          return compiled(value);
        }
      : compiled,
    report: (value) => {
      all ??= full.compile(schema);
      return all(value) ? { errors: [], omitted: 0 } : toFieldErrors(all.errors, table);
    },
    keyCount: counts ? () => tally.keys : undefined,
    textFloor: counts ? () => tally.len + repeated : undefined,
  };
}

const JSON_SCHEMA_OPTIONS = { strict: false, strictNumbers: true, discriminator: true } as const;

/**
 * Ajv for hand-written JSON Schemas (the PHP kit's style): standard formats, any keywords. As for
 * classes, a first-error validator decides every call; on failure an all-errors validator names
 * every failing property, over a copy of the schema whose `items` are bounded (`x-tw-items`, which
 * reaches the original item schemas by JSON pointer, so their `$ref`s resolve against the root).
 */
export function createJsonSchemaAjv(): (schema: JsonSchema) => ClassValidation {
  const tally = newTally();
  const fast = new Ajv({ ...JSON_SCHEMA_OPTIONS, allErrors: false });
  addFormats(fast);
  addCounter(fast, tally);
  let full: Ajv | undefined;
  const fullAjv = (): Ajv => {
    if (full) return full;
    const ajv = new Ajv({ ...JSON_SCHEMA_OPTIONS, allErrors: true });
    addFormats(ajv);
    addBoundedPointers(ajv, fast, tally);
    return (full = ajv);
  };
  let count = 0;
  return (written) => {
    const schema = withoutDialect(written);
    // Registered under a key (or the schema's own $id) so that item schemas can be reached by `key#/pointer`.
    const key = typeof schema.$id === 'string' ? undefined : `toolwright:parameters:${++count}`;
    fast.addSchema(schema, key);
    const base = key ?? (schema.$id as string).replace(/#$/, '');
    const valid = fast.getSchema(base)!;
    let all: ValidateFunction | null | undefined; // null: a schema the rewrite cannot serve (a $ref into an `items`)
    return {
      valid,
      report: (value) => {
        if (all === undefined) {
          try {
            const ajv = fullAjv();
            ajv.addSchema(boundItems(schema, base, '', '') as JsonSchema, base);
            all = ajv.getSchema(base)!;
          } catch {
            all = null;
          }
        }
        if (all && !all(value)) return toFieldErrors(all.errors);
        return valid(value) ? { errors: [], omitted: 0 } : toFieldErrors(valid.errors); // the first error stands
      },
    };
  };
}

/**
 * The schema the validator compiles: without a `$schema` naming draft 2019-09 or 2020-12 (MCP's
 * default dialect), which this draft-07 Ajv does not load. Their common keywords (`$defs`, `$anchor`,
 * `if`/`then`/`else`, composition) are checked here; the few newer ones (`prefixItems`,
 * `unevaluated*`) are the tool's to enforce. What the tool declared, `$schema` included, is listed unchanged.
 */
function withoutDialect(schema: JsonSchema): JsonSchema {
  if (typeof schema.$schema !== 'string' || !/json-schema\.org\/draft\/20(19-09|20-12)\/schema/.test(schema.$schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
