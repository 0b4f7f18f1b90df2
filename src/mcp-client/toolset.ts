import { errorText, ToolwrightConfigError } from '../errors/errors';
import type { ApprovalPolicy, ToolAnnotations } from '../metadata/types';
import type { JsonSchema } from '../metadata/json-schema';
import type { SourcedTool, ToolSource } from '../registry/tool-source';
import type { AgentContext } from '../session/agent-context';
import { isLogLevel } from '../session/tool-log';
import type { Connect, Connection, ConnectionEvents, ElicitAnswer, ElicitRequestParams, Endpoint, ListedTool } from './connection';
import { sampleThrough } from './sampling';
import {
  RemoteFeatures,
  type RemotePrompt,
  type RemotePromptRead,
  type RemoteResource,
  type RemoteResourceContents,
  type RemoteResourceTemplate,
} from './features';
import { identityOf, type Identity } from './identity';
import { ConnectionPool } from './pool';
import { RemoteToolError } from './remote-error';
import { toToolResult } from './result';
import { connectSdk } from './sdk-connection';
import type { CredentialResolver, HttpToolsetOptions, McpToolsetOptions, StdioToolsetOptions } from './toolset-options';

/** The key the remote server finds the call's idempotency key under, in the request's `_meta`. */
export const IDEMPOTENCY_META = 'io.toolwright/idempotency-key';

/**
 * One remote MCP server's tools, for `ToolRegistry.buildAsync({ tools, mcp: [...] })`: listed at
 * build and again on `tools/list_changed`, called through per-identity connections.
 */
export class McpToolset implements ToolSource {
  readonly name: string;
  private readonly pool: ConnectionPool;
  private readonly features: RemoteFeatures;
  private readonly listeners = new Set<() => void>();
  /** The calls running on each identity's connection: where its logs go, and whose its requests may be. */
  private readonly running = new Map<string, AgentContext[]>();
  /** The identity the tools are listed with (its connection is watched for list changes). */
  private listKey?: string;

  private constructor(
    private readonly options: McpToolsetOptions,
    private readonly endpoint: (identity: Identity) => Endpoint,
    private readonly credentials: Record<string, string> | CredentialResolver | undefined,
    defaultName: string,
    connect: Connect = connectSdk,
    private readonly oauth?: HttpToolsetOptions['oauth'],
  ) {
    this.name = options.name ?? defaultName;
    const logLevel = options.logLevel;
    const withLogLevel: Connect = async (endpoint, events) => {
      const connection = await connect(endpoint, events);
      if (logLevel) await connection.setLogLevel(logLevel).catch(() => undefined);
      return connection;
    };
    this.pool = new ConnectionPool(
      this.name,
      withLogLevel,
      { idleMs: options.idleMs ?? 60_000, attempts: options.reconnect?.attempts ?? 3, backoffMs: options.reconnect?.backoffMs ?? 200 },
      (key) => this.events(key),
    );
    this.features = new RemoteFeatures(this.name, (context, use) => this.using(context, use), this.requestTimeout, options.authorize);
  }

  /** A server started as a subprocess, spoken to over stdio. */
  static stdio(options: StdioToolsetOptions): McpToolset {
    if (typeof options?.command !== 'string' || options.command === '')
      throw new ToolwrightConfigError('McpToolset.stdio: `command` is required (the server executable).');
    return new McpToolset(
      options,
      (identity) => ({ transport: 'stdio', command: options.command, args: options.args, env: identity.values, cwd: options.cwd }),
      options.env,
      options.command.split(/[\\/]/).pop()!,
    );
  }

  /** A server at a Streamable HTTP endpoint. */
  static http(options: HttpToolsetOptions): McpToolset {
    if (typeof options?.url !== 'string' || !URL.canParse(options.url))
      throw new ToolwrightConfigError(`McpToolset.http: \`url\` must be an absolute URL (got ${String(options?.url)}).`);
    return new McpToolset(
      options,
      (identity) => ({ transport: 'http', url: options.url, headers: identity.values, authProvider: identity.oauth?.() }),
      options.headers,
      new URL(options.url).host,
      undefined,
      options.oauth,
    );
  }

  /** @internal For tests: the same toolset over another connector. */
  static withConnector(toolset: McpToolset, connect: Connect): McpToolset {
    return new McpToolset(toolset.options, toolset.endpoint, toolset.credentials, toolset.name, connect, toolset.oauth);
  }

  /** How many identities hold an open connection now. */
  get connections(): number {
    return this.pool.size;
  }

  async list(): Promise<readonly SourcedTool[]> {
    const identity = await this.identity(undefined);
    this.listKey = identity.key;
    const listed = await this.pool
      .with(
        identity.key,
        async () => this.endpoint(identity),
        (c) => c.listTools(this.requestTimeout),
        this.options.watch ?? true,
      )
      .catch((error: unknown) => {
        throw this.named(error);
      });
    return listed.filter((tool) => typeof tool?.name === 'string' && this.kept(tool.name)).map((tool) => this.sourced(tool));
  }

  /** The server's resources this caller may see (`authorize`), through the caller's own connection. */
  resources(context?: AgentContext): Promise<RemoteResource[]> {
    return this.features.resources(context);
  }

  /** The server's resource templates this caller may see. */
  resourceTemplates(context?: AgentContext): Promise<RemoteResourceTemplate[]> {
    return this.features.resourceTemplates(context);
  }

  /** Reads a resource (RESOURCE_NOT_FOUND when the server has none there or `authorize` hides it). */
  readResource(uri: string, context?: AgentContext): Promise<RemoteResourceContents[]> {
    return this.features.read(uri, context);
  }

  /** The server's prompts this caller may see. */
  prompts(context?: AgentContext): Promise<RemotePrompt[]> {
    return this.features.prompts(context);
  }

  /** A prompt's messages; its arguments are checked against the listed ones first (INVALID_ARGUMENTS, PROMPT_NOT_FOUND). */
  getPrompt(name: string, args?: Record<string, string>, context?: AgentContext): Promise<RemotePromptRead> {
    return this.features.get(name, args, context);
  }

  onListChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onProblem(problem: string): void {
    this.options.onProblem?.(`MCP server "${this.name}": ${problem}`);
  }

  close(): Promise<void> {
    this.listeners.clear();
    return this.pool.close();
  }

  private get requestTimeout(): number {
    return this.options.requestTimeoutMs ?? 60_000;
  }

  private kept(name: string): boolean {
    const { include, exclude } = this.options;
    if (exclude?.includes(name)) return false;
    if (include === undefined) return true;
    return typeof include === 'function' ? include(name) === true : include.includes(name);
  }

  /** A listed tool as the registry builds it; its schemas are checked there (a bad one is left out and reported). */
  private sourced(tool: ListedTool): SourcedTool {
    const remote = tool.name as string;
    const annotations = isObject(tool.annotations) ? (tool.annotations as ToolAnnotations) : undefined;
    const own = this.options.tools?.[remote];
    return {
      definition: {
        name: `${this.options.prefix ?? ''}${this.options.rename ? this.options.rename(remote) : remote.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
        description: typeof tool.description === 'string' ? tool.description : '',
        parameters: tool.inputSchema as JsonSchema,
        ...(isObject(tool.outputSchema) && { outputSchema: tool.outputSchema as JsonSchema }),
      },
      origin: { source: this.name, name: remote },
      annotations,
      approval: own?.approval ?? tightened(this.options.approval, annotations?.destructiveHint === true),
      timeoutMs: own?.timeoutMs ?? this.options.timeoutMs,
      tags: own?.tags,
      rateLimit: own?.rateLimit,
      execute: (args, context) => this.call(remote, args, context),
    };
  }

  /** One call on the caller's own connection: progress to `context.reportProgress`, the signal as `notifications/cancelled`. */
  private async call(remote: string, args: object, context: AgentContext): Promise<unknown> {
    const identity = await this.identity(context).catch((error: unknown) => {
      throw new RemoteToolError('unavailable', `MCP server "${this.name}": no credentials for this caller (${errorText(error)}).`, {
        cause: error,
      });
    });
    const key = context.toolCall?.idempotencyKey;
    const signal = context.toolCall?.signal;
    const result = await this.pool
      .with(
        identity.key,
        async () => this.endpoint(identity),
        async (connection) => {
          const running = this.track(identity.key, context);
          try {
            return await connection.callTool({
              name: remote,
              arguments: args,
              meta: key === undefined ? undefined : { [IDEMPOTENCY_META]: key },
              signal,
              timeoutMs: this.requestTimeout,
              onProgress: (p) => context.reportProgress(p.progress, p.total, p.message),
              caller: context,
            });
          } finally {
            running();
          }
        },
      )
      .catch((error: unknown) => {
        throw this.named(error);
      });
    try {
      return toToolResult(result, this.options.maxResultBytes ?? 4_000_000);
    } catch (error) {
      throw this.named(error);
    }
  }

  /** A request on the caller's own connection, its failures named after the server. */
  private async using<T>(context: AgentContext | undefined, use: (connection: Connection) => Promise<T>): Promise<T> {
    const identity = await this.identity(context).catch((error: unknown) => {
      throw new RemoteToolError('unavailable', `MCP server "${this.name}": no credentials for this caller (${errorText(error)}).`, {
        cause: error,
      });
    });
    return this.pool
      .with(identity.key, async () => this.endpoint(identity), use)
      .catch((error: unknown) => {
        throw this.named(error);
      });
  }

  private identity(context: AgentContext | undefined): Promise<Identity> {
    return identityOf(this.credentials, context, this.oauth);
  }

  private track(key: string, context: AgentContext): () => void {
    const list = this.running.get(key) ?? [];
    list.push(context);
    this.running.set(key, list);
    return () => {
      list.splice(list.indexOf(context), 1);
      if (list.length === 0) this.running.delete(key);
    };
  }

  /** The server's events on one identity's connection. */
  private events(key: string): ConnectionEvents {
    return {
      onToolsChanged: () => this.changed(),
      onClose: () => {
        // The watched connection went (a restart?): list again, which reconnects with backoff.
        if (key === this.listKey && (this.options.watch ?? true)) setTimeout(() => this.changed(), 50).unref();
      },
      onLog: (level, data, logger) => this.log(key, level, data, logger),
      onElicit: (params, signal, caller) => this.elicit(this.caller(key, caller), params, signal),
      onSample: (params, signal, caller) => sampleThrough(this.caller(key, caller), params, signal),
    };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private log(key: string, level: string, data: unknown, logger?: string): void {
    const lvl = isLogLevel(level) ? level : 'info';
    const message = typeof data === 'string' ? data : `${this.name}${logger ? `/${logger}` : ''}`;
    const extra = typeof data === 'string' ? undefined : data;
    const calls = this.running.get(key);
    if (calls?.length) for (const context of calls) context.log(lvl, message, extra);
    else this.options.onLog?.({ level: lvl, message, ...(extra !== undefined && { data: extra }), server: this.name });
  }

  /**
   * The call a server's request belongs to: the one the connection names, else the only call
   * running there. With several running and none named (stdio tells nothing), the request is
   * refused rather than put to a person who did not cause it.
   */
  private caller(key: string, named: object | undefined): AgentContext | undefined {
    const calls = this.running.get(key) ?? [];
    if (named !== undefined) return calls.find((c) => c === named);
    if (calls.length > 1)
      throw new RemoteToolError(
        'protocol',
        `MCP server "${this.name}": a request came while ${calls.length} calls ran on the connection and it cannot tell whose it is; refused.`,
      );
    return calls[0];
  }

  /** The call it came with asks its own surface (the MCP client, the agent's input flow); no one there: declined. */
  private async elicit(call: AgentContext | undefined, params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitAnswer> {
    const port = call?.toolCall?.elicit;
    if (!port) return { action: 'decline' };
    try {
      const answer = await port.relay(params, signal);
      if (answer.action !== 'accept') return { action: answer.action === 'decline' ? 'decline' : 'cancel' };
      // The form's defaults fill what the person left out (the client applies them, SEP-1034).
      return { action: 'accept', content: isObject(answer.content) ? (answer.content as Record<string, unknown>) : {} };
    } catch {
      return { action: 'cancel' };
    }
  }

  private named(error: unknown): unknown {
    if (!(error instanceof RemoteToolError) || error.message.startsWith('MCP server "')) return error;
    return new RemoteToolError(error.reason, `MCP server "${this.name}": ${error.message}`, { cause: error.cause, final: error.final });
  }
}

/** The server's `destructiveHint` may require an approval, never remove one. */
function tightened(policy: ApprovalPolicy | undefined, destructive: boolean): ApprovalPolicy | undefined {
  return destructive ? true : policy;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
