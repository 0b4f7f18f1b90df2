import { describeContent, ToolContent } from '../content/tool-content';
import { ToolDefinitionError, ToolInputError, ToolOutputError, ToolwrightError } from '../errors/errors';
import type { ClassType } from '../metadata/types';
import { buildClassPlan, type ClassPlan } from '../schema/class-schema';
import type { ConstraintTable } from '../schema/constraint-table';
import { compileHydrator } from '../validation/hydrator';
import type { JsonSchema } from '../metadata/json-schema';
import { checkKeys, parseArguments, LARGE_TEXT, type ArgumentLimits } from '../validation/arguments';
import type { ClassValidation, createClassAjv } from '../validation/ajv';
import type { FieldErrorList } from '../validation/field-errors';
import { compileResidual, type ResidualValidation } from '../validation/class-validator';
import { isPromise, then } from './maybe-promise';

/**
 * A tool's compiled call pipeline, built once per tool. `call` runs it in this order:
 *
 * 1. `parse`: the raw arguments are parsed (`parseArguments`: JSON, size limits, forbidden and
 *    repeated keys), validated (Ajv), hydrated into the input class (the compiled hydrator), and
 *    checked by class-validator for the constraints Ajv could not take over (the residual checks);
 * 2. the tool's `execute` runs (see `execute.ts`);
 * 3. `serialize`: the result is checked against the output contract and becomes the JSON string the model sees.
 */

/**
 * Raw arguments → the value `execute` receives, or the ToolInputError refusing them, returned rather
 * than thrown (a throw costs more than validating the call; malformed JSON still throws). A promise
 * only when class-validator must run too.
 */
export type ParseInput = (raw: unknown) => object | Promise<object>;

/** `execute`'s result → the JSON string the model sees; throws ToolOutputError. A promise only when class-validator must run too. */
export type SerializeOutput = (result: unknown) => string | Promise<string>;

/** What `check` and `parse` return: `ParseInput`'s value, or the ToolInputError it returned, thrown. */
export function throwIfRefused(input: object): object {
  if (input instanceof ToolInputError) throw input;
  return input;
}

function inputError(name: string, list: FieldErrorList): ToolInputError {
  return new ToolInputError('INVALID_ARGUMENTS', name, list.errors, undefined, list.omitted);
}

/** The pipeline's input half for a hand-written JSON Schema: parse, then validate (no class to hydrate). */
export function compileSchemaInput(name: string, validation: ClassValidation, limits: ArgumentLimits): ParseInput {
  return (raw) => {
    const value = parseArguments(name, raw, limits);
    if (typeof raw === 'string' && raw.length > LARGE_TEXT) {
      const list = reportFirst(validation, value);
      return list === undefined ? value : inputError(name, list);
    }
    return validation.valid(value) ? value : inputError(name, validation.report(value));
  };
}

/** The pipeline's input half for an input class: parse → validate → hydrate → residual class-validator checks. */
export function compileClassInput(name: string, plan: ClassPlan, validation: ClassValidation, limits: ArgumentLimits): ParseInput {
  const hydrate = compileHydrator(plan);
  const residual = compileResidual(plan.residual);
  const fail = (list: FieldErrorList): ToolInputError => inputError(name, list);
  // A closed tree: the validator counts the keys it accepts, and on a valid call that count stands in for the key walk.
  const keyCount = plan.freeForm ? undefined : validation.keyCount;
  const textFloor = plan.freeForm ? undefined : validation.textFloor;
  const parse: ParseInput = (raw) => {
    const large = typeof raw === 'string' && raw.length > LARGE_TEXT;
    // Keys checked after validating, with the validator's count; for a large text before, and then the
    // all-errors report decides, reusing the key walk's lists of large objects (see `enumerated`).
    const later = keyCount !== undefined && typeof raw === 'string' && !large;
    const value = parseArguments(name, raw, limits, plan.freeForm, !later);
    let list: FieldErrorList | undefined;
    if (large) list = reportFirst(validation, value);
    else if (!validation.valid(value)) {
      if (later) checkKeys(name, raw, value); // forbidden and repeated keys are answered before the validation errors
      list = validation.report(value);
    }
    if (list !== undefined)
      return residual
        ? then(
            withResidual(list, residual, () => hydrate(value)),
            fail,
          )
        : fail(list);
    if (later) checkKeys(name, raw, value, keyCount(), textFloor?.());
    const instance = hydrate(value);
    if (!residual) return instance;
    // Constraints Ajv could not take over (custom, async, @ValidateIf, transformed): class-validator runs them on the instance.
    return then(residual(instance), (found) => (found.errors.length ? fail(found) : instance));
  };
  return residual ? guarded(name, parse) : parse;
}

/** Whatever a validator or `@Transform` throws on odd input is an invalid-arguments answer, never a raw error out of `call`. */
function guarded(name: string, parse: ParseInput): ParseInput {
  const wrap = (error: unknown): ToolwrightError =>
    error instanceof ToolwrightError
      ? error
      : inputError(name, {
          errors: [
            { path: '', constraint: 'validation', message: 'arguments could not be validated: a validator or transform failed on them' },
          ],
          omitted: 0,
        });
  return (raw) => {
    try {
      const parsed = parse(raw);
      return isPromise(parsed) ? parsed.catch((error: unknown) => Promise.reject(wrap(error))) : parsed;
    } catch (error) {
      throw wrap(error);
    }
  };
}

/**
 * A large text's verdict: the all-errors report first, reusing the key walk's lists of large objects
 * (see `enumerated`); undefined (accepted) only when the first-error validator agrees.
 */
function reportFirst(validation: ClassValidation, value: unknown): FieldErrorList | undefined {
  const list = validation.report(value);
  return list.errors.length === 0 && validation.valid(value) ? undefined : list;
}

/**
 * Every failing property in one answer: Ajv's errors plus class-validator's for the constraints
 * it runs, on the instance hydrated from the invalid value (synchronous unless a constraint is async).
 */
function withResidual(list: FieldErrorList, residual: ResidualValidation, hydrate: () => object): FieldErrorList | Promise<FieldErrorList> {
  const merge = (found: FieldErrorList) => ({ errors: [...list.errors, ...found.errors], omitted: list.omitted + found.omitted });
  let found: ReturnType<ResidualValidation>;
  try {
    found = residual(hydrate());
  } catch {
    return list; // the residual constraints cannot run on this value: Ajv's errors stand
  }
  return isPromise(found) ? found.then(merge, () => list) : merge(found);
}

/** The output contract `serialize` checks: `@Tool({ output })`'s schema, validator and residual checks. */
export interface OutputContract {
  schema: JsonSchema;
  validation: ClassValidation;
  /** class-validator on the constraints Ajv does not run, for the union member the value claims. */
  residual?: (value: object) => ReturnType<ResidualValidation>;
}

/** One class, or a union keyed by a literal field every class pins with `@Equals(...)`. */
export function compileOutput(
  output: ClassType | readonly ClassType[],
  cls: string,
  name: string,
  table: ConstraintTable,
  compile: ReturnType<typeof createClassAjv>,
): OutputContract {
  const classes = Array.isArray(output) ? output : [output as ClassType];
  const plans = classes.map((c) => buildClassPlan(c, { closed: true, usage: `tool "${name}" output`, table }));
  const residuals = plans.map((p) => {
    const residual = compileResidual(p.residual);
    const hydrate = residual && compileHydrator(p);
    return residual && hydrate && ((value: object) => residual(hydrate(value as Record<string, unknown>)));
  });
  if (plans.length === 1) return { schema: plans[0].schema, validation: compile(plans[0].validation), residual: residuals[0] };
  const tag = Object.keys(plans[0].schema.properties ?? {}).find((key) =>
    plans.every((p) => p.schema.required?.includes(key) && p.schema.properties?.[key]?.const !== undefined),
  );
  if (!tag) {
    throw new ToolDefinitionError(
      `${cls}: the output union ${classes.map((c) => c.name).join(' | ')} has no common literal field. ` +
        "Pin one field in every class, e.g. @Equals('found') status!: 'found'.",
    );
  }
  const pick = (value: object) =>
    residuals[plans.findIndex((p) => p.schema.properties![tag].const === (value as Record<string, unknown>)[tag])];
  return {
    schema: { type: 'object', oneOf: plans.map((p) => p.schema) },
    validation: compile({ type: 'object', discriminator: { propertyName: tag }, required: [tag], oneOf: plans.map((p) => p.validation) }),
    residual: residuals.some(Boolean) ? (value) => pick(value)?.(value) ?? { errors: [], omitted: 0 } : undefined,
  };
}

/** The pipeline's output half: the result checked against the output contract (if any), then encoded. */
export function compileSerializer(name: string, output: OutputContract | undefined): SerializeOutput {
  const fail = (detail: string) => new ToolOutputError(name, [{ path: '', constraint: 'isJson', message: detail }], detail);
  const encode = (result: unknown): string => {
    if (typeof result === 'string') return result;
    try {
      return JSON.stringify(result);
    } catch (error) {
      throw fail(`the result cannot be serialized: ${(error as Error).message}`);
    }
  };
  const serialize: SerializeOutput = (result) => {
    if (result instanceof ToolContent) {
      if (!output) return describeContent(result);
      // The contract checks the structured result, which is also what the model reads.
      if (result.structured === undefined) throw fail('a ToolContent result needs `structured` for the output contract');
      return serialize(result.structured);
    }
    let value = result;
    if (typeof result === 'string') {
      try {
        value = JSON.parse(result);
      } catch {
        throw fail('the result string is not valid JSON');
      }
    } else if (result === undefined || typeof result === 'function' || typeof result === 'symbol') {
      throw fail(`execute returned ${typeof result}, not a JSON string or object`);
    }
    if (output && !output.validation.valid(value)) throw new ToolOutputError(name, output.validation.report(value).errors);
    if (!output?.residual) return encode(result);
    let found: ReturnType<ResidualValidation>;
    try {
      found = output.residual(value as object);
    } catch (error) {
      throw fail(`the result could not be validated: ${(error as Error).message}`);
    }
    return then(found, (f) => {
      if (f.errors.length) throw new ToolOutputError(name, f.errors);
      return encode(result);
    });
  };
  return serialize;
}
