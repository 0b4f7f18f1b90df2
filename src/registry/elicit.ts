import { ToolInputError, ToolwrightConfigError } from '../errors/errors';
import { InvalidInputError } from '../errors/input-errors';
import type { JsonSchema } from '../metadata/json-schema';
import { buildClassPlan } from '../schema/class-schema';
import { ConstraintTable } from '../schema/constraint-table';
import type { ElicitPort, ElicitResult, InputClass, InputRequest, InputSink, RequestedSchema } from '../session/elicitation';
import { createClassAjv } from '../validation/ajv';
import { DEFAULT_LIMITS } from '../validation/arguments';
import { compileClassInput, type ParseInput } from './call-pipeline';

/** A form compiled once per input class: the schema the person is shown, and the tool-argument pipeline its answer goes through. */
interface CompiledForm {
  schema: RequestedSchema;
  parse: ParseInput;
}

// Forms are not tools of one registry: one table and Ajv for every form class of the process.
const table = new ConstraintTable();
const compile = createClassAjv(table);
const forms = new WeakMap<InputClass, CompiledForm>();

/** The form of an input class (compiled on first use); throws ToolwrightConfigError for a class MCP elicitation cannot show. */
export function compiledForm(inputClass: InputClass): CompiledForm {
  let form = forms.get(inputClass);
  if (!form) {
    if (typeof inputClass !== 'function')
      throw new ToolwrightConfigError(`context.elicit: the second argument must be an input class (got ${typeof inputClass}).`);
    const name = inputClass.name || '(anonymous class)';
    const plan = buildClassPlan(inputClass, { closed: true, usage: `elicitation form ${name}`, table });
    form = { schema: requestedSchema(plan.schema, name), parse: compileClassInput(name, plan, compile(plan.validation), DEFAULT_LIMITS) };
    forms.set(inputClass, form);
  }
  return form;
}

/** `context.elicit` through a surface's sink: the form sent, an accepted answer validated like tool arguments. */
export function elicitPort(sink: InputSink): ElicitPort {
  return {
    async form<T extends object>(message: string, inputClass: InputClass<T>, signal: AbortSignal, key?: string): Promise<ElicitResult<T>> {
      const form = compiledForm(inputClass);
      const request: InputRequest = { mode: 'form', message: String(message), requestedSchema: structuredClone(form.schema) };
      const answer = await sink(key === undefined ? request : { ...request, key }, signal);
      if (answer.action !== 'accept') return { action: answer.action === 'decline' ? 'decline' : 'cancel' };
      return { action: 'accept', content: (await checkAnswer(form, inputClass, answer.content)) as T };
    },
    async url(message, url, signal, key) {
      if (!URL.canParse(url)) throw new ToolwrightConfigError(`context.elicitUrl: "${url}" is not an absolute URL.`);
      const request: InputRequest = { mode: 'url', message: String(message), url };
      const answer = await sink(key === undefined ? request : { ...request, key }, signal);
      return { action: answer.action === 'accept' || answer.action === 'decline' ? answer.action : 'cancel' };
    },
    // The remote server that asked checks the answer against its own form.
    relay: (request, signal) => sink(request, signal),
  };
}

/** The answer through the class's compiled pipeline; a refused one is INVALID_INPUT, never the tool's value. */
async function checkAnswer(form: CompiledForm, inputClass: InputClass, content: unknown): Promise<object> {
  let value: object;
  try {
    value = await form.parse(content ?? {});
  } catch (error) {
    if (error instanceof ToolInputError) throw new InvalidInputError(inputClass.name, error.errors, error.omitted);
    throw error;
  }
  if (value instanceof ToolInputError) throw new InvalidInputError(inputClass.name, value.errors, value.omitted);
  return value;
}

/** What each kind of MCP form field may say (2025-11-25 `PrimitiveSchemaDefinition`); anything else is not sent. */
const ALLOWED: Record<string, readonly string[]> = {
  string: ['type', 'title', 'description', 'minLength', 'maxLength', 'format', 'default', 'enum', 'enumNames', 'oneOf'],
  number: ['type', 'title', 'description', 'minimum', 'maximum', 'default'],
  boolean: ['type', 'title', 'description', 'default'],
  array: ['type', 'title', 'description', 'minItems', 'maxItems', 'default'],
};
const FORMATS = ['email', 'uri', 'date', 'date-time'];

/** The tool-input schema of the class as an MCP form: flat, primitive properties only, refused otherwise. */
function requestedSchema(schema: JsonSchema, name: string): RequestedSchema {
  const properties: RequestedSchema['properties'] = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) properties[key] = formField(property, `${name}.${key}`);
  return schema.required?.length ? { type: 'object', properties, required: [...schema.required] } : { type: 'object', properties };
}

function formField(property: JsonSchema, where: string): Record<string, unknown> {
  const type = property.type === 'integer' ? 'number' : property.type;
  const allowed = typeof type === 'string' ? ALLOWED[type] : undefined;
  const field = allowed && Object.fromEntries(Object.entries(property).filter(([k]) => allowed.includes(k)));
  if (!field || (type === 'string' && property.oneOf && !titledOptions(property.oneOf))) throw notAForm(where, property);
  if (typeof field.format === 'string' && !FORMATS.includes(field.format)) delete field.format; // still enforced on the answer
  if (type === 'array') field.items = multiSelectItems(property.items, where, property);
  return field;
}

/** A multi-select: string items from a list (`enum`), or titled ones (`anyOf: [{ const, title }]`). */
function multiSelectItems(items: JsonSchema | undefined, where: string, property: JsonSchema): Record<string, unknown> {
  if (items?.type === 'string' && Array.isArray(items.enum) && items.enum.every((v) => typeof v === 'string'))
    return { type: 'string', enum: [...items.enum] };
  if (items?.type === 'string' && titledOptions(items.oneOf))
    return { anyOf: items.oneOf!.map((o) => ({ const: o.const, title: o.title })) };
  throw notAForm(where, property);
}

function titledOptions(options: JsonSchema[] | undefined): boolean {
  return Array.isArray(options) && options.every((o) => typeof o.const === 'string' && typeof o.title === 'string');
}

function notAForm(where: string, property: JsonSchema): ToolwrightConfigError {
  return new ToolwrightConfigError(
    `${where} cannot be asked in an elicitation form (${JSON.stringify(property.type ?? 'no type')}): a form is one flat object ` +
      'of string, number, integer, boolean or enum properties, and arrays of enum strings. Ask for a nested class separately.',
  );
}
