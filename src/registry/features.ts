import { ToolContent, type ContentPart, type EmbeddedResource } from '../content/tool-content';
import { ToolExecutionError, ToolInputError, ToolOutputError, ToolwrightError } from '../errors/errors';
import { PromptNotFoundError, ResourceNotFoundError } from '../errors/feature-errors';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import { callInfo } from './call-info';
import type { CallOptions } from './call-options';
import type { PromptAnswer, PromptMessage, ResourceAnswer } from './feature.interface';
import { permits, type AuthorizePolicy } from './policy';
import type {
  Completion,
  CompletionRef,
  FeatureEntry,
  PromptRead,
  RegisteredPrompt,
  RegisteredResource,
  ResourceRead,
} from './registered-feature';

/** What a read or get may carry: the caller's signal and a `context.log` sink. */
export type FeatureCallOptions = Pick<CallOptions, 'signal' | 'onLog' | 'toolCallId' | 'onElicit' | 'onSample' | 'onRoots'>;

/** The most completion values one answer lists (MCP's own bound). */
const MAX_COMPLETIONS = 100;

/**
 * A registry's resources, resource templates and prompts behind the same gate as its tools
 * (`isEnabled`, then `authorize`): a hidden one is neither listed nor served, and reads as one
 * that does not exist. Arguments go through the tool input pipeline (class-validator's verdict).
 */
export class Features {
  private readonly resourceList: readonly RegisteredResource[];
  private readonly promptList: readonly RegisteredPrompt[];
  /** Some resource's or prompt's visibility depends on the caller. */
  readonly gated: boolean;

  constructor(
    private readonly resources: ReadonlyMap<string, FeatureEntry<RegisteredResource>>,
    private readonly prompts: ReadonlyMap<string, FeatureEntry<RegisteredPrompt>>,
    private readonly authorize: AuthorizePolicy | undefined,
  ) {
    const all = [...resources.values(), ...prompts.values()];
    for (const entry of all) entry.gated = authorize !== undefined || typeof entry.registered.instance.isEnabled === 'function';
    this.gated = all.some((e) => e.gated);
    this.resourceList = Object.freeze([...resources.values()].map((e) => e.registered));
    this.promptList = Object.freeze([...prompts.values()].map((e) => e.registered));
  }

  allResources(): readonly RegisteredResource[] {
    return this.resourceList;
  }

  allPrompts(): readonly RegisteredPrompt[] {
    return this.promptList;
  }

  async visibleResources(context: AgentContext): Promise<RegisteredResource[]> {
    return (await this.admitted([...this.resources.values()], context)).map((e) => e.registered);
  }

  async visiblePrompts(context: AgentContext): Promise<RegisteredPrompt[]> {
    return (await this.admitted([...this.prompts.values()], context)).map((e) => e.registered);
  }

  /** `resources/read`: the fixed resource of that URI, else the first template that matches it. */
  async read(uri: string, context: AgentContext, memory: AgentMemory, options?: FeatureCallOptions): Promise<ResourceRead> {
    const { entry, values } = await this.resourceFor(uri, context);
    const { registered } = entry;
    const args = await parsed(entry, values, 'resource');
    const answer = await run<ResourceAnswer>('Resource', registered, () =>
      registered.instance.read(args as never, featureContext(context, registered.name, options), memory),
    );
    return { contents: [contents(uri, answer, registered)] };
  }

  /** Does this URI name a resource this caller may read (a fixed one, or a template's match)? */
  async has(uri: string, context: AgentContext): Promise<boolean> {
    return this.resourceFor(uri, context).then(
      () => true,
      (error: unknown) => {
        if (error instanceof ResourceNotFoundError) return false;
        throw error;
      },
    );
  }

  /** `prompts/get`: the prompt's messages for these arguments, every content part checked. */
  async get(
    name: string,
    args: string | object | undefined,
    context: AgentContext,
    memory: AgentMemory,
    options?: FeatureCallOptions,
  ): Promise<PromptRead> {
    const entry = this.prompts.get(name);
    if (entry === undefined || !(await this.allows(entry, context))) throw await this.promptNotFound(name, context);
    const { registered } = entry;
    const input = await parsed(entry, args ?? {}, 'prompt');
    const answer = await run<PromptAnswer>('Prompt', registered, () =>
      registered.instance.get(input as never, featureContext(context, name, options), memory),
    );
    return promptRead(answer, registered);
  }

  /**
   * `completion/complete`: the class's own `complete`, or the values an enum argument allows,
   * starting with what the user typed. Gated like a read: a hidden prompt completes nothing.
   */
  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: AgentContext,
    args: Record<string, string> = {},
  ): Promise<Completion> {
    const entry = await this.completionTarget(ref, context);
    const { registered } = entry;
    const declared = registered.arguments.find((a) => a.name === argument.name);
    if (declared === undefined) return { values: [], hasMore: false };
    const { instance } = registered;
    const values = instance.complete
      ? await run<readonly string[]>(registered.kind === 'prompt' ? 'Prompt' : 'Resource', registered, () =>
          instance.complete!(argument.name, argument.value, context, Object.freeze({ ...args })),
        )
      : (declared.enum ?? []).filter((v) => v.startsWith(argument.value));
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw new ToolOutputError(
        registered.name,
        [],
        'complete() must answer an array of strings',
        registered.kind === 'prompt' ? 'Prompt' : 'Resource',
      );
    }
    return { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS };
  }

  private async completionTarget(ref: CompletionRef, context: AgentContext): Promise<FeatureEntry> {
    if (ref.type === 'ref/prompt') {
      const entry = this.prompts.get(ref.name);
      if (entry === undefined || !(await this.allows(entry, context))) throw await this.promptNotFound(ref.name, context);
      return entry;
    }
    for (const entry of this.resources.values()) {
      const { uri, uriTemplate } = entry.registered;
      if ((uriTemplate === ref.uri || uri === ref.uri) && (await this.allows(entry, context))) return entry;
    }
    throw new ResourceNotFoundError(ref.uri);
  }

  private async resourceFor(uri: string, context: AgentContext): Promise<{ entry: FeatureEntry<RegisteredResource>; values: object }> {
    for (const entry of this.resources.values()) {
      if (entry.registered.uri === uri && (await this.allows(entry, context))) return { entry, values: {} };
    }
    for (const entry of this.resources.values()) {
      const values = entry.match?.(uri);
      if (values !== undefined && (await this.allows(entry, context))) return { entry, values };
    }
    throw new ResourceNotFoundError(uri);
  }

  private allows(entry: FeatureEntry, context: AgentContext): boolean | Promise<boolean> {
    return !entry.gated || permits(entry.registered, this.authorize, context);
  }

  private async admitted<E extends FeatureEntry>(entries: E[], context: AgentContext): Promise<E[]> {
    const shown: E[] = [];
    for (const entry of entries) if (await this.allows(entry, context)) shown.push(entry);
    return shown;
  }

  private async promptNotFound(name: string, context: AgentContext): Promise<PromptNotFoundError> {
    return new PromptNotFoundError(
      name,
      (await this.visiblePrompts(context)).map((p) => p.name),
    );
  }
}

/** The tool pipeline's verdict on the arguments, its errors worded for a resource or prompt. */
async function parsed(entry: FeatureEntry, raw: string | object, what: 'resource' | 'prompt'): Promise<object> {
  const input = await entry.parse(raw);
  if (!(input instanceof ToolInputError)) return input;
  const message = input.message.replace(/^Invalid arguments for tool/, `Invalid arguments for ${what}`);
  throw new ToolInputError(input.code as 'INVALID_ARGUMENTS', entry.registered.name, input.errors, message, input.omitted);
}

/** The call's context: its own call info (signal, log sink) when the surface gave one. */
function featureContext(context: AgentContext, name: string, options: FeatureCallOptions | undefined): AgentContext {
  if (options === undefined) return context;
  return context.forToolCall(callInfo(context, name, options, options.signal));
}

async function run<T>(
  what: 'Resource' | 'Prompt',
  registered: RegisteredResource | RegisteredPrompt,
  body: () => T | Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ToolwrightError) throw error;
    throw new ToolExecutionError(registered.name, error, registered.exposeErrors, what);
  }
}

/** A read's answer as MCP contents: text as declared, bytes as base64, any other value as JSON. */
function contents(uri: string, answer: ResourceAnswer, registered: RegisteredResource): EmbeddedResource {
  if (typeof answer === 'string') return { uri, mimeType: registered.mimeType ?? 'text/plain', text: answer };
  if (answer instanceof Uint8Array) {
    return {
      uri,
      mimeType: registered.mimeType ?? 'application/octet-stream',
      blob: Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength).toString('base64'),
    };
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(answer);
  } catch (error) {
    throw new ToolOutputError(registered.name, [], `read() answered a value JSON cannot carry (${(error as Error).message})`, 'Resource');
  }
  if (typeof text !== 'string')
    throw new ToolOutputError(registered.name, [], 'read() answered nothing: return text, bytes or a JSON value', 'Resource');
  return { uri, mimeType: registered.mimeType ?? 'application/json', text };
}

function promptRead(answer: PromptAnswer, registered: RegisteredPrompt): PromptRead {
  const bad = (detail: string): never => {
    throw new ToolOutputError(registered.name, [], detail, 'Prompt');
  };
  if (typeof answer === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: answer } }] };
  const list: unknown = Array.isArray(answer) ? answer : (answer as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list) || list.length === 0) return bad('get() must answer text, messages, or { messages }');
  const read: PromptRead = { messages: list.map((m: PromptMessage, i) => message(m, i, bad)) };
  const description = Array.isArray(answer) ? undefined : (answer as { description?: unknown }).description;
  if (typeof description === 'string') read.description = description;
  return read;
}

function message(m: PromptMessage, i: number, bad: (detail: string) => never): PromptRead['messages'][number] {
  if (m === null || typeof m !== 'object' || (m.role !== 'user' && m.role !== 'assistant'))
    return bad(`message ${i} needs role "user" or "assistant"`);
  if (typeof m.content === 'string') return { role: m.role, content: { type: 'text', text: m.content } };
  let part: ContentPart;
  try {
    part = ToolContent.of(m.content).parts[0];
  } catch (error) {
    return bad(`message ${i}: ${(error as Error).message}`);
  }
  return { role: m.role, content: part };
}
