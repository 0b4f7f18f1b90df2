import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { encodeToolError, StoreUnavailableError, ToolwrightError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import { toMcpTool } from '../schema/providers';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import { isEmptyMemoryChanges, isEmptySessionChanges, type SessionKey } from '../session/snapshots';
import { InMemoryStore } from '../stores/in-memory.store';
import type { SessionStore } from '../stores/store';

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
  const agentName = options.agentName ?? 'mcp';
  const fallbackSessionId = options.sessionId ?? randomUUID();
  const onError = options.onError ?? ((error: unknown) => process.stderr.write(`toolwright mcp: ${describeError(error)}\n`));
  const tools = listTools(registry);

  const server = new Server(
    { name: options.name ?? 'toolwright', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const identity = identityOf(extra.authInfo) ?? options.identity ?? { userId: 'anonymous' };
    const key: SessionKey = { sessionId: extra.sessionId ?? fallbackSessionId, tenantId: identity.tenantId };
    const memoryKey = { agentName, userId: identity.userId, tenantId: identity.tenantId };
    try {
      const [snapshot, memorySnapshot] = await Promise.all([store.loadSession(key), store.loadMemory(memoryKey)]);
      const context = snapshot
        ? AgentContext.fromSnapshot(snapshot, identity.userId)
        : new AgentContext({ sessionId: key.sessionId, userId: identity.userId, tenantId: identity.tenantId });
      const memory = memorySnapshot ? AgentMemory.fromSnapshot(memorySnapshot) : new AgentMemory(memoryKey);
      let text: string;
      try {
        text = await registry.call(name, args ?? {}, context, memory, { toolCallId: String(extra.requestId), signal: extra.signal });
      } finally {
        // What the tool wrote before failing is kept, as it would be in an agent turn.
        await save(store, key, memoryKey, context, memory, snapshot?.userId);
      }
      const result: CallToolResult = { content: [{ type: 'text', text }] };
      if (tools.find((t) => t.name === name)?.outputSchema) result.structuredContent = JSON.parse(text) as Record<string, unknown>;
      return result;
    } catch (error) {
      return errorResult(error, onError);
    }
  });

  return server;
}

/** tools/list entries: toMcpTool's schemas plus the annotations a tool declared, and nothing it did not. */
function listTools(registry: ToolRegistry): Tool[] {
  return registry.tools().map((registered) => {
    const tool: Tool = { ...toMcpTool(registered.definition) } as Tool;
    const declared = Object.fromEntries(Object.entries(registered.annotations ?? {}).filter(([, v]) => v !== undefined));
    if (Object.keys(declared).length > 0) tool.annotations = declared;
    if (typeof declared.title === 'string') tool.title = declared.title;
    return tool;
  });
}

function identityOf(auth: AuthInfo | undefined): McpIdentity | undefined {
  const value = auth?.extra?.[IDENTITY_KEY] as McpIdentity | undefined;
  return value && typeof value.userId === 'string' ? value : undefined;
}

async function save(
  store: SessionStore,
  key: SessionKey,
  memoryKey: { agentName: string; userId: string; tenantId?: string },
  context: AgentContext,
  memory: AgentMemory,
  storedUserId: string | undefined,
): Promise<void> {
  const changes = context.takeChanges();
  // A call that changed nothing costs no write (the userId is only news for a new session).
  if (changes.userId === storedUserId) delete changes.userId;
  const memoryChanges = memory.takeChanges();
  await Promise.all([
    isEmptySessionChanges(changes) ? undefined : store.saveSession(key, changes),
    isEmptyMemoryChanges(memoryChanges) ? undefined : store.saveMemory(memoryKey, memoryChanges),
  ]);
}

/** Call errors go back as `isError` results carrying the same compact JSON the agent runner shows a model. */
function errorResult(error: unknown, onError: (error: unknown) => void): CallToolResult {
  let text: string;
  if (error instanceof StoreUnavailableError) {
    onError(error);
    text = encodeToolError(error.code, 'Session storage is unavailable; try again later.');
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
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
