/**
 * What the toolset needs of one MCP client connection, and nothing of the SDK: the one module
 * that imports the client SDK (`sdk-connection.ts`) implements it, so the SDK can be swapped.
 */

/** A tool as the server listed it: untrusted, checked by whoever builds it. */
export interface ListedTool {
  name: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** A `tools/call` result as the server sent it (only its shape checked). */
export interface CallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallRequest {
  name: string;
  arguments: object;
  /** Sent as the request's `_meta` (the idempotency key). */
  meta?: Record<string, unknown>;
  signal?: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: CallProgress) => void;
  /** Who made the call: handed back with a server request the connection can attribute to it. */
  caller?: object;
}

/** A server's `elicitation/create`, as the app is asked it. */
export type ElicitRequestParams =
  | {
      mode: 'form';
      message: string;
      requestedSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
    }
  | { mode: 'url'; message: string; url: string; elicitationId?: string };

export type ElicitAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** A server's `sampling/createMessage` params, as sent (checked by whoever answers). */
export interface SampleParams {
  messages: unknown[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
}

/** The client's `sampling/createMessage` answer. */
export interface SampleAnswer {
  role: 'assistant';
  content: { type: 'text'; text: string } | { type: 'image' | 'audio'; data: string; mimeType: string };
  model: string;
  stopReason?: string;
}

/** What the server tells the client outside a call's own answer. */
export interface ConnectionEvents {
  onToolsChanged(): void;
  onLog(level: string, data: unknown, logger?: string): void;
  /** `caller`: the `CallRequest.caller` of the call the request came with, when the transport tells (undefined: unknown). */
  onElicit(params: ElicitRequestParams, signal: AbortSignal, caller?: object): Promise<ElicitAnswer>;
  /** Rejects when no model can answer (the server hears an error). */
  onSample(params: SampleParams, signal: AbortSignal, caller?: object): Promise<SampleAnswer>;
  /** The transport closed (the server died or the network went): every call in flight fails. */
  onClose(): void;
}

/** How to reach a server: a command over stdio, or a Streamable HTTP endpoint. */
export type Endpoint =
  | { transport: 'stdio'; command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string }
  | {
      transport: 'http';
      url: string;
      headers?: Record<string, string>;
      /** The SDK's OAuthClientProvider, for the SDK module. */ authProvider?: unknown;
    };

export interface Connection {
  listTools(timeoutMs: number): Promise<ListedTool[]>;
  callTool(request: CallRequest): Promise<CallResult>;
  /** Any other request (`resources/read`, `prompts/get`…): its result as sent, only checked to be an object. */
  request(method: string, params: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** The level of log messages the server should send (`logging/setLevel`), if it logs. */
  setLogLevel(level: string): Promise<void>;
  readonly closed: boolean;
  close(): Promise<void>;
}

export type Connect = (endpoint: Endpoint, events: ConnectionEvents) => Promise<Connection>;
