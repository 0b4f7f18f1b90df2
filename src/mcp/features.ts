import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { StoreUnavailableError, ToolInputError, ToolwrightError } from '../errors/errors';
import { PromptNotFoundError, ResourceNotFoundError } from '../errors/feature-errors';
import type { ToolRegistry } from '../registry/tool-registry';
import type { RegisteredPrompt, RegisteredResource } from '../registry/registered-feature';
import type { AgentContext } from '../session/agent-context';
import type { LogLevel } from '../session/tool-log';
import { contextOf, loadScope, saveScope, type CallScope, type ScopeSource } from './call-scope';
import { logSender } from './call-lifecycle';
import { inputSinks } from './input-requests';
import { ListWatch } from './list-changed';
import { mcpSessionKeys } from './session-keys';
import { storeUnavailableRpcError } from './store-unavailable';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

/** What the feature handlers share with the tool handlers of one Server. */
export interface FeatureParts extends ScopeSource {
  server: Server;
  registry: ToolRegistry;
  onError: (error: unknown) => void;
  logLevel: LogLevel | undefined;
  lists: ListWatch | undefined;
}

/** The capabilities the registry's resources and prompts need (none when it has none). */
export function featureCapabilities(registry: ToolRegistry, notifying: boolean): ServerCapabilities {
  const resources = registry.resources();
  const watched = ListWatch.watched(registry);
  const capabilities: ServerCapabilities = {};
  if (resources.length > 0) capabilities.resources = notifying ? { subscribe: true, ...(watched.resources && { listChanged: true }) } : {};
  if (registry.prompts().length > 0) capabilities.prompts = notifying && watched.prompts ? { listChanged: true } : {};
  if (registry.prompts().length > 0 || resources.some((r) => r.kind === 'resourceTemplate')) capabilities.completions = {};
  return capabilities;
}

/** resources/*, prompts/* and completion/complete, each through the registry's gate with the caller's identity. */
export function serveFeatures(parts: FeatureParts, subscriptions: boolean): void {
  const { server, registry } = parts;
  const capabilities = featureCapabilities(registry, subscriptions);
  // Which requests load the caller's memory: decided once, from what the classes declared.
  const resourcesReadMemory = registry.resources().some((r) => r.memory);
  const promptsReadingMemory = new Set(
    registry
      .prompts()
      .filter((p) => p.memory)
      .map((p) => p.name),
  );
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) =>
      listed(parts, extra, async (scope) => ({
        resources: (await shownResources(parts, scope)).filter((r) => r.kind === 'resource').map(resourceEntry),
      })),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (_request, extra) =>
      listed(parts, extra, async (scope) => ({
        resourceTemplates: (await shownResources(parts, scope)).filter((r) => r.kind === 'resourceTemplate').map(templateEntry),
      })),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      scoped(parts, extra, resourcesReadMemory, async (scope) => {
        const log = logSender(parts.logLevel, request.params.uri, extra.sendNotification);
        try {
          const read = await registry.readResource(request.params.uri, scope.context, scope.memory, {
            signal: extra.signal,
            onLog: log?.send,
          });
          return { ...read };
        } finally {
          log?.stop();
        }
      }),
    );
    if (subscriptions) watchSubscriptions(parts);
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (_request, extra) =>
      listed(parts, extra, async (scope) => {
        const prompts = await registry.visiblePrompts(scope.context);
        if (registry.featuresGated)
          parts.lists?.saw(
            'prompts',
            prompts.map((p) => p.name),
          );
        return { prompts: prompts.map(promptEntry) };
      }),
    );
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      scoped(parts, extra, promptsReadingMemory.has(request.params.name), async (scope) => {
        const { name, arguments: args } = request.params;
        const log = logSender(parts.logLevel, name, extra.sendNotification);
        try {
          const read = await registry.getPrompt(name, args, scope.context, scope.memory, {
            signal: extra.signal,
            onLog: log?.send,
            ...inputSinks(server, extra.sendRequest),
          });
          return { ...read };
        } finally {
          log?.stop();
        }
      }),
    );
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
      scoped(parts, extra, false, async (scope) => {
        const { ref, argument, context } = request.params;
        const target = ref.type === 'ref/prompt' ? { type: ref.type, name: ref.name } : { type: 'ref/resource' as const, uri: ref.uri };
        return { completion: await registry.complete(target, argument, scope.context, context?.arguments) };
      }),
    );
  }
}

/** resources/subscribe and unsubscribe: this session hears `registry.resourceUpdated(uri)` for the URIs it subscribed to. */
function watchSubscriptions(parts: FeatureParts): void {
  const { server, registry } = parts;
  const subscribed = new Set<string>();
  let stop: (() => void) | undefined;
  server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
    scoped(parts, extra, false, async (scope) => {
      const { uri } = request.params;
      // Only what this caller could read: subscribing to a hidden or unknown URI is refused as reading it would be.
      if (!(await registry.hasResource(uri, scope.context))) throw new ResourceNotFoundError(uri);
      subscribed.add(uri);
      stop ??= registry.onResourceUpdated((changed) => {
        if (subscribed.has(changed)) server.sendResourceUpdated({ uri: changed }).catch(parts.onError);
      });
      return {};
    }),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  const closed = server.onclose;
  server.onclose = () => {
    stop?.();
    closed?.();
  };
}

/** The resources and templates this caller may see, noted for `list_changed` (templates and resources are one list there). */
async function shownResources(parts: FeatureParts, scope: Pick<CallScope, 'context'>): Promise<RegisteredResource[]> {
  const visible = await parts.registry.visibleResources(scope.context);
  if (parts.registry.featuresGated)
    parts.lists?.saw(
      'resources',
      visible.map((r) => r.name),
    );
  return visible;
}

/** After a request, with the state it left: the `list_changed` notifications it caused (a failure here fails nothing). */
export async function recheckLists(parts: Pick<FeatureParts, 'lists' | 'onError'>, context: AgentContext, extra: Extra): Promise<void> {
  try {
    await parts.lists?.recheck(context, extra.sendNotification);
  } catch (error) {
    parts.onError(error);
  }
}

/**
 * A list answer: hidden entries are left out; a store outage says to try again (an empty list
 * would be cached). A list that is the same for every caller needs no session: no store read, as tools/list.
 */
async function listed<T>(parts: FeatureParts, extra: Extra, list: (scope: Pick<CallScope, 'context'>) => Promise<T>): Promise<T> {
  if (parts.registry.featuresGated) return scoped(parts, extra, false, list);
  const { key, identity } = mcpSessionKeys(extra, parts.options, parts.fallbackSessionId);
  return list({ context: contextOf(undefined, key, identity) });
}

/** Loads the caller's scope, runs the request, keeps what it wrote, and answers failures as JSON-RPC errors. */
async function scoped<T>(parts: FeatureParts, extra: Extra, memory: boolean, body: (scope: CallScope) => Promise<T>): Promise<T> {
  try {
    const scope = await loadScope(parts, extra, memory);
    try {
      return await body(scope);
    } finally {
      await saveScope(parts.store, scope);
      await recheckLists(parts, scope.context, extra);
    }
  } catch (error) {
    throw rpcError(error, parts.onError);
  }
}

/** A failure as the JSON-RPC error MCP names for it; what is not the client's to fix is reported, and redacted. */
function rpcError(error: unknown, onError: (error: unknown) => void): McpError {
  if (error instanceof ResourceNotFoundError)
    return new McpError(RESOURCE_NOT_FOUND, error.message, { code: error.code, uri: error.uri.slice(0, 200) });
  if (error instanceof PromptNotFoundError) return new McpError(ErrorCode.InvalidParams, error.message, { code: error.code });
  if (error instanceof ToolInputError)
    return new McpError(ErrorCode.InvalidParams, error.message, { code: error.code, errors: error.errors });
  onError(error);
  if (error instanceof StoreUnavailableError) return storeUnavailableRpcError();
  if (error instanceof ToolwrightError) {
    const { message } = JSON.parse(error.toToolResult()) as { message: string };
    return new McpError(ErrorCode.InternalError, message, { code: error.code });
  }
  return new McpError(ErrorCode.InternalError, 'Internal error.');
}

function resourceEntry(r: RegisteredResource) {
  return defined({ uri: r.uri!, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType });
}

function templateEntry(r: RegisteredResource) {
  return defined({ uriTemplate: r.uriTemplate!, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType });
}

function promptEntry(p: RegisteredPrompt) {
  return defined({
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: p.arguments.map((a) => defined({ name: a.name, description: a.description, required: a.required })),
  });
}

/** The object without its undefined fields (MCP lists only what is declared). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
