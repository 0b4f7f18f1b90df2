import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AnyObjectSchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  EmptyResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ElicitRequest,
  type Notification,
  type Request,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  ApprovalRequiredError,
  encodeToolError,
  errorText,
  StoreUnavailableError,
  ToolAbortedError,
  ToolwrightError,
} from '../errors/errors';
import type { RegisteredTool, ToolRegistry } from '../registry/tool-registry';
import { toMcpTool } from '../schema/providers';
import { AgentContext, type ToolProgress } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { MemoryKey, SessionKey, SessionSnapshot } from '../session/snapshots';
import { saveTurn } from '../stores/save-turn';
import { InMemoryStore } from '../stores/in-memory.store';
import type { SessionStore } from '../stores/store';
import { storeUnavailableResult, storeUnavailableRpcError } from './store-unavailable';

/** Who is calling: what an auth hook returns for an accepted request. */
export interface McpIdentity {
  userId: string;
  tenantId?: string;
}

export interface McpServerOptions {
  /** Server name announced in `initialize` (default `toolwright`). */
  name?: string;
  /** Server version announced in `initialize` (default `0.0.0`). */
  version?: string;
  /** Where each MCP session's AgentContext and each user's AgentMemory live (default: a fresh InMemoryStore). */
  store?: SessionStore;
  /** The agent name that scopes AgentMemory (default `mcp`). */
  agentName?: string;
  /**
   * The identity used when the transport carries none (stdio, or HTTP without an auth hook).
   * Default: userId `anonymous`, no tenant.
   */
  identity?: McpIdentity;
  /** The session id used when the transport has none (stdio). Default: a random UUID per server. */
  sessionId?: string;
  /** Called with failures that are not the model's to fix (a store that is down, a bug); default: stderr. */
  onError?: (error: unknown) => void;
  /**
   * Whose AgentMemory a call sees: `user` (default; the identity's, shared by its sessions) or
   * `session` (one memory per MCP session, removed with it). serveHttp uses `session` when no
   * auth hook identifies the caller, so anonymous clients never read each other's memory.
   */
  memoryScope?: 'user' | 'session';
}

/** The `AuthInfo.extra` key under which serveHttp hands the auth hook's identity to the server. */
export const IDENTITY_KEY = 'toolwright.identity';

/**
 * A low-level MCP `Server` that lists the registry's tools (JSON Schemas passed through unchanged,
 * annotations only as declared) and runs `tools/call` through `registry.call`, loading the
 * session's AgentContext and the user's AgentMemory from the store around each call.
 * Connect it to a transport yourself, or use `serveStdio` / `serveHttp`.
 */
export function createMcpServer(registry: ToolRegistry, options: McpServerOptions = {}): Server {
  const store = options.store ?? new InMemoryStore();
  const fallbackSessionId = options.sessionId ?? randomUUID();
  const onError = options.onError ?? ((error: unknown) => process.stderr.write(`toolwright mcp: ${describeError(error)}\n`));
  const { tools, toolByName, byName } = registryTools(registry);

  const server = new ParamsCheckedServer(
    { name: options.name ?? 'toolwright', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} }, jsonSchemaValidator: sharedValidator },
  );

  // Listing goes through the registry's gate: the caller sees only what it may call.
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    if (!registry.gated) return { tools };
    const { key, identity } = mcpSessionKeys(extra, options, fallbackSessionId);
    try {
      const snapshot = await store.loadSession(key);
      const context = snapshot
        ? AgentContext.fromSnapshot(snapshot, identity.userId)
        : new AgentContext({ sessionId: key.sessionId, userId: identity.userId, tenantId: identity.tenantId });
      return { tools: (await registry.visible(context)).map((t) => toolByName.get(t.name)!) };
    } catch (error) {
      onError(error);
      // An empty list would read as "no tools" (and be cached as such): an outage says to try again.
      if (error instanceof StoreUnavailableError) throw storeUnavailableRpcError();
      return { tools: [] };
    }
  });

  // Registered under the method alone: the SDK parses a request with the handler's schema first, and a malformed
  // tools/call (arguments an array, no name) would get -32603 with a schema dump; the SDK's own tools/call check then
  // answers -32602 (Invalid params) with the reason, and the handler sees the arguments as sent.
  server.setRequestHandler(CallToolMethod, async (raw, extra): Promise<CallToolResult> => {
    const request = raw as CallToolRequest;
    const { name } = request.params;
    let args: string | object = request.params.arguments ?? {};
    const { key, memoryKey, identity } = mcpSessionKeys(extra, options, fallbackSessionId);
    const progress = progressSender(extra._meta?.progressToken, extra.sendNotification);
    try {
      // What the tool can read: state always, memory when it declares so; never the history (a call adds to it at most).
      const readsMemory = byName.get(name)?.memory === true;
      const [snapshot, memorySnapshot] = await Promise.all([
        store.loadSession(key, { historyLimit: 0 }),
        readsMemory ? store.loadMemory(memoryKey) : undefined,
      ]);
      const context = snapshot
        ? AgentContext.fromSnapshot(snapshot, identity.userId)
        : new AgentContext({ sessionId: key.sessionId, userId: identity.userId, tenantId: identity.tenantId });
      const memory = !readsMemory
        ? AgentMemory.unloaded(memoryKey)
        : memorySnapshot
          ? AgentMemory.fromSnapshot(memorySnapshot)
          : new AgentMemory(memoryKey);
      let text: string;
      try {
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
        text = await registry.call(name, args, context, memory, {
          toolCallId: String(extra.requestId),
          signal: extra.signal,
          approved,
          onProgress: progress?.send,
        });
      } finally {
        // Progress stops with the call (MCP: none after the response).
        progress?.stop();
        // What the tool wrote before failing is kept, as it would be in an agent turn.
        await save(store, key, memoryKey, context, memory, snapshot, identity.userId);
        if (progress?.sent && !hasRequestStreams(server)) await settleProgress(extra.sendRequest);
      }
      const result: CallToolResult = { content: [{ type: 'text', text }] };
      if (toolByName.get(name)?.outputSchema) result.structuredContent = JSON.parse(text) as Record<string, unknown>;
      return result;
    } catch (error) {
      // Cancelled while waiting for a human or the store: no failure to report (and no response goes out).
      return errorResult(extra.signal.aborted ? new ToolAbortedError(name, extra.signal.reason) : error, onError);
    } finally {
      if (extra.signal.aborted) endCancelled(server, extra.requestId);
    }
  });

  return server;
}

/**
 * `notifications/progress` for one request whose client sent `_meta.progressToken`. MCP wants
 * `progress` to increase with each notification: a value that does not (or is not a finite
 * number) is dropped, as is anything reported after the call ended.
 */
function progressSender(
  token: string | number | undefined,
  sendNotification: (notification: ServerNotification) => Promise<void>,
): { send: (progress: ToolProgress) => void; stop: () => void; readonly sent: boolean } | undefined {
  if (token === undefined) return undefined;
  let last = -Infinity;
  let open = true;
  return {
    get sent() {
      return last !== -Infinity;
    },
    send: ({ progress, total, message }) => {
      if (!open || typeof progress !== 'number' || !Number.isFinite(progress) || progress <= last) return;
      last = progress;
      const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
        progressToken: token,
        progress,
      };
      if (typeof total === 'number' && Number.isFinite(total)) params.total = total;
      if (typeof message === 'string') params.message = message;
      // Sent on the request's own stream; a connection gone meanwhile is not the tool's failure.
      sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
    },
    stop: () => {
      open = false;
    },
  };
}

/** Streamable HTTP: each request has its own SSE stream, which the client reads one event at a time. */
function hasRequestStreams(server: Server): boolean {
  return typeof (server.transport as { closeSSEStream?: unknown } | undefined)?.closeSSEStream === 'function';
}

/**
 * The SDK client handles a notification a microtask later but a response at once, and forgets a
 * request's progress handler with its response: progress read in the same chunk as the response
 * (stdio, a loaded client) is dropped (modelcontextprotocol/typescript-sdk#2580). A ping answered
 * before the response goes out means the client has handled every notification sent before it.
 * Bounded, and only for calls that sent progress.
 */
async function settleProgress(
  sendRequest: (request: { method: 'ping' }, schema: typeof EmptyResultSchema, options?: { timeout?: number }) => Promise<unknown>,
): Promise<void> {
  await sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: 2_000 }).catch(() => undefined);
}

/**
 * A cancelled request gets no response (MCP), so on Streamable HTTP its SSE stream would stay
 * open, and the HTTP request with it, until the session ends: close it. Other transports have
 * nothing to close.
 */
function endCancelled(server: Server, requestId: string | number): void {
  const transport = server.transport as { closeSSEStream?: (id: string | number) => void } | undefined;
  try {
    transport?.closeSSEStream?.(requestId);
  } catch {
    // Closed already.
  }
}

const CallToolMethod = CallToolRequestSchema.pick({ method: true }).passthrough();

/** Schemas that match a request by its method alone (one a method, shared by every session's Server). */
const methodOnly = new Map<string, AnyObjectSchema>();

/**
 * A Server whose requests with params their schema refuses get -32602 (Invalid params), as JSON-RPC
 * says. The SDK parses a request with its handler's schema before the handler runs and answers a
 * failure -32603 (Internal error) with the validation dump. Every handler, the SDK's own
 * `initialize` and `ping` included (registered from its constructors), is registered under its
 * method alone and checks its params here. `tools/call` is left to the SDK, which checks it the same way.
 */
class ParamsCheckedServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(
    schema: T,
    handler: (
      request: SchemaOutput<T>,
      extra: RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>,
    ) => ServerResult | Result | Promise<ServerResult | Result>,
  ): void {
    const method = (schema as unknown as z.ZodObject<{ method: z.ZodLiteral<string> }>).shape.method.value;
    if (method === 'tools/call') return super.setRequestHandler(schema, handler);
    let byMethod = methodOnly.get(method);
    if (!byMethod) methodOnly.set(method, (byMethod = z.object({ method: z.literal(method) }).passthrough()));
    const full = schema as unknown as z.ZodType<SchemaOutput<T>>;
    super.setRequestHandler(byMethod, (request, extra) => {
      const parsed = full.safeParse(request);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : ''; // as stdio.ts: a path may hold symbols
        throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} request${where}: ${issue?.message ?? 'refused'}`);
      }
      if (method === 'initialize') {
        // One session, one initialize (the stateful HTTP transport refuses it the same way).
        if (initialized.has(this)) throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
        initialized.add(this);
      }
      return handler(parsed.data, extra);
    });
  }
}

/** Servers that answered their initialize (module-level: the SDK registers handlers before subclass fields exist). */
const initialized = new WeakSet<Server>();

let sharedAjv: Ajv | undefined;

/**
 * One JSON Schema validator for every session's Server (the SDK builds an Ajv per Server, a good
 * part of session setup). The SDK uses it only for elicitation schemas; each is compiled once and
 * removed from Ajv's cache, so the shared instance does not grow with sessions.
 */
const sharedValidator: jsonSchemaValidator = {
  getValidator(schema) {
    const ajv = (sharedAjv ??= addFormats(new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true })));
    const validate = ajv.compile(schema as object);
    ajv.removeSchema(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as never, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  },
};

/** tools/list entries: toMcpTool's schemas plus the annotations a tool declared, and nothing it did not. */
/** A registry never changes once built: its MCP tool list is made once, not once per MCP session. */
const toolLists = new WeakMap<ToolRegistry, { tools: Tool[]; toolByName: Map<string, Tool>; byName: Map<string, RegisteredTool> }>();

function registryTools(registry: ToolRegistry) {
  let lists = toolLists.get(registry);
  if (!lists) {
    const tools = listTools(registry);
    lists = { tools, toolByName: new Map(tools.map((t) => [t.name, t])), byName: new Map(registry.tools().map((t) => [t.name, t])) };
    toolLists.set(registry, lists);
  }
  return lists;
}

function listTools(registry: ToolRegistry): Tool[] {
  return registry.tools().map((registered) => {
    const tool: Tool = { ...toMcpTool(registered.definition) };
    const declared = Object.fromEntries(Object.entries(registered.annotations ?? {}).filter(([, v]) => v !== undefined));
    if (Object.keys(declared).length > 0) tool.annotations = declared;
    if (typeof declared.title === 'string') tool.title = declared.title;
    return tool;
  });
}

type Decision = { approve: true; arguments?: string } | { approve: false; reason: string };

/** The approval form: approve or reject, a reason, and optionally edited arguments (validated again before the call runs). */
async function askApproval(
  name: string,
  input: object,
  sendRequest: (
    request: ElicitRequest,
    schema: typeof ElicitResultSchema,
    options?: { signal?: AbortSignal },
  ) => Promise<{ action: string; content?: Record<string, unknown> }>,
  signal: AbortSignal,
): Promise<Decision> {
  const shown = JSON.stringify(input, null, 2);
  const result = await sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `Tool "${name}" needs your approval to run with these arguments:\n${shown}`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
            reason: { type: 'string', title: 'Reason', description: 'Why the call is rejected (shown to the model).' },
            arguments: {
              type: 'string',
              title: 'Edited arguments',
              description: 'Optional: the arguments to run with instead, as a JSON object.',
            },
          },
          required: ['decision'],
        },
      },
    },
    ElicitResultSchema,
    // A cancelled call stops waiting for the human too.
    { signal },
  );
  const content = result.content ?? {};
  if (result.action !== 'accept' || content.decision !== 'approve') {
    const reason =
      typeof content.reason === 'string' && content.reason
        ? content.reason
        : `the user chose ${result.action === 'accept' ? 'reject' : result.action}`;
    return { approve: false, reason };
  }
  const edited = typeof content.arguments === 'string' && content.arguments.trim() ? content.arguments : undefined;
  return edited === undefined ? { approve: true } : { approve: true, arguments: edited };
}

function rejected(name: string, reason: string): CallToolResult {
  const text = encodeToolError('REJECTED', `A human rejected this call of "${name}": ${reason}`);
  return { content: [{ type: 'text', text }], isError: true };
}

/** The store keys of one MCP session's context and memory, for a call and for cleaning up after it ends. */
export function mcpStoreKeys(
  sessionId: string,
  identity: McpIdentity,
  options: Pick<McpServerOptions, 'agentName' | 'memoryScope'>,
): { key: SessionKey; memoryKey: MemoryKey } {
  const memoryUser = options.memoryScope === 'session' ? `mcp-session:${sessionId}` : identity.userId;
  return {
    key: { sessionId, tenantId: identity.tenantId },
    memoryKey: { agentName: options.agentName ?? 'mcp', userId: memoryUser, tenantId: identity.tenantId },
  };
}

function mcpSessionKeys(
  extra: { authInfo?: AuthInfo; sessionId?: string },
  options: McpServerOptions,
  fallbackSessionId: string,
): { key: SessionKey; memoryKey: MemoryKey; identity: McpIdentity } {
  const identity = identityOf(extra.authInfo) ?? options.identity ?? { userId: 'anonymous' };
  return { ...mcpStoreKeys(extra.sessionId ?? fallbackSessionId, identity, options), identity };
}

function identityOf(auth: AuthInfo | undefined): McpIdentity | undefined {
  const value = auth?.extra?.[IDENTITY_KEY] as McpIdentity | undefined;
  return value && typeof value.userId === 'string' ? value : undefined;
}

async function save(
  store: SessionStore,
  key: SessionKey,
  memoryKey: MemoryKey,
  context: AgentContext,
  memory: AgentMemory,
  loaded: SessionSnapshot | undefined,
  userId: string | undefined,
): Promise<void> {
  const changes = context.takeChanges();
  // A call that changed nothing costs no write (the userId is only news for a new session).
  if (changes.userId === loaded?.userId) delete changes.userId;
  // Written only while the session still has the owner this call loaded it with (or, new, this caller).
  const owner = loaded ? (loaded.userId ?? null) : (userId ?? null);
  // One unit: a call whose save fails leaves neither the session nor the memory written.
  await saveTurn(store, { key, changes: { ...changes, owner } }, { key: memoryKey, changes: memory.takeChanges() });
}

/** Call errors go back as `isError` results carrying the same compact JSON the agent runner shows a model. */
function errorResult(error: unknown, onError: (error: unknown) => void): CallToolResult {
  let text: string;
  if (error instanceof StoreUnavailableError) {
    onError(error);
    return storeUnavailableResult();
  } else if (error instanceof ToolwrightError) {
    if (error.code === 'TOOL_FAILED' || error.code === 'INVALID_OUTPUT') onError(error);
    text = error.toToolResult();
  } else {
    onError(error);
    text = encodeToolError('INTERNAL', 'The tool server failed unexpectedly.');
  }
  return { content: [{ type: 'text', text }], isError: true };
}

function describeError(error: unknown): string {
  if (error instanceof ToolwrightError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? (error.stack ?? error.message) : errorText(error);
}
