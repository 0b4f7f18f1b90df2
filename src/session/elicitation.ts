/**
 * What a tool asks of the person (elicitation) or of the client's model (sampling) mid-call, and
 * what comes back: the types the context, the registry and the surfaces share. The surface
 * (MCP, the agent runner) answers through `CallOptions.onElicit` / `onSample`.
 */

/** A class whose instances are the answer of a form: `@Param` properties of flat, primitive types. */
export type InputClass<T extends object = object> = new () => T;

/** The JSON Schema of a form, as MCP elicitation allows it: one flat object of primitive properties. */
export interface RequestedSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/**
 * What `context.elicit`, `elicitUrl`, `sample` and `roots` take besides the question. `key` names
 * the question where a protocol asks by name (MCP 2026-07-28's `inputRequests`): the same key must
 * mean the same question on every round of the call. Unnamed questions are numbered in the order asked.
 */
export interface InputOptions {
  key?: string;
}

/** What a surface is asked to show: a form to fill in, or (for anything secret) a URL to open. */
export type InputRequest = (
  { mode: 'form'; message: string; requestedSchema: RequestedSchema } | { mode: 'url'; message: string; url: string }
) &
  InputOptions;

/** The person's raw answer, as the surface got it: `content` is checked against the form before any tool sees it. */
export type InputAnswer = { action: 'accept'; content?: unknown } | { action: 'decline' } | { action: 'cancel' };

/** Asks the person behind a surface; rejects with InputUnavailableError when no one can answer. */
export type InputSink = (request: InputRequest, signal: AbortSignal) => Promise<InputAnswer>;

/** `context.elicit`'s answer: the filled-in form as an instance of the input class, or the person's refusal. */
export type ElicitResult<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** `context.elicitUrl`'s answer: whether the person agreed to open the URL (what they did there comes out of band). */
export type UrlElicitResult = { action: 'accept' } | { action: 'decline' } | { action: 'cancel' };

/** `context.elicit` for one call, built by the registry (it compiles the input class and checks the answer). */
export interface ElicitPort {
  form<T extends object>(message: string, inputClass: InputClass<T>, signal: AbortSignal, key?: string): Promise<ElicitResult<T>>;
  url(message: string, url: string, signal: AbortSignal, key?: string): Promise<UrlElicitResult>;
  /** A request as another MCP server sent it (a remote tool's elicitation), passed to the surface as is. */
  relay(request: InputRequest, signal: AbortSignal): Promise<InputAnswer>;
}

export type SampleContent = { type: 'text'; text: string } | { type: 'image' | 'audio'; data: string; mimeType: string };

export interface SampleMessage {
  role: 'user' | 'assistant';
  content: SampleContent;
}

/** A request for the client's model (MCP `sampling/createMessage`). */
export interface SampleRequest {
  messages: SampleMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  /** Names the question (see InputOptions). */
  key?: string;
}

/** What `context.sample` takes besides the prompt. */
export type SampleOptions = Partial<Omit<SampleRequest, 'messages'>>;

/** The model's answer: its text (the text parts joined), every part as sent, and the model that wrote it. */
export interface SampleResult {
  text: string;
  content: SampleContent[];
  model: string;
  stopReason?: string;
}

/** Asks the model behind a surface; rejects with InputUnavailableError when there is none. */
export type SampleSink = (request: SampleRequest, signal: AbortSignal) => Promise<SampleResult>;

/** A root the client exposes (MCP `roots/list`): a `file://` URI, and a name to show. */
export interface Root {
  uri: string;
  name?: string;
}

/** Asks the client for its roots; rejects with InputUnavailableError when it has none to give. */
export type RootsSink = (request: InputOptions, signal: AbortSignal) => Promise<Root[]>;
