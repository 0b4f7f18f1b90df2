import type { LogLevel } from '../session/tool-log';
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
  /**
   * Whose AgentMemory a call sees: `user` (default; the identity's, shared by its sessions) or
   * `session` (one memory per MCP session, removed with it). serveHttp uses `session` when no
   * auth hook identifies the caller, so anonymous clients never read each other's memory.
   */
  memoryScope?: 'user' | 'session';
  /**
   * The least severe level of `context.log` messages sent to the client (`notifications/message`).
   * Unset, none are sent until the client asks with `logging/setLevel`, which sets it for the session.
   */
  logLevel?: LogLevel;
  /**
   * Offer what needs the session's server to outlive a request (default true): `resources/subscribe`
   * (the session hears `registry.resourceUpdated(uri)`) and `list_changed` notifications.
   * serveHttp's stateless mode turns it off, since no server outlives its request there.
   */
  sessionNotifications?: boolean;
  /**
   * @internal MCP 2026-07-28: a call whose tool needed a client capability the client did not declare
   * (and did not recover) fails with -32021 instead of a tool error result.
   */
  missingCapabilityErrors?: boolean;
  /** Called when the client sets the level (serveHttp's stateless mode keeps it in the session's record). */
  onSetLogLevel?: (level: LogLevel) => void | Promise<void>;
}

/** The `AuthInfo.extra` key under which serveHttp hands the auth hook's identity to the server. */
export const IDENTITY_KEY = 'toolwright.identity';
