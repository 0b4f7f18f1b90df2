import { parse as parsePartial } from 'partial-json';
import { ToolDefinitionError, ToolInputError } from '../errors/errors';
import type { JsonSchema, ToolDefinition } from '../metadata/json-schema';
import type { ClassType } from '../metadata/types';
import { compileClassInput, type ParseInput } from '../registry/call-pipeline';
import { buildClassPlan, type ClassPlan } from '../schema/class-schema';
import { ConstraintTable } from '../schema/constraint-table';
import { createClassAjv } from '../validation/ajv';
import { DEFAULT_LIMITS, parseArguments } from '../validation/arguments';
import type { Model, OutputFormat } from './model';

/** An agent's structured final answer: the schema the model is told, and the tool-argument pipeline its answer goes through. */
export interface FinalOutput {
  schema: JsonSchema;
  /** The answer's text → the hydrated instance (of the matched class, for a union), or the ToolInputError listing its field errors. */
  check(content: string): Promise<object | ToolInputError>;
}

/** The tool a model without a native structured output answers through: its arguments are the answer. */
export const FINAL_ANSWER_TOOL = 'final_answer';

// Output classes are not tools of one registry: one table and Ajv for every output class of the process.
const table = new ConstraintTable();
const compile = createClassAjv(table);

/** Compiled once per agent, with the same path as tool arguments (parse → Ajv → hydrate → residual class-validator). */
export function compileFinalOutput(output: ClassType | readonly ClassType[], agentName: string): FinalOutput {
  return compileClassAnswer(output, `${agentName}.output`, `agent "${agentName}" output`);
}

/**
 * A class checked outside any registry (an agent's output, an agent tool's input): its schema and
 * the tool-argument pipeline. A list of classes is a union keyed by a literal field every class
 * pins with `@Equals(...)`, as a tool's output union: the answer's value of that field picks the class.
 */
export function compileClassAnswer(cls: ClassType | readonly ClassType[], name: string, usage: string): FinalOutput {
  const classes: readonly ClassType[] = Array.isArray(cls) ? cls : [cls as ClassType];
  const plans = classes.map((c) => buildClassPlan(c, { closed: true, usage, table }));
  const parses = plans.map((plan) => compileClassInput(name, plan, compile(plan.validation), DEFAULT_LIMITS));
  if (plans.length === 1) return { schema: plans[0].schema, check: (content) => refusal(parses[0], stripFence(content)) };
  const tag = unionTag(plans, classes);
  const values = plans.map((p) => p.schema.properties![tag].const);
  return {
    // anyOf, not oneOf: the keyword every provider's schema subset takes.
    schema: { type: 'object', anyOf: plans.map((p) => p.schema) },
    async check(content) {
      let value: unknown;
      try {
        value = parseArguments(name, stripFence(content), DEFAULT_LIMITS);
      } catch (error) {
        if (error instanceof ToolInputError) return error;
        throw error;
      }
      const index = values.indexOf((value as Record<string, unknown>)[tag]);
      if (index === -1) {
        const message = `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')} (it names which answer this is)`;
        return new ToolInputError('INVALID_ARGUMENTS', name, [{ path: tag, constraint: 'union', message }]);
      }
      return refusal(parses[index], value);
    },
  };
}

/** The field every class of a union pins to its own literal. */
function unionTag(plans: readonly ClassPlan[], classes: readonly ClassType[]): string {
  const tag = Object.keys(plans[0].schema.properties ?? {}).find((key) =>
    plans.every((p) => p.schema.required?.includes(key) && p.schema.properties?.[key]?.const !== undefined),
  );
  if (tag !== undefined) return tag;
  throw new ToolDefinitionError(
    `the output union ${classes.map((c) => c.name).join(' | ')} has no common literal field. ` +
      "Pin one field in every class, e.g. @Equals('refunded') outcome!: 'refunded'.",
  );
}

async function refusal(parse: ParseInput, raw: unknown): Promise<object | ToolInputError> {
  try {
    return await parse(raw);
  } catch (error) {
    if (error instanceof ToolInputError) return error;
    throw error;
  }
}

/** How an agent's model is told its output: natively (`format` in each request), or through the `final_answer` tool. */
export interface OutputPlan {
  output: FinalOutput;
  format: OutputFormat;
  /** The model took `format` (`Model.nativeOutput`); else `tool` is offered beside the agent's tools. */
  native: boolean;
  tool: ToolDefinition;
}

/** Decided once per agent: the model says whether it tells its provider the schema natively. */
export function planOutput(cls: ClassType | readonly ClassType[], agentName: string, model: Model): OutputPlan {
  const output = compileFinalOutput(cls, agentName);
  const format = { name: `${agentName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 57)}_output`, schema: output.schema };
  const tool = {
    name: FINAL_ANSWER_TOOL,
    description: 'Give your final answer. Call it once, when you are done with every other tool; its arguments are the answer.',
    parameters: output.schema,
  };
  return { output, format, native: model.nativeOutput?.(format) ?? false, tool };
}

/** The instructions with the way to answer appended: told natively, the schema is not repeated here. */
export function withOutputSchema(instructions: string | undefined, schema: JsonSchema, native: boolean): string {
  const told = native
    ? 'Answer with one JSON object (no prose) matching the response format.'
    : `Answer with one JSON object matching this JSON Schema: call the \`${FINAL_ANSWER_TOOL}\` tool with it ` +
      `(or reply with the object alone, no prose):\n${JSON.stringify(schema)}`;
  return instructions ? `${instructions}\n\n${told}` : told;
}

/** What the model is told when its answer does not match: the field errors, so it can correct them. */
export function correction(error: ToolInputError): string {
  const lines = error.errors.map((e) => `- ${e.path || '(answer)'}: ${e.message}`);
  return `Your answer does not match the required output schema:\n${lines.join('\n')}\nAnswer again with a corrected JSON object.`;
}

// Models often wrap JSON in a markdown fence; the fence is not part of the answer.
export function stripFence(content: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return m ? m[1] : content;
}

/**
 * The object an answer's text holds so far (a fence's opening skipped), read by a tolerant
 * partial-JSON parser; undefined while it holds no object yet.
 */
export function partialOutput(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start === -1) return undefined;
  const end = text.lastIndexOf('```');
  const json = end > start ? text.slice(start, end) : text.slice(start);
  try {
    const value: unknown = parsePartial(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // malformed, not just cut: nothing to show
  }
}
