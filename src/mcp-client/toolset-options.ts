import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { ApprovalPolicy, RateLimit } from '../metadata/types';
import type { AgentContext } from '../session/agent-context';
import type { LogLevel, ToolLog } from '../session/tool-log';
import type { FeatureAuthorize } from './features';

/** What may be set for one remote tool, by its own name on the server. */
export interface RemoteToolOptions {
  /** Overrides the toolset's approval and the server's `destructiveHint` for this tool. */
  approval?: ApprovalPolicy;
  timeoutMs?: number;
  /** For catalogs and `authorize` (e.g. an `admin` tag the policy hides). */
  tags?: readonly string[];
  /** Calls allowed per caller and window, as `@Tool({ rateLimit })`. */
  rateLimit?: RateLimit | readonly RateLimit[];
}

/** Headers (or a stdio server's environment) for a caller: `undefined` when the registry itself lists the tools. */
export type CredentialResolver = (
  context: AgentContext | undefined,
) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;

export interface McpToolsetOptions {
  /** Names the server in messages and in `RegisteredTool.origin.source` (the command or URL host by default). */
  name?: string;
  /** Put before every remote tool's name, as is (`'fs_'` makes `read_file` `fs_read_file`). */
  prefix?: string;
  /**
   * The name the model sees for a remote tool's own name (before the prefix). By default the name
   * as is, any character providers refuse (MCP allows `.` and `/`) replaced by `_`.
   */
  rename?: (name: string) => string;
  /** Only these remote tools (by their own names), or those the function keeps. */
  include?: readonly string[] | ((name: string) => boolean);
  /** Never these remote tools (by their own names). */
  exclude?: readonly string[];
  /**
   * A human approves calls to every tool of this server first (a policy as `@Tool({ approval })`
   * takes). A tool the server marks `destructiveHint: true` needs one anyway; a hint never removes one.
   */
  approval?: ApprovalPolicy;
  /** Per remote tool (its own name): approval, timeout, tags. */
  tools?: Readonly<Record<string, RemoteToolOptions>>;
  /** The registry's timeout of each call (TOOL_TIMEOUT; the server is told the call was cancelled). */
  timeoutMs?: number;
  /** How long a request may go without an answer or progress before it fails (60 s by default). */
  requestTimeoutMs?: number;
  /** A result larger than this (bytes of JSON) is refused (4 MB by default). */
  maxResultBytes?: number;
  /** Closes an identity's connection unused this long (60 s by default). */
  idleMs?: number;
  /** Connection attempts before a call fails as unavailable (3), and the first backoff delay (200 ms, doubled each time). */
  reconnect?: { attempts?: number; backoffMs?: number };
  /** Keep the listing connection open to hear `tools/list_changed` (default true). */
  watch?: boolean;
  /** Asks the server for log messages at this level and above (`logging/setLevel`); they reach the calling tool's `context.log`. */
  logLevel?: LogLevel;
  /** Log messages that arrive while no call of that connection runs. */
  onLog?: (log: ToolLog & { server: string }) => void;
  /**
   * Which of the server's resources, templates and prompts a caller may list and read through the
   * toolset (`resources(context)`, `getPrompt(...)`…); hidden ones read as missing. Tools go through the registry's `authorize`.
   */
  authorize?: FeatureAuthorize;
  /** A tool left out (its name or schema cannot be served) or a refresh that failed. */
  onProblem?: (problem: string) => void;
}

export interface StdioToolsetOptions extends McpToolsetOptions {
  command: string;
  args?: readonly string[];
  /** The server's environment, added to a minimal default one; a function gives each caller their own process. */
  env?: Record<string, string> | CredentialResolver;
  cwd?: string;
}

export interface HttpToolsetOptions extends McpToolsetOptions {
  /** The Streamable HTTP endpoint. */
  url: string;
  /**
   * Headers of each request: fixed, or per caller from their context (a user's or tenant's token).
   * Callers with different headers never share a connection.
   */
  headers?: Record<string, string> | CredentialResolver;
  /**
   * OAuth 2.1 through the MCP SDK's `OAuthClientProvider` (PKCE, resource indicators, dynamic
   * client registration, token refresh are the SDK's): `provider` is asked for each new connection
   * of an identity, so keep its tokens in the provider's storage. `identity` names whose tokens they
   * are; owners never share a connection (`undefined` context: the registry listing the tools).
   */
  oauth?: {
    identity: (context: AgentContext | undefined) => string;
    provider: (context: AgentContext | undefined) => OAuthClientProvider;
  };
}
