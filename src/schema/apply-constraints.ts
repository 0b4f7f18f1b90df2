import { isNotEmptyObject } from 'class-validator';
import { ToolDefinitionError } from '../errors/errors';
import type { JsonSchema } from '../metadata/json-schema';
import { getConstraints, getParams, getPropertyTransform, type ValidationMetadata } from '../metadata/metadata';
import type { ClassType } from '../metadata/types';
import { ruleOf, type ConstraintTarget } from './constraint-keywords';
import type { ConstraintRef, ConstraintTable } from './constraint-table';
import { tell, tellModel } from './model-hints';

/** One property's two schemas as they are built, and what of its constraints is left to class-validator. */
export interface PropertySchemas {
  schema: JsonSchema;
  validation: JsonSchema;
  /** Constraints Ajv does not run (class-validator does). */
  uncompiled: ValidationMetadata[];
  /** What the model is told in words, for enforced constraints JSON Schema cannot state. */
  phrases: string[];
}

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

/** Where a constraint writes: its keywords (each remembering the constraint), checks and words for the model. */
function targetOf(
  built: PropertySchemas,
  m: ValidationMetadata,
  kind: string,
  where: string,
  targetName: string,
  table: ConstraintTable,
): ConstraintTarget {
  const { schema, validation } = built;
  const ref = (): ConstraintRef => ({ constraint: m.name ?? m.type, meta: m });
  return {
    kind,
    where,
    // Every constraint holds: a keyword already taken by another constraint is enforced again under allOf.
    set: (keyword, value) => {
      if (validation[keyword] === undefined) {
        validation[keyword] = value;
        table.own(validation)[keyword] = ref();
      } else {
        const extra: JsonSchema = { [keyword]: value };
        table.own(extra)[keyword] = ref();
        validation.allOf = [...(validation.allOf ?? []), extra];
      }
      tell(schema, keyword, value);
    },
    check: () => addConstraintCheck(validation, m, targetName, table),
    tell: (keyword, value) => tell(schema, keyword, value),
    describe: () => tellModel(schema, m, built.phrases),
    phrase: (text) => void built.phrases.push(text),
    retype: (type) => void (schema.type = validation.type = type),
  };
}

/** class-validator's own constraint as an `x-tw-check`, called on the JSON value. */
function addConstraintCheck(validation: JsonSchema, meta: ValidationMetadata, targetName: string, table: ConstraintTable): void {
  const instance = new (meta.constraintCls as new () => { validate(v: unknown, a: unknown): boolean })();
  const args = { constraints: meta.constraints, property: '', value: undefined as unknown, targetName, object: {} };
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
}

/** Writes each constraint's keyword into both schemas (see constraint-keywords.ts) and remembers where it came from. */
export function applyConstraints(
  built: PropertySchemas,
  kind: string,
  metas: ValidationMetadata[],
  where: string,
  targetName: string,
  table: ConstraintTable,
): void {
  // A nested class's schema already has its object-level refs (required, additionalProperties): extend them.
  const refs = table.own(built.validation);
  refs.type ??= { constraint: TYPE_CONSTRAINT[kind], message: `$property must be ${TYPE_WORDS[kind]}` };
  for (const m of metas) {
    if (m.type === 'conditionalValidation') continue; // @IsOptional and @ValidateIf are the property's business
    if (m.type === 'nestedValidation' || m.type === 'isDefined') continue; // nested classes and presence are compiled already
    const rule = m.type === 'customValidation' && m.name ? ruleOf(m.name) : undefined;
    if (!rule) {
      built.uncompiled.push(m); // async or user-written validators: class-validator runs them
      tellModel(built.schema, m, built.phrases);
      continue;
    }
    const name = m.name!;
    if (rule.typeOf) {
      const compatible =
        rule.typeOf === kind || (rule.typeOf === 'number' && kind === 'integer') || (rule.typeOf === 'integer' && kind === 'number');
      if (!compatible)
        throw new ToolDefinitionError(
          `${where}: @${name.replace(/^is/, 'Is')}() disagrees with its type (${kind}). Make the TypeScript type and the decorator agree.`,
        );
      refs.type = { constraint: name, meta: m };
    } else if (rule.appliesTo && !rule.appliesTo.includes(kind)) {
      throw new ToolDefinitionError(
        `${where}: the ${name} constraint cannot apply to a property of type ${kind} (class-validator would reject every value). Remove it or make the type agree.`,
      );
    }
    const to = targetOf(built, m, kind, where, targetName, table);
    if (rule.compile) rule.compile(m.constraints ?? [], to);
    else if (!rule.typeOf) {
      to.describe();
      to.check();
    }
  }
  // Enums with no value in common: no value passes (an empty array or an absent optional property still may), but
  // `enum: []` is not a valid JSON Schema; `not: {}` says the same.
  if (Array.isArray(built.schema.enum) && !built.schema.enum.length) {
    delete built.schema.enum;
    tell(built.schema, 'not', {});
  }
}

/**
 * `@IsNotEmptyObject` on a nested class judges the instance class-validator sees: field initializers
 * count, keys plainToInstance drops (an `@Exclude`d property, a name the instance has a method for) do not.
 */
export function applyNotEmptyInstance(built: PropertySchemas, cls: ClassType, m: ValidationMetadata, table: ConstraintTable): void {
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
