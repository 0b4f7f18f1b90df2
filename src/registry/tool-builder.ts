import { Container } from 'typedi';
import { typediContainer, type ContainerLike } from '../container/container';
import { ToolDefinitionError } from '../errors/errors';
import { getConstructorParamTypes, getParams, getToolOptions } from '../metadata/metadata';
import type { ClassType, ToolOptions } from '../metadata/types';
import type { RegisteredTool } from './registered-tool';
import { buildClassPlan } from '../schema/class-schema';
import { ConstraintTable } from '../schema/constraint-table';
import type { ToolDefinition } from '../metadata/json-schema';
import type { ArgumentLimits } from '../validation/arguments';
import { createClassAjv, createJsonSchemaAjv, type ClassValidation } from '../validation/ajv';
import { compileClassInput, compileOutput, compileSchemaInput, compileSerializer, type ParseInput } from './call-pipeline';
import type { ToolEntry } from './registered-tool';
import type { ResolvedTool, ToolInterface } from './tool.interface';

/** What every tool of one registry is built with: its container, argument limits, constraint table and Ajv instances. */
export interface Builder {
  container: ContainerLike;
  limits: ArgumentLimits;
  table: ConstraintTable;
  classAjv: ReturnType<typeof createClassAjv>;
  /** Created on the first hand-written definition. */
  schemaAjv?: ReturnType<typeof createJsonSchemaAjv>;
}

/** A tool class resolved from the container, before its definition is read. */
interface Resolved {
  toolClass: ClassType;
  /** The class's name, for messages. */
  cls: string;
  options: ToolOptions | undefined;
  handWritten: boolean;
  instance: ToolInterface<never>;
}

export const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function createBuilder(container: ContainerLike, limits: ArgumentLimits): Builder {
  const table = new ConstraintTable();
  return { container, limits, table, classAjv: createClassAjv(table) };
}

/** Every tool class → its checked, frozen entry, by tool name in registration order; throws ToolDefinitionError. */
export function buildEntries(tools: readonly ClassType[], builder: Builder): Map<string, ToolEntry> {
  const { container } = builder;
  const entries = new Map<string, ToolEntry>();
  for (const toolClass of tools) {
    const entry = buildEntry(resolve(toolClass, container), builder);
    const previous = entries.get(entry.name)?.toolClass;
    if (previous) {
      throw new ToolDefinitionError(
        `Duplicate tool name "${entry.name}": ${previous.name} and ${toolClass.name} both use it. Give each tool a unique name.`,
      );
    }
    entries.set(entry.name, entry);
  }
  return entries;
}

/** Checks the class (a tool, with `execute`, injectable) and gets its instance from the container. */
function resolve(toolClass: ClassType, container: ContainerLike): Resolved {
  if (typeof toolClass !== 'function') {
    throw new ToolDefinitionError(`ToolRegistry.build got ${String(toolClass)} where a tool class belongs. Pass the classes themselves.`);
  }
  const cls = toolClass.name || '(anonymous class)';
  const options = getToolOptions(toolClass);
  const handWritten = typeof toolClass.prototype.definition === 'function';
  if (!options && !handWritten) {
    throw new ToolDefinitionError(`${cls} is not a tool. Add @Tool({ name, description, input }) or write a definition() method.`);
  }
  if (typeof toolClass.prototype.execute !== 'function') {
    throw new ToolDefinitionError(`${cls} has no execute(args, context, memory) method. Implement ToolInterface.`);
  }
  return { toolClass, cls, options, handWritten, instance: instantiate(toolClass, cls, container, '@Tool({ name, description })') };
}

/**
 * The class's instance from the container, with the checks that make an injection failure a
 * build error naming the fix (`decorator`: the decorator that makes TypeScript emit the types).
 */
export function instantiate<T>(featureClass: ClassType, cls: string, container: ContainerLike, decorator: string): T {
  if (featureClass.length > 0 && !getConstructorParamTypes(featureClass)) {
    throw new ToolDefinitionError(
      `${cls} takes constructor arguments but TypeScript emitted no types for them. ` +
        `Add ${decorator} (or @Service()) to the class and enable emitDecoratorMetadata.`,
    );
  }
  if (container === typediContainer) checkInjectableParams(featureClass, cls);
  try {
    return container.get(featureClass) as T;
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw error; // the container named the fix itself
    const reason = String((error as Error)?.message ?? error).replace(/[.\s]+$/, '');
    const advice = container.unresolvedAdvice ?? 'Make the container provide it and its dependencies.';
    throw new ToolDefinitionError(`Could not resolve ${cls} from the container: ${reason}. ${advice}`);
  }
}

/** A header name suffix as SEP-2243 allows it (an HTTP token without `_`). */
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;

/** The arguments the tool has mirrored in `Mcp-Param-*` headers: `@Param({ mcpHeader })`, or `x-mcp-header` in a written schema. */
function mcpHeaders(tool: Resolved, definition: ToolDefinition): Readonly<Record<string, string>> | undefined {
  const headers: Record<string, string> = {};
  if (tool.handWritten) {
    for (const [name, property] of Object.entries(definition.parameters.properties ?? {}))
      if (property['x-mcp-header'] !== undefined) headers[name] = property['x-mcp-header'] as string;
  } else if (tool.options?.input) {
    for (const [name, param] of getParams(tool.options.input)) if (param.mcpHeader !== undefined) headers[name] = param.mcpHeader;
  }
  const named = Object.entries(headers);
  if (named.length === 0) return undefined;
  const seen = new Set<string>();
  for (const [name, header] of named) {
    const type = definition.parameters.properties?.[name]?.type;
    if (typeof header !== 'string' || !HEADER_NAME.test(header) || seen.has(header.toLowerCase()))
      throw new ToolDefinitionError(
        `${tool.cls}.${name}: mcpHeader must be a unique header name of letters, digits and - (got ${JSON.stringify(header)}).`,
      );
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean')
      throw new ToolDefinitionError(`${tool.cls}.${name}: only a string, number or boolean parameter can be an MCP header.`);
    seen.add(header.toLowerCase());
  }
  return Object.freeze(headers);
}

/** The definition and the compiled pipeline of one resolved tool, frozen. */
function buildEntry(tool: Resolved, builder: Builder): ToolEntry {
  const { toolClass, cls, options, instance } = tool;
  const { definition, parse } = tool.handWritten ? handWrittenInput(tool, builder) : decoratedInput(options!, cls, builder);
  checkName(definition.name, cls);
  const output = options?.output ? compileOutput(options.output, cls, definition.name, builder.table, builder.classAjv) : undefined;
  if (output) definition.outputSchema = output.schema;
  deepFreeze(definition);
  if (!tool.handWritten) Object.defineProperty(instance, 'definition', { value: () => definition, configurable: true });
  return {
    kind: 'tool',
    name: definition.name,
    definition,
    instance: instance as ResolvedTool<never>,
    toolClass,
    tags: Object.freeze([...(options?.tags ?? [])]),
    sequential: options?.sequential ?? false,
    timeoutMs: options?.timeoutMs,
    approval: options?.approval,
    annotations: options?.annotations && Object.freeze({ ...options.annotations }),
    exposeErrors: options?.exposeErrors ?? false,
    memory: options?.memory ?? false,
    task: taskOptions(options?.task, definition.name),
    mcpHeaders: mcpHeaders(tool, definition),
    parse,
    serialize: compileSerializer(definition.name, output),
  };
}

interface Input {
  definition: ToolDefinition;
  parse: ParseInput;
}

/** A tool writing its own `definition()`: its JSON Schema, validated by Ajv. */
function handWrittenInput(tool: Resolved, builder: Builder): Input {
  const definition = readHandWrittenDefinition(tool.instance, tool.cls, tool.options);
  builder.schemaAjv ??= createJsonSchemaAjv();
  let validation: ClassValidation;
  try {
    validation = builder.schemaAjv(definition.parameters);
  } catch (error) {
    throw new ToolDefinitionError(`${tool.cls}.definition() has invalid parameters JSON Schema: ${(error as Error).message}`);
  }
  return { definition, parse: compileSchemaInput(definition.name, validation, builder.limits) };
}

/** A `@Tool({ input })` class: the schema and pipeline derived from the input class's decorators. */
function decoratedInput(options: ToolOptions, cls: string, builder: Builder): Input {
  if (!options.input) {
    throw new ToolDefinitionError(
      `${cls} has @Tool but no input class and no definition(). Add @Tool({ ..., input: YourInputClass }) ` +
        '(an empty class for a tool without parameters) or write definition().',
    );
  }
  const plan = buildClassPlan(options.input, {
    closed: options.closed ?? true,
    usage: `tool "${options.name}" input`,
    table: builder.table,
  });
  const definition: ToolDefinition = { name: options.name, description: options.description, parameters: plan.schema };
  return { definition, parse: compileClassInput(options.name, plan, builder.classAjv(plan.validation), builder.limits) };
}

function readHandWrittenDefinition(instance: ToolInterface<never>, cls: string, options: ToolOptions | undefined): ToolDefinition {
  const raw = instance.definition!() as Partial<ToolDefinition> | undefined;
  if (
    !raw ||
    typeof raw.name !== 'string' ||
    typeof raw.description !== 'string' ||
    !raw.parameters ||
    typeof raw.parameters !== 'object'
  ) {
    throw new ToolDefinitionError(
      `${cls}.definition() must return { name, description, parameters } with parameters a JSON Schema object.`,
    );
  }
  if (raw.parameters.type !== 'object') {
    throw new ToolDefinitionError(
      `${cls}.definition().parameters must be a JSON Schema of type "object" (got ${JSON.stringify(raw.parameters.type)}).`,
    );
  }
  if (options && options.name !== raw.name) {
    throw new ToolDefinitionError(`${cls}: @Tool names it "${options.name}" but definition() names it "${raw.name}". Use one name.`);
  }
  return structuredClone({ name: raw.name, description: raw.description, parameters: raw.parameters });
}

function checkName(name: string, cls: string): void {
  if (!NAME.test(name)) {
    throw new ToolDefinitionError(`${cls}: tool name "${name}" is not accepted by model providers. Use 1-64 letters, digits, "_" or "-".`);
  }
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * typedi injects by the constructor types TypeScript records. An interface, a union or a type
 * alias is recorded as `Object` (a class not loaded yet as `undefined`), and typedi would inject
 * nothing there without an error: the tool would fail at its first call. Refuse it at build.
 */
function checkInjectableParams(toolClass: ClassType, cls: string): void {
  const types = getConstructorParamTypes(toolClass) ?? [];
  const names = constructorParamNames(toolClass);
  types.forEach((type, index) => {
    if (type !== Object && type !== undefined) return;
    if (Container.handlers.some((h) => h.object === toolClass && h.index === index)) return; // @Inject(...) names it
    const name = names[index] ?? `#${index + 1}`;
    throw new ToolDefinitionError(
      `${cls}: constructor parameter "${name}" (#${index + 1}) ` +
        (type === undefined
          ? 'is typed with a class that was not loaded yet when the class was decorated (a circular import?). Break the import cycle. '
          : 'is typed as an interface, a union or a type alias, which TypeScript records as Object: the container cannot know what to inject. ') +
        "Type it with a class (an abstract class works as a token), or name what to inject with typedi's @Inject('token') and Container.set('token', value).",
    );
  });
}

/** Parameter names from the compiled constructor, for messages only (best effort). */
function constructorParamNames(toolClass: ClassType): string[] {
  const match = /constructor\s*\(([^)]*)\)/.exec(Function.prototype.toString.call(toolClass));
  return match ? match[1].split(',').map((p) => p.trim().split(/[\s=]/)[0]) : [];
}

/** `@Tool({ task })` as one frozen shape; a ttl that is not a positive whole number of milliseconds is refused. */
function taskOptions(task: ToolOptions['task'], name: string): RegisteredTool['task'] {
  if (task === undefined) return undefined;
  const options = typeof task === 'string' ? { support: task } : task;
  if (options.support !== 'optional' && options.support !== 'required')
    throw new ToolDefinitionError(`Tool "${name}": task.support must be 'optional' or 'required'.`);
  if (options.ttlMs !== undefined && !(Number.isSafeInteger(options.ttlMs) && options.ttlMs > 0))
    throw new ToolDefinitionError(`Tool "${name}": task.ttlMs must be a positive whole number of milliseconds.`);
  return Object.freeze({ support: options.support, inputFirst: options.inputFirst === true, ttlMs: options.ttlMs });
}
