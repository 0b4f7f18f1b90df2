import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ErrorCode,
  McpError,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { errorText } from '../errors/errors';
import { CallAttribution } from './attribution';
import type { Connect, Connection, ConnectionEvents, ElicitRequestParams, Endpoint, ListedTool } from './connection';
import { RemoteToolError } from './remote-error';

// The one module that imports the MCP client SDK (v1's `Client`): swap it here for another SDK.

const CLIENT_INFO = { name: 'toolwright', version: '0.1.0' };

function transportFor(endpoint: Endpoint, attribution: CallAttribution): Transport {
  const transport = baseTransport(endpoint, attribution);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(attribution.outgoing(message), options);
  return transport;
}

function baseTransport(endpoint: Endpoint, attribution: CallAttribution): Transport {
  if (endpoint.transport === 'stdio') {
    return new StdioClientTransport({
      command: endpoint.command,
      args: [...(endpoint.args ?? [])],
      env: { ...getDefaultEnvironment(), ...endpoint.env },
      cwd: endpoint.cwd,
      // A server's stderr is its own log, not the app's output.
      stderr: 'ignore',
    });
  }
  return new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: endpoint.headers },
    // OAuth 2.1 (PKCE, resource indicators, client registration, refresh) is the SDK's, through the app's provider.
    authProvider: endpoint.authProvider as OAuthClientProvider | undefined,
    // Tells which call a server's elicitation or sampling request came with (the stream it arrived on).
    fetch: attribution.fetch(),
    // A stream the server closes is resumed (at the server's `retry` pace, with Last-Event-ID); a dead server is the pool's to reconnect.
    reconnectionOptions: { maxReconnectionDelay: 5000, initialReconnectionDelay: 200, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
  });
}

/**
 * Connects; when the server asks for OAuth consent first (an authorization-code provider sent the
 * person to the authorization URL), waits for the code, exchanges it and connects once more.
 */
export const connectSdk: Connect = async (endpoint, events) => {
  const transports: Transport[] = [];
  try {
    return await connectOnce(endpoint, events, transports);
  } catch (error) {
    const code = error instanceof UnauthorizedError ? consentOf(endpoint) : undefined;
    if (code === undefined) throw refused(error) ?? error;
    await (transports[0] as StreamableHTTPClientTransport).finishAuth(await code);
    return connectOnce(endpoint, events, transports).catch((again: unknown) => {
      throw refused(again) ?? again;
    });
  }
};

/** The code the person's consent gives, when the provider sent them to authorize. */
function consentOf(endpoint: Endpoint): Promise<string> | undefined {
  if (endpoint.transport !== 'http') return undefined;
  const provider = endpoint.authProvider as { authorizationCode?: () => Promise<string> | undefined } | undefined;
  return provider?.authorizationCode?.();
}

/**
 * A request the server refused for want of scope (a 403 `insufficient_scope`: step-up): the
 * provider sent the person to consent to more; with the code exchanged, the request is sent once more.
 */
async function withConsent<T>(endpoint: Endpoint, transport: Transport, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const code = error instanceof UnauthorizedError ? consentOf(endpoint) : undefined;
    if (code === undefined) throw error;
    await (transport as StreamableHTTPClientTransport).finishAuth(await code);
    return send();
  }
}

async function connectOnce(endpoint: Endpoint, events: ConnectionEvents, transports: Transport[]): Promise<Connection> {
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {} } });
  let closed = false;
  client.onclose = () => {
    if (closed) return;
    closed = true;
    events.onClose();
  };
  const attribution = new CallAttribution();
  wire(client, events, attribution);
  const transport = transportFor(endpoint, attribution);
  transports.push(transport);
  await client.connect(transport);
  const consented = <T>(send: () => Promise<T>) => withConsent(endpoint, transport, send);
  const connection: Connection = {
    get closed() {
      return closed;
    },
    async listTools(timeoutMs) {
      // A loose result schema: one bad tool is the registry's to leave out, not a reason to refuse the whole list.
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const params = cursor === undefined ? {} : { cursor };
        const page = (await consented(() => client.request({ method: 'tools/list', params }, ResultSchema, { timeout: timeoutMs })).catch(
          (error: unknown) => Promise.reject(refused(error) ?? remoteError(error)),
        )) as { tools?: unknown; nextCursor?: unknown };
        if (!Array.isArray(page.tools)) throw new RemoteToolError('protocol', 'The MCP server listed its tools without a `tools` array.');
        tools.push(...(page.tools as ListedTool[]));
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      } while (cursor !== undefined && tools.length < 10_000);
      return tools;
    },
    async callTool(request) {
      const mark = request.caller === undefined ? undefined : attribution.mark(request.caller);
      const meta = mark === undefined ? request.meta : { ...request.meta, ...mark.meta };
      // `request`, not `callTool`: the registry checks structuredContent against outputSchema itself (the same Ajv path as local tools).
      const result = await consented(() =>
        client.request(
          {
            method: 'tools/call',
            params: { name: request.name, arguments: request.arguments as Record<string, unknown>, _meta: meta },
          },
          CallToolResultSchema,
          {
            signal: request.signal,
            timeout: request.timeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: request.onProgress,
          },
        ),
      )
        .catch((error: unknown) => {
          throw request.signal?.aborted ? error : (refused(error) ?? remoteError(error));
        })
        .finally(() => mark?.release());
      return result;
    },
    async request(method, params, timeoutMs, signal) {
      return consented(() => client.request({ method, params }, ResultSchema, { timeout: timeoutMs, signal })).catch((error: unknown) => {
        throw signal?.aborted ? error : (refused(error) ?? remoteError(error));
      });
    },
    async setLogLevel(level) {
      if (client.getServerCapabilities()?.logging) await client.setLoggingLevel(level as LoggingLevel);
    },
    async close() {
      closed = true;
      await client.close().catch(() => undefined);
    },
  };
  return connection;
}

function wire(client: Client, events: ConnectionEvents, attribution: CallAttribution): void {
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    try {
      const answer = await events.onSample(request.params, extra.signal, attribution.take(extra.requestId));
      return { ...answer };
    } catch (error) {
      throw new McpError(ErrorCode.InvalidRequest, errorText(error));
    }
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolsChanged());
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => events.onLog(n.params.level, n.params.data, n.params.logger));
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as ElicitRequestParams & { mode?: string };
    const caller = attribution.take(extra.requestId);
    try {
      return await events.onElicit(params.mode === 'url' ? params : { ...params, mode: 'form' }, extra.signal, caller);
    } catch (error) {
      throw new McpError(ErrorCode.InvalidRequest, errorText(error));
    }
  });
}

/** The SDK's failure as the toolset's: the connection closed, the request timed out, or the server broke the protocol. */
function remoteError(error: unknown): RemoteToolError {
  if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number))
    return new RemoteToolError('closed', `The MCP server closed the connection during the call (it may have run or not).`, {
      cause: error,
    });
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
    return new RemoteToolError('timeout', 'The MCP server did not answer in time.', { cause: error });
  if (error instanceof McpError)
    return new RemoteToolError('protocol', `The MCP server refused the call: ${bounded(error.message)}`, { cause: error });
  return new RemoteToolError(
    'protocol',
    `The MCP server sent an answer that is not a valid MCP result (${bounded(errorText(error), 200)}).`,
    {
      cause: error,
    },
  );
}

const bounded = (text: string, max = 1000) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The server refused these credentials (HTTP 401 or 403): another attempt with them cannot help. */
function refused(error: unknown): RemoteToolError | undefined {
  const status = error instanceof StreamableHTTPError ? error.code : error instanceof UnauthorizedError ? 401 : undefined;
  if (status !== 401 && status !== 403) return undefined;
  return new RemoteToolError('unavailable', `The MCP server refused the credentials (HTTP ${status}).`, { cause: error, final: true });
}
