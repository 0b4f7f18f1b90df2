import { ToolInputError } from '../errors/errors';
import type { JsonSchema } from '../metadata/json-schema';
import type { ClassType } from '../metadata/types';
import { compileClassInput, type ParseInput } from '../registry/call-pipeline';
import { buildClassPlan } from '../schema/class-schema';
import { ConstraintTable } from '../schema/constraint-table';
import { createClassAjv } from '../validation/ajv';
import { DEFAULT_LIMITS } from '../validation/arguments';

/** An agent's structured final answer: the schema the model is told, and the tool-argument pipeline its answer goes through. */
export interface FinalOutput {
  schema: JsonSchema;
  /** The answer's text → the hydrated instance, or the ToolInputError listing its field errors. */
  check(content: string): Promise<object | ToolInputError>;
}

// Output classes are not tools of one registry: one table and Ajv for every output class of the process.
const table = new ConstraintTable();
const compile = createClassAjv(table);

/** Compiled once per agent, with the same path as tool arguments (parse → Ajv → hydrate → residual class-validator). */
export function compileFinalOutput(output: ClassType, agentName: string): FinalOutput {
  return compileClassAnswer(output, `${agentName}.output`, `agent "${agentName}" output`);
}

/** A class checked outside any registry (an agent's output, an agent tool's input): its schema and the tool-argument pipeline. */
export function compileClassAnswer(cls: ClassType, name: string, usage: string): FinalOutput {
  const plan = buildClassPlan(cls, { closed: true, usage, table });
  const parse: ParseInput = compileClassInput(name, plan, compile(plan.validation), DEFAULT_LIMITS);
  return {
    schema: plan.schema,
    async check(content) {
      try {
        return await parse(stripFence(content));
      } catch (error) {
        if (error instanceof ToolInputError) return error;
        throw error;
      }
    },
  };
}

/** The instructions with the output schema appended: every provider reads the system prompt. */
export function withOutputSchema(instructions: string | undefined, schema: JsonSchema): string {
  const told = `Answer with one JSON object (no prose) matching this JSON Schema:\n${JSON.stringify(schema)}`;
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
