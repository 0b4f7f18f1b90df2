import { ToolwrightConfigError } from '../errors/errors';
import { InputUnavailableError } from '../errors/input-errors';
import type {
  ElicitPort,
  ElicitResult,
  InputClass,
  InputOptions,
  Root,
  RootsSink,
  SampleOptions,
  SampleResult,
  SampleSink,
  SampleMessage,
  UrlElicitResult,
} from './elicitation';
import type { Message } from './message';
import type { SessionChanges, SessionSnapshot } from './snapshots';
import { checkInputKey } from './input-key';
import { checkStateKey } from './stored-key';
import { isLogLevel, LOG_LEVELS, type LogLevel, type ToolLog } from './tool-log';

export interface AgentContextInit {
  sessionId: string;
  userId?: string;
  tenantId?: string;
  state?: Record<string, unknown>;
  history?: readonly Message[];
  userInput?: string | null;
}

/** The call a tool is running for; present only on the per-call view that tools receive. */
export interface ToolCallInfo {
  id: string;
  name: string;
  /** Stable for the same session and model tool call id: a retried or resumed call gets the same key. */
  idempotencyKey: string;
  signal?: AbortSignal;
  /** Where `context.reportProgress` goes for this call (a stream consumer, an MCP progress token). */
  onProgress?: (progress: ToolProgress) => void;
  /** Where `context.log` goes for this call (MCP `notifications/message`, stream events, stderr). */
  onLog?: (log: ToolLog) => void;
  /** Where `context.elicit` and `elicitUrl` ask (the surface's `onElicit`, with the form compiled and its answer checked). */
  elicit?: ElicitPort;
  /** Where `context.sample` asks (the surface's `onSample`). */
  onSample?: SampleSink;
  /** Where `context.roots` asks (the surface's `onRoots`). */
  onRoots?: RootsSink;
  /** Where a tool that calls models itself (an agent tool) adds their tokens: the calling run's usage, when an agent runs the call. */
  onUsage?: (usage: { inputTokens: number; outputTokens: number }) => void;
  /**
   * @internal An agent run resuming this call (an agent tool) after its child run paused: the
   * decisions and answers for the child's calls, by the child's call ids, and who decided.
   */
  childResume?: ChildResume;
  /** @internal Where an agent tool's child run sends its stream events: the calling run's stream. */
  onChildEvent?: (event: object) => void;
}

/** @internal What a resumed agent run hands an agent tool whose child run paused (see ToolCallInfo.childResume). */
export interface ChildResume {
  decisions: Readonly<Record<string, object>>;
  approver?: { id: string; [key: string]: unknown };
}

/** How far a running tool got: `progress` grows; `total` when known; a short human `message`. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Mutable session data, shared by a context and its per-call views (so views see one state). */
interface SessionData {
  state: Map<string, unknown>;
  history: Message[];
  userInput: string | null;
  set: Map<string, unknown>;
  deleted: Set<string>;
  appended: Message[];
  replacedHistory?: Message[];
  userInputChanged: boolean;
}

/**
 * Session state for one conversation: the PHP kit's AgentContext in camelCase. Getters and
 * setters are synchronous; a store loads the session before a turn and saves the recorded
 * changes after it as one unit (`takeChanges`). Values must be JSON-serializable, and a value
 * changed in place must be set again with `setState` to be saved.
 */
export class AgentContext {
  readonly sessionId: string;
  readonly userId?: string;
  readonly tenantId?: string;
  /** Set on the view a tool receives (`forToolCall`): its call id, idempotency key and AbortSignal. */
  readonly toolCall?: ToolCallInfo;
  private readonly data: SessionData;
  /** Created on the first read of `signal` by a call that has none (one per context or per-call view). */
  private idleSignal?: AbortSignal;

  constructor(init: AgentContextInit) {
    this.sessionId = init.sessionId;
    this.userId = init.userId;
    this.tenantId = init.tenantId;
    this.data = {
      state: new Map(Object.entries(init.state ?? {})),
      history: [...(init.history ?? [])],
      userInput: init.userInput ?? null,
      set: new Map(),
      deleted: new Set(),
      appended: [],
      userInputChanged: false,
    };
  }

  static fromSnapshot(snapshot: SessionSnapshot, userId?: string): AgentContext {
    return new AgentContext({
      sessionId: snapshot.sessionId,
      userId: userId ?? snapshot.userId,
      tenantId: snapshot.tenantId,
      state: snapshot.state,
      history: snapshot.history,
      userInput: snapshot.userInput,
    });
  }

  /** A cheap view of this context for one tool call; state and history stay shared. */
  forToolCall(call: ToolCallInfo): AgentContext {
    // A sibling instance over the same data, not Object.create(this): making every context a
    // prototype would cost V8 a map transition per call.
    const view = Object.create(Object.getPrototypeOf(this)) as { -readonly [K in keyof AgentContext]: AgentContext[K] };
    view.sessionId = this.sessionId;
    view.userId = this.userId;
    view.tenantId = this.tenantId;
    view.toolCall = call;
    (view as unknown as { data: SessionData }).data = this.data;
    return view as AgentContext;
  }

  /**
   * The AbortSignal of the running tool call: it fires when the call's timeout passes or its run,
   * MCP request or caller cancels it. Always there, so a tool passes it on as is (`fetch(url, { signal })`);
   * for a call nothing can cancel it never fires.
   */
  get signal(): AbortSignal {
    return this.toolCall?.signal ?? (this.idleSignal ??= new AbortController().signal);
  }

  /**
   * Tells whoever is watching this call how far it got (stream events, MCP `notifications/progress`).
   * A no-op when nobody is; never throws into the tool.
   */
  reportProgress(progress: number, total?: number, message?: string): void {
    const sink = this.toolCall?.onProgress;
    if (sink) notify(sink, total === undefined && message === undefined ? { progress } : { progress, total, message });
  }

  /**
   * Logs a message of this call for whoever watches it: MCP `notifications/message` (at the level
   * the client set), a `tool-log` event of a streamed run, the CLI's stderr, a span event. A no-op
   * when nobody is; a wrong level is the tool's bug and throws.
   */
  log(level: LogLevel, message: string, data?: unknown): void {
    if (!isLogLevel(level))
      throw new ToolwrightConfigError(`context.log: level must be one of ${LOG_LEVELS.join(', ')} (got ${String(level)}).`);
    const sink = this.toolCall?.onLog;
    if (sink) notify(sink, data === undefined ? { level, message: String(message) } : { level, message: String(message), data });
  }

  /**
   * Asks the user to fill in a form mid-call: the input class's `@Param` properties (flat: strings,
   * numbers, booleans, enums) are the form, and an accepted answer is validated like tool arguments
   * before the tool gets it as an instance (INVALID_INPUT otherwise). Never for secrets: use `elicitUrl`.
   * Throws INPUT_UNAVAILABLE where no one can answer (no surface asks, or its client cannot).
   */
  elicit<T extends object>(message: string, inputClass: InputClass<T>, options: InputOptions = {}): Promise<ElicitResult<T>> {
    const port = this.toolCall?.elicit;
    if (!port) return Promise.reject(new InputUnavailableError('form', 'no user is there to ask on this surface'));
    return port.form(message, inputClass, this.signal, checkInputKey(options.key));
  }

  /**
   * Asks the user to open a URL (MCP URL mode): for what must not pass through the client, such as
   * credentials or a payment. The answer says only whether they agreed; the result comes out of band.
   */
  elicitUrl(message: string, url: string, options: InputOptions = {}): Promise<UrlElicitResult> {
    const port = this.toolCall?.elicit;
    if (!port) return Promise.reject(new InputUnavailableError('url', 'no user is there to ask on this surface'));
    return port.url(message, url, this.signal, checkInputKey(options.key));
  }

  /** Asks the client's model for a completion (MCP sampling): a prompt, or the messages of a conversation. */
  sample(prompt: string | readonly SampleMessage[], options: SampleOptions = {}): Promise<SampleResult> {
    const sink = this.toolCall?.onSample;
    if (!sink) return Promise.reject(new InputUnavailableError('sampling', 'no model is there to ask on this surface'));
    const messages: SampleMessage[] =
      typeof prompt === 'string' ? [{ role: 'user', content: { type: 'text', text: prompt } }] : prompt.map((m) => ({ ...m }));
    const key = checkInputKey(options.key);
    return sink({ ...options, key, messages, maxTokens: options.maxTokens ?? DEFAULT_SAMPLE_TOKENS }, this.signal);
  }

  /** Asks the client for the roots it exposes (MCP `roots/list`): file system locations the tool may work in. */
  roots(options: InputOptions = {}): Promise<Root[]> {
    const sink = this.toolCall?.onRoots;
    if (!sink) return Promise.reject(new InputUnavailableError('roots', 'no client is there to ask on this surface'));
    return sink({ key: checkInputKey(options.key) }, this.signal);
  }

  get idempotencyKey(): string | undefined {
    return this.toolCall?.idempotencyKey;
  }

  getSessionId(): string {
    return this.sessionId;
  }

  getUserInput(): string | null {
    return this.data.userInput;
  }

  setUserInput(value: string | null): void {
    this.data.userInput = value;
    this.data.userInputChanged = true;
  }

  getState<T = unknown>(key: string, defaultValue?: T): T | undefined {
    return this.data.state.has(key) ? (this.data.state.get(key) as T) : defaultValue;
  }

  /** Throws InvalidIdError for a key no store keeps exactly (a lone surrogate, NUL, over 512 UTF-8 bytes). */
  setState(key: string, value: unknown): void {
    checkStateKey(key);
    this.data.state.set(key, value);
    this.data.set.set(key, value);
    this.data.deleted.delete(key);
  }

  hasState(key: string): boolean {
    return this.data.state.has(key);
  }

  forgetState(key: string): void {
    checkStateKey(key, true);
    this.data.state.delete(key);
    this.data.set.delete(key);
    this.data.deleted.add(key);
  }

  /**
   * The state writes not saved yet (live views, not copies): the agent's step journal records what a
   * tool call wrote, so a replayed call's writes are applied again. Not for tools.
   * @internal
   */
  unsavedStateWrites(): { readonly set: ReadonlyMap<string, unknown>; readonly deleted: ReadonlySet<string> } {
    return { set: this.data.set, deleted: this.data.deleted };
  }

  getAllState(): Record<string, unknown> {
    return Object.fromEntries(this.data.state);
  }

  /** Sets every key of `values` (merging into the current state), or none when a key is refused (see setState). */
  loadState(values: Record<string, unknown>): void {
    const entries = Object.entries(values);
    for (const [key] of entries) checkStateKey(key);
    for (const [key, value] of entries) this.setState(key, value);
  }

  getConversationHistory(): readonly Message[] {
    return this.data.history;
  }

  addMessage(message: Message): void {
    this.data.history.push(message);
    this.data.appended.push(message);
  }

  /**
   * Takes back a message this context added and has not saved yet (the runner's, for a response
   * that paused on the person's input: it is stored with the paused run instead). False otherwise.
   */
  retractMessage(message: Message): boolean {
    const h = this.data.history.lastIndexOf(message);
    const a = this.data.appended.lastIndexOf(message);
    if (h < 0 || a < 0) return false;
    this.data.history.splice(h, 1);
    this.data.appended.splice(a, 1);
    return true;
  }

  setConversationHistory(messages: readonly Message[]): void {
    this.data.history = [...messages];
    this.data.replacedHistory = [...messages];
    this.data.appended = [];
  }

  /** The changes recorded since construction or the last call, for a store to save; resets them. */
  takeChanges(): SessionChanges {
    const d = this.data;
    const changes: SessionChanges = {
      set: Object.fromEntries(d.set),
      deleted: [...d.deleted],
      appended: d.appended,
    };
    if (this.userId !== undefined) changes.userId = this.userId;
    if (d.replacedHistory) changes.replacedHistory = d.replacedHistory;
    if (d.userInputChanged) changes.userInput = d.userInput;
    d.set = new Map();
    d.deleted = new Set();
    d.appended = [];
    d.replacedHistory = undefined;
    d.userInputChanged = false;
    return changes;
  }
}

/** `context.sample`'s bound on the answer when the tool sets none (MCP requires one). */
const DEFAULT_SAMPLE_TOKENS = 1024;

/** Hands a report to its observer: a failing observer (or its rejected promise) must not fail the tool. */
function notify<T>(sink: (value: T) => unknown, value: T): void {
  try {
    const returned = sink(value);
    if (returned instanceof Promise) returned.catch(() => undefined);
  } catch {
    // The observer's failure is not the tool's.
  }
}
