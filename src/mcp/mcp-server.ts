import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ApprovalRequiredError, errorText, StoreUnavailableError, ToolAbortedError, ToolwrightError } from '../errors/errors';
import type { ToolContent } from '../content/tool-content';
import type { CallOptions } from '../registry/call-options';
import type { RegisteredTool, ToolRegistry } from '../registry/tool-registry';
import { toMcpTool } from '../schema/providers';
import type { AgentContext } from '../session/agent-context';
import type { LogLevel } from '../session/tool-log';
import type { AgentMemory } from '../session/agent-memory';
import { InMemoryStore } from '../stores/in-memory.store';
import type { SessionStore } from '../stores/store';
import { askApproval, rejected } from './approval';
import { endCancelled, errorResult, hasRequestStreams, logSender, progressSender, settleProgress } from './call-lifecycle';
import { contextOf, loadScope, saveScope } from './call-scope';
import { featureCapabilities, recheckLists, serveFeatures } from './features';
import { inputSinks } from './input-requests';
import { ListWatch } from './list-changed';
import { missingCapabilityError } from './missing-capability';
import { ParamsCheckedServer, sharedValidator } from './params-checked-server';
import type { McpServerOptions } from './server-options';
import { mcpSessionKeys } from './session-keys';
import { storeUnavailableRpcError } from './store-unavailable';

export { IDENTITY_KEY, type McpIdentity, type McpServerOptions } from './server-options';
export { mcpStoreKeys } from './session-keys';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What both handlers of one Server share. */
interface ServerParts {
  server: Server;
  registry: ToolRegistry;
  options: McpServerOptions;
  store: SessionStore;
  fallbackSessionId: string;
  onError: (error: unknown) => void;
  /** The session's log level: what the client set (`logging/setLevel`), or the option. */
  logLevel: LogLevel | undefined;
  /** What this session was shown, for `list_changed` (none in stateless serving). */
  lists: ListWatch | undefined;
}

/**
 * A low-level MCP `Server` that lists the registry's tools (JSON Schemas passed through unchanged,
 * annotations only as declared) and runs `tools/call` through `registry.call`, loading the
 * session's AgentContext and the user's AgentMemory from the store around each call.
 * Connect it to a transport yourself, or use `serveStdio` / `serveHttp`.
 */
export function createMcpServer(registry: ToolRegistry, options: McpServerOptions = {}): Server {
  const notifying = options.sessionNotifications !== false;
  const server = new ParamsCheckedServer(
    { name: options.name ?? 'toolwright', version: options.version ?? '0.0.0' },
    {
      capabilities: {
        tools: notifying && ListWatch.watched(registry).tools ? { listChanged: true } : {},
        logging: {},
        ...featureCapabilities(registry, notifying),
      },
      jsonSchemaValidator: sharedValidator,
    },
  );
  const parts: ServerParts = {
    server,
    registry,
    options,
    store: options.store ?? new InMemoryStore(),
    fallbackSessionId: options.sessionId ?? randomUUID(),
    onError:
      options.onError ??
      ((error: unknown) =>
        process.stderr.write(`toolwright mcp: ${describeError(error)}
`)),
    logLevel: options.logLevel,
    lists: notifying ? new ListWatch(registry) : undefined,
  };
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => listVisibleTools(parts, extra));
  server.setRequestHandler(SetLevelRequestSchema, (request) => setLogLevel(parts, request.params.level));
  // Registered under the method alone: the SDK parses a request with the handler's schema first, and a malformed
  // tools/call (arguments an array, no name) would get -32603 with a schema dump; the SDK's own tools/call check then
  // answers -32602 (Invalid params) with the reason, and the handler sees the arguments as sent.
  serveFeatures(parts, notifying);
  server.setRequestHandler(CallToolMethod, (raw, extra) => callTool(parts, raw as CallToolRequest, extra));
  return server;
}

const CallToolMethod = CallToolRequestSchema.pick({ method: true }).passthrough();

/** `logging/setLevel`: the session's level from now on (kept by the caller too, when it asked to be told). */
async function setLogLevel(parts: ServerParts, level: LogLevel): Promise<Record<string, never>> {
  try {
    await parts.options.onSetLogLevel?.(level);
  } catch (error) {
    parts.onError(error);
    if (error instanceof StoreUnavailableError) throw storeUnavailableRpcError();
    throw error;
  }
  parts.logLevel = level;
  return {};
}

/** Listing goes through the registry's gate: the caller sees only what it may call. */
async function listVisibleTools(parts: ServerParts, extra: Extra): Promise<ListToolsResult> {
  const { registry, store } = parts;
  // Read per request: a registry with remote tools gets a new list when a server's list changes.
  const { tools, toolByName } = registryTools(registry);
  if (!registry.gated) return { tools };
  const { key, identity } = mcpSessionKeys(extra, parts.options, parts.fallbackSessionId);
  try {
    const context = contextOf(await store.loadSession(key), key, identity);
    const visible = await registry.visible(context);
    parts.lists?.saw(
      'tools',
      visible.map((t) => t.name),
    );
    return { tools: visible.map((t) => toolByName.get(t.name)!) };
  } catch (error) {
    parts.onError(error);
    // An empty list would read as "no tools" (and be cached as such): an outage says to try again.
    if (error instanceof StoreUnavailableError) throw storeUnavailableRpcError();
    return { tools: [] };
  }
}

/** tools/call: load what the tool may read, ask for approval if it needs one, run it, save what it wrote. */
async function callTool(parts: ServerParts, request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
  const { name } = request.params;
  const progress = progressSender(extra._meta?.progressToken, extra.sendNotification);
  const log = logSender(parts.logLevel, name, extra.sendNotification);
  try {
    const scope = await loadScope(parts, extra, registryTools(parts.registry).byName.get(name)?.memory === true);
    const { context, memory } = scope;
    let text: string | CallToolResult;
    let content: ToolContent | undefined;
    const sinks = {
      onProgress: progress?.send,
      onLog: log?.send,
      onContent: (c: ToolContent) => (content = c),
      ...inputSinks(parts.server, extra.sendRequest),
    };
    try {
      text = await approveAndRun(parts, request, extra, context, memory, sinks);
    } finally {
      // Progress and logs stop with the call (MCP: no progress after the response).
      progress?.stop();
      log?.stop();
      // What the tool wrote before failing is kept, as it would be in an agent turn.
      await saveScope(parts.store, scope);
      await recheckLists(parts, context, extra);
      if (progress?.sent && !hasRequestStreams(parts.server)) await settleProgress(extra.sendRequest);
    }
    if (typeof text !== 'string') return text;
    // A ToolContent result's parts as they are; any other result is its JSON text.
    const result: CallToolResult = { content: content ? [...content.parts] : [{ type: 'text', text }] };
    if (registryTools(parts.registry).toolByName.get(name)?.outputSchema)
      result.structuredContent = JSON.parse(text) as Record<string, unknown>;
    return result;
  } catch (error) {
    const missing = parts.options.missingCapabilityErrors ? missingCapabilityError(error) : undefined;
    if (missing) throw missing;
    // Cancelled while waiting for a human or the store: no failure to report (and no response goes out).
    return errorResult(extra.signal.aborted ? new ToolAbortedError(name, extra.signal.reason) : error, parts.onError);
  } finally {
    if (extra.signal.aborted) endCancelled(parts.server, extra.requestId);
  }
}

/** Runs the call; a tool that needs a human asks through the client first (the rejection is the result). */
async function approveAndRun(
  parts: ServerParts,
  request: CallToolRequest,
  extra: Extra,
  context: AgentContext,
  memory: AgentMemory,
  sinks: Pick<CallOptions, 'onProgress' | 'onLog' | 'onContent' | 'onElicit' | 'onSample' | 'onRoots'>,
): Promise<string | CallToolResult> {
  const { registry, server } = parts;
  const { name } = request.params;
  let args: string | object = request.params.arguments ?? {};
  let approved = false;
  if (registry.has(name) && registry.describe(name).approval !== undefined) {
    const check = await registry.check(name, args, context);
    if (check.approvalRequired) {
      // A human decides through the client (elicitation); a client that cannot ask gets APPROVAL_REQUIRED.
      if (!server.getClientCapabilities()?.elicitation) throw new ApprovalRequiredError(name);
      const decision = await askApproval(name, check.input, extra.sendRequest, extra.signal);
      if (!decision.approve) return rejected(name, decision.reason);
      if (decision.arguments !== undefined) args = decision.arguments;
      approved = true;
    }
  }
  return registry.call(name, args, context, memory, { toolCallId: String(extra.requestId), signal: extra.signal, approved, ...sinks });
}

/**
 * A registry's MCP tool list, made once per tool list, not once per MCP session: the list changes
 * only when remote tools do (`definitions()` is then a new array).
 */
const toolLists = new WeakMap<
  ToolRegistry,
  { of: readonly unknown[]; tools: Tool[]; toolByName: Map<string, Tool>; byName: Map<string, RegisteredTool> }
>();

function registryTools(registry: ToolRegistry) {
  let lists = toolLists.get(registry);
  if (lists?.of !== registry.definitions()) {
    const tools = listTools(registry);
    lists = {
      of: registry.definitions(),
      tools,
      toolByName: new Map(tools.map((t) => [t.name, t])),
      byName: new Map(registry.tools().map((t) => [t.name, t])),
    };
    toolLists.set(registry, lists);
  }
  return lists;
}

/** tools/list entries: toMcpTool's schemas plus the annotations a tool declared, and nothing it did not. */
function listTools(registry: ToolRegistry): Tool[] {
  return registry.tools().map((registered) => {
    const tool: Tool = { ...toMcpTool(registered.definition) };
    if (registered.mcpHeaders) tool.inputSchema = withHeaders(tool.inputSchema, registered.mcpHeaders);
    const declared = Object.fromEntries(Object.entries(registered.annotations ?? {}).filter(([, v]) => v !== undefined));
    if (Object.keys(declared).length > 0) tool.annotations = declared;
    if (typeof declared.title === 'string') tool.title = declared.title;
    if (registered.task) tool.execution = { taskSupport: registered.task.support };
    return tool;
  });
}

/** The input schema with each mirrored argument marked `x-mcp-header` (SEP-2243), for MCP only. */
function withHeaders(schema: Tool['inputSchema'], headers: Readonly<Record<string, string>>): Tool['inputSchema'] {
  const properties = { ...schema.properties } as Record<string, object>;
  for (const [name, header] of Object.entries(headers)) properties[name] = { ...properties[name], 'x-mcp-header': header };
  return { ...schema, properties };
}

function describeError(error: unknown): string {
  if (error instanceof ToolwrightError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? (error.stack ?? error.message) : errorText(error);
}
