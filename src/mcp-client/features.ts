import { ToolContent, type ContentPart } from '../content/tool-content';
import { errorText, ToolInputError, type FieldError } from '../errors/errors';
import { PromptNotFoundError, ResourceNotFoundError } from '../errors/feature-errors';
import { compileUriTemplate } from '../registry/uri-template';
import type { AgentContext } from '../session/agent-context';
import type { Connection } from './connection';
import { RemoteToolError } from './remote-error';

/** A resource a remote server lists. */
export interface RemoteResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A resource template a remote server lists (`uriTemplate`: RFC 6570). */
export interface RemoteResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One part of a read resource: text, or bytes as base64. */
export type RemoteResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

export interface RemotePrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

export interface RemotePromptRead {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: ContentPart }[];
}

/** What the toolset's `authorize` decides on: one remote resource, template or prompt, and its server. */
export interface RemoteFeature {
  kind: 'resource' | 'resourceTemplate' | 'prompt';
  name: string;
  uri?: string;
  uriTemplate?: string;
  /** The toolset's name. */
  source: string;
}

export type FeatureAuthorize = (feature: RemoteFeature, context: AgentContext | undefined) => boolean | Promise<boolean>;

/** Runs a request on the caller's own connection (the toolset's pool, credentials and error naming). */
export type UseConnection = <T>(context: AgentContext | undefined, use: (connection: Connection) => Promise<T>) => Promise<T>;

const MAX_ITEMS = 10_000;
const MAX_URI = 8192;

/**
 * A remote server's resources and prompts, read through the same per-identity connections as its
 * tools, behind the toolset's `authorize` (a hidden one reads as one that does not exist). Every
 * answer is checked before the app sees it; a malformed entry of a list is left out.
 */
export class RemoteFeatures {
  constructor(
    private readonly source: string,
    private readonly use: UseConnection,
    private readonly timeoutMs: number,
    private readonly authorize: FeatureAuthorize | undefined,
  ) {}

  async resources(context?: AgentContext): Promise<RemoteResource[]> {
    const listed = (await this.list(context, 'resources/list', 'resources')).flatMap((r) => resource(r) ?? []);
    return this.allowed(listed, (r) => ({ kind: 'resource', name: r.name, uri: r.uri }), context);
  }

  async resourceTemplates(context?: AgentContext): Promise<RemoteResourceTemplate[]> {
    const listed = (await this.list(context, 'resources/templates/list', 'resourceTemplates')).flatMap((t) => template(t) ?? []);
    return this.allowed(listed, (t) => ({ kind: 'resourceTemplate', name: t.name, uriTemplate: t.uriTemplate }), context);
  }

  /** `resources/read`. With `authorize`, only a URI a listed resource or template names may be read. */
  async read(uri: string, context?: AgentContext): Promise<RemoteResourceContents[]> {
    if (typeof uri !== 'string' || uri === '' || uri.length > MAX_URI) throw new ResourceNotFoundError(String(uri));
    if (this.authorize && !(await this.readable(uri, context))) throw new ResourceNotFoundError(uri);
    const answer = await this.use(context, (c) => c.request('resources/read', { uri }, this.timeoutMs)).catch((error: unknown) => {
      throw notFound(error) ? new ResourceNotFoundError(uri) : error;
    });
    if (!Array.isArray(answer.contents))
      throw new RemoteToolError('protocol', 'The MCP server read a resource without a `contents` array.');
    return answer.contents.map(contents);
  }

  async prompts(context?: AgentContext): Promise<RemotePrompt[]> {
    const listed = (await this.list(context, 'prompts/list', 'prompts')).flatMap((p) => prompt(p) ?? []);
    return this.allowed(listed, (p) => ({ kind: 'prompt', name: p.name }), context);
  }

  /** `prompts/get`: the arguments are checked against the prompt's listed ones before anything is sent. */
  async get(name: string, args: Record<string, string> = {}, context?: AgentContext): Promise<RemotePromptRead> {
    const visible = await this.prompts(context);
    const declared = visible.find((p) => p.name === name);
    if (!declared)
      throw new PromptNotFoundError(
        String(name),
        visible.map((p) => p.name),
      );
    checkArguments(declared, args);
    const answer = await this.use(context, (c) => c.request('prompts/get', { name, arguments: { ...args } }, this.timeoutMs));
    if (!Array.isArray(answer.messages)) throw new RemoteToolError('protocol', 'The MCP server got a prompt without a `messages` array.');
    return {
      ...(typeof answer.description === 'string' && { description: answer.description }),
      messages: answer.messages.map(message),
    };
  }

  /** Every page of a list (a server without the capability lists nothing). */
  private async list(context: AgentContext | undefined, method: string, field: string): Promise<unknown[]> {
    return this.use(context, async (connection) => {
      const items: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await connection.request(method, cursor === undefined ? {} : { cursor }, this.timeoutMs).catch((error: unknown) => {
          if (unsupported(error)) return { [field]: [] };
          throw error;
        });
        if (!Array.isArray(page[field]))
          throw new RemoteToolError('protocol', `The MCP server answered ${method} without a \`${field}\` array.`);
        items.push(...(page[field] as unknown[]));
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      } while (cursor !== undefined && items.length < MAX_ITEMS);
      return items;
    });
  }

  private async allowed<T>(items: T[], feature: (item: T) => Omit<RemoteFeature, 'source'>, context?: AgentContext): Promise<T[]> {
    if (!this.authorize) return items;
    const kept: T[] = [];
    for (const item of items) if ((await this.authorize({ ...feature(item), source: this.source }, context)) === true) kept.push(item);
    return kept;
  }

  private async readable(uri: string, context?: AgentContext): Promise<boolean> {
    if ((await this.resources(context)).some((r) => r.uri === uri)) return true;
    return (await this.resourceTemplates(context)).some((t) => matches(t.uriTemplate, uri));
  }
}

function matches(uriTemplate: string, uri: string): boolean {
  try {
    return compileUriTemplate(uriTemplate, 'remote').match(uri) !== undefined;
  } catch {
    // A template of operators we do not match: it names nothing we can check, so nothing is read through it.
    return false;
  }
}

/** The server's own verdict that it has no such resource (-32002, or the SDK's -32602 "not found") or does not serve that kind (-32601). */
const causeOf = (error: unknown) =>
  error instanceof RemoteToolError ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
const codeOf = (error: unknown): unknown => causeOf(error)?.code;
const notFound = (error: unknown) =>
  codeOf(error) === -32002 || (codeOf(error) === -32602 && /not found/i.test(String(causeOf(error)?.message)));
const unsupported = (error: unknown) => codeOf(error) === -32601;

function checkArguments(declared: RemotePrompt, args: Record<string, string>): void {
  const errors: FieldError[] = [];
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    errors.push({ path: '', message: 'must be an object', constraint: 'isObject' });
  else {
    for (const [key, value] of Object.entries(args)) {
      if (!declared.arguments.some((a) => a.name === key))
        errors.push({ path: key, message: `${key} is not an argument of this prompt`, constraint: 'whitelistValidation' });
      else if (typeof value !== 'string') errors.push({ path: key, message: `${key} must be a string`, constraint: 'isString' });
    }
    for (const a of declared.arguments)
      if (a.required && !Object.hasOwn(args, a.name))
        errors.push({ path: a.name, message: `${a.name} is required`, constraint: 'isDefined' });
  }
  if (errors.length) throw new ToolInputError('INVALID_ARGUMENTS', declared.name, errors, undefined);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function described(item: Record<string, unknown>) {
  return {
    ...(text(item.title) !== undefined && { title: text(item.title) }),
    ...(text(item.description) !== undefined && { description: text(item.description) }),
    ...(text(item.mimeType) !== undefined && { mimeType: text(item.mimeType) }),
  };
}

function resource(item: unknown): RemoteResource | undefined {
  if (!isRecord(item) || !text(item.uri) || typeof item.name !== 'string') return undefined;
  return { uri: item.uri as string, name: item.name, ...described(item) };
}

function template(item: unknown): RemoteResourceTemplate | undefined {
  if (!isRecord(item) || !text(item.uriTemplate) || typeof item.name !== 'string') return undefined;
  return { uriTemplate: item.uriTemplate as string, name: item.name, ...described(item) };
}

function prompt(item: unknown): RemotePrompt | undefined {
  if (!isRecord(item) || typeof item.name !== 'string') return undefined;
  const args = (Array.isArray(item.arguments) ? item.arguments : []).filter(isRecord).filter((a) => typeof a.name === 'string');
  const { mimeType: _, ...rest } = described(item);
  return {
    name: item.name,
    ...rest,
    arguments: args.map((a) => ({
      name: a.name as string,
      ...(text(a.description) !== undefined && { description: text(a.description) }),
      required: a.required === true,
    })),
  };
}

function contents(item: unknown): RemoteResourceContents {
  if (isRecord(item) && typeof item.uri === 'string') {
    const mime = text(item.mimeType) === undefined ? {} : { mimeType: item.mimeType as string };
    if (typeof item.text === 'string') return { uri: item.uri, ...mime, text: item.text };
    if (typeof item.blob === 'string') return { uri: item.uri, ...mime, blob: item.blob };
  }
  throw new RemoteToolError('protocol', 'The MCP server read a resource part that is neither text nor a blob with its uri.');
}

function message(item: unknown): RemotePromptRead['messages'][number] {
  if (!isRecord(item) || (item.role !== 'user' && item.role !== 'assistant'))
    throw new RemoteToolError('protocol', 'The MCP server sent a prompt message without role "user" or "assistant".');
  try {
    return { role: item.role, content: ToolContent.of([item.content as ContentPart]).parts[0] };
  } catch (error) {
    throw new RemoteToolError('protocol', `The MCP server sent a prompt message that cannot be passed on: ${errorText(error)}`, {
      cause: error,
    });
  }
}
