import { ToolDefinitionError } from '../errors/errors';
import type { PromptOptions, ResourceDeclaration } from '../metadata/feature-types';
import { getPromptOptions, getResourceOptions } from '../metadata/metadata';
import type { ClassType } from '../metadata/types';
import { buildClassPlan } from '../schema/class-schema';
import { compileClassInput, type ParseInput } from './call-pipeline';
import type { FeatureEntry, PromptArgument, RegisteredPrompt, RegisteredResource } from './registered-feature';
import { deepFreeze, instantiate, NAME, type Builder } from './tool-builder';
import { compileUriTemplate } from './uri-template';

const MIME = /^[\w.+-]+\/[\w.+-]+$/;
const NO_ARGUMENTS: ParseInput = () => Object.freeze({});

/** Every `@Resource` / `@ResourceTemplate` class → its checked, frozen entry, by name; throws ToolDefinitionError. */
export function buildResources(classes: readonly ClassType[], builder: Builder): Map<string, FeatureEntry<RegisteredResource>> {
  const entries = new Map<string, FeatureEntry<RegisteredResource>>();
  const uris = new Map<string, string>();
  for (const featureClass of classes) {
    const cls = className(featureClass, 'resources');
    const options = getResourceOptions(featureClass);
    if (!options)
      throw new ToolDefinitionError(
        `${cls} is not a resource. Add @Resource({ uri, name }) or @ResourceTemplate({ uriTemplate, name, input }).`,
      );
    const entry = resourceEntry(featureClass, cls, options, builder);
    const key = entry.registered.uri ?? entry.registered.uriTemplate!;
    unique(entries, entry, cls, 'resource');
    if (uris.has(key)) throw new ToolDefinitionError(`${uris.get(key)} and ${cls} both serve "${key}". Give each resource its own URI.`);
    uris.set(key, cls);
  }
  return entries;
}

/** Every `@Prompt` class → its checked, frozen entry, by name; throws ToolDefinitionError. */
export function buildPrompts(classes: readonly ClassType[], builder: Builder): Map<string, FeatureEntry<RegisteredPrompt>> {
  const entries = new Map<string, FeatureEntry<RegisteredPrompt>>();
  for (const featureClass of classes) {
    const cls = className(featureClass, 'prompts');
    const options = getPromptOptions(featureClass);
    if (!options) throw new ToolDefinitionError(`${cls} is not a prompt. Add @Prompt({ name, description, input }).`);
    unique(entries, promptEntry(featureClass, cls, options, builder), cls, 'prompt');
  }
  return entries;
}

function resourceEntry(
  featureClass: ClassType,
  cls: string,
  options: ResourceDeclaration,
  builder: Builder,
): FeatureEntry<RegisteredResource> {
  checkMethod(featureClass, cls, 'read', 'read(args, context, memory)');
  checkName(options.name, cls);
  if (options.mimeType !== undefined && !MIME.test(options.mimeType)) {
    throw new ToolDefinitionError(`${cls}: mimeType "${options.mimeType}" is not a MIME type such as text/plain.`);
  }
  const common = {
    name: options.name,
    title: options.title,
    description: options.description,
    mimeType: options.mimeType,
    tags: Object.freeze([...(options.tags ?? [])]),
    memory: options.memory ?? false,
    exposeErrors: options.exposeErrors ?? false,
    instance: instantiate<RegisteredResource['instance']>(featureClass, cls, builder.container, '@Resource(...)'),
    featureClass,
  };
  if (options.kind === 'resource') {
    if (typeof options.uri !== 'string' || !URL.canParse(options.uri)) {
      throw new ToolDefinitionError(`${cls}: @Resource needs an absolute uri such as docs://handbook (got ${String(options.uri)}).`);
    }
    const registered = Object.freeze({ kind: 'resource' as const, uri: options.uri, arguments: Object.freeze([]), ...common });
    return { registered, parse: NO_ARGUMENTS, gated: false };
  }
  const matcher = compileUriTemplate(options.uriTemplate, cls);
  const { args, parse } = stringInput(options.input, cls, options.name, `resource template "${options.name}" variables`, builder);
  const names = args.map((a) => a.name);
  if (names.length !== matcher.variables.length || matcher.variables.some((v) => !names.includes(v))) {
    throw new ToolDefinitionError(
      `${cls}: uriTemplate "${options.uriTemplate}" names {${matcher.variables.join('}, {')}} but its input class has ${names.join(', ') || 'no properties'}. Give the input class one @Param property per variable.`,
    );
  }
  const registered = Object.freeze({
    kind: 'resourceTemplate' as const,
    uriTemplate: options.uriTemplate,
    arguments: deepFreeze(args),
    ...common,
  });
  return { registered, parse, match: matcher.match, gated: false };
}

function promptEntry(featureClass: ClassType, cls: string, options: PromptOptions, builder: Builder): FeatureEntry<RegisteredPrompt> {
  checkMethod(featureClass, cls, 'get', 'get(args, context, memory)');
  checkName(options.name, cls);
  if (typeof options.description !== 'string') throw new ToolDefinitionError(`${cls}: @Prompt needs a description.`);
  const { args, parse } = stringInput(options.input, cls, options.name, `prompt "${options.name}" arguments`, builder);
  // Frozen shallowly: the instance is the container's, and its services are not the registry's to freeze.
  const registered = Object.freeze({
    kind: 'prompt' as const,
    name: options.name,
    title: options.title,
    description: options.description,
    arguments: deepFreeze(args),
    tags: Object.freeze([...(options.tags ?? [])]),
    memory: options.memory ?? false,
    exposeErrors: options.exposeErrors ?? false,
    instance: instantiate<RegisteredPrompt['instance']>(featureClass, cls, builder.container, '@Prompt(...)'),
    featureClass,
  });
  return { registered, parse, gated: false };
}

/**
 * MCP sends prompt arguments and template variables as strings: the input class's properties must
 * be strings, validated by the same compiled pipeline as tool arguments.
 */
function stringInput(
  input: ClassType | undefined,
  cls: string,
  name: string,
  usage: string,
  builder: Builder,
): { args: PromptArgument[]; parse: ParseInput } {
  if (typeof input !== 'function') throw new ToolDefinitionError(`${cls} needs an input class for its ${usage} (an empty class for none).`);
  const plan = buildClassPlan(input, { closed: true, usage, table: builder.table });
  const required = new Set(plan.schema.required ?? []);
  const args = Object.entries(plan.schema.properties ?? {}).map(([property, schema]): PromptArgument => {
    if (schema.type !== 'string') {
      throw new ToolDefinitionError(
        `${cls}: ${input.name}.${property} is ${JSON.stringify(schema.type ?? 'untyped')}, but MCP sends ${usage} as strings. Type it as a string (@IsString(), @IsIn([...]), @Matches(...)).`,
      );
    }
    const values = Array.isArray(schema.enum) ? schema.enum.map(String) : undefined;
    return { name: property, description: schema.description, required: required.has(property), ...(values && { enum: values }) };
  });
  return { args, parse: compileClassInput(name, plan, builder.classAjv(plan.validation), builder.limits) };
}

function className(featureClass: ClassType, option: string): string {
  if (typeof featureClass !== 'function') {
    throw new ToolDefinitionError(
      `ToolRegistry.build({ ${option} }) got ${String(featureClass)} where a class belongs. Pass the classes themselves.`,
    );
  }
  return featureClass.name || '(anonymous class)';
}

function checkMethod(featureClass: ClassType, cls: string, method: string, signature: string): void {
  if (typeof featureClass.prototype[method] !== 'function') throw new ToolDefinitionError(`${cls} has no ${signature} method.`);
}

function checkName(name: unknown, cls: string): void {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ToolDefinitionError(`${cls}: name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`);
  }
}

function unique<R extends RegisteredResource | RegisteredPrompt>(
  entries: Map<string, FeatureEntry<R>>,
  entry: FeatureEntry<R>,
  cls: string,
  what: string,
): void {
  const previous = entries.get(entry.registered.name);
  if (previous) {
    throw new ToolDefinitionError(
      `Duplicate ${what} name "${entry.registered.name}": ${previous.registered.featureClass.name} and ${cls} both use it. Give each ${what} a unique name.`,
    );
  }
  entries.set(entry.registered.name, entry);
}
