/**
 * toolwright's own JSON Schema keywords: the contract between the validation schemas src/schema
 * writes and the Ajv keywords src/validation defines. They never reach the model (what it is told
 * is plain JSON Schema). Kept below both so that each names them from here, not in string literals.
 */
export const TW = {
  /** Indexes into the registry's ConstraintTable checks: class-validator's own constraints, called on the value. */
  check: 'x-tw-check',
  /** `items` whose all-errors report names the first few failing items and counts the rest. */
  items: 'x-tw-items',
  /** On a closed class: the first-error validator counts the keys it accepts and the fewest characters their text takes. */
  keys: 'x-tw-keys',
  /** Around an optional property: null passes, any other value must match the subschema (as `@IsOptional` does). */
  nullable: 'x-tw-nullable',
  /** Always holds and counts how often it ran: under `else`, the items that fail `if`. */
  count: 'x-tw-count',
  /** An error keyword, not a schema one: how many errors were found beyond those listed. */
  omitted: 'x-tw-omitted',
  /** Hand-written schemas: `additionalProperties`, `patternProperties` and `propertyNames` with a bounded report. */
  perKey: 'x-tw-per-key',
} as const;
