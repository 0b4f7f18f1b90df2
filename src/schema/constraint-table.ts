import type { JsonSchema } from '../metadata/json-schema';
import type { ValidationMetadata } from '../metadata/metadata';
import { TW } from '../metadata/schema-keywords';

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
    validation[TW.check] = [...((validation[TW.check] as number[] | undefined) ?? []), this.checks.length - 1];
  }
}
