import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import type { ContainerLike } from '../container/container';
import type { ToolwrightError } from '../errors/errors';
import type { ClassType } from '../metadata/types';
import type { ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../metadata/json-schema';
import type { ToolCall } from '../session/message';
import type { InputAnswer, InputRequest } from '../session/elicitation';
import type { SessionStore } from '../stores/store';
import type { TracingOptions } from '../tracing/options';
import type { CatalogOptions } from './catalog';
import type { Model, ModelUsage } from './model';

/* The agent runner's public types: options, results, decisions and the hooks' events. */

/** What happens to an unexpected tool failure (TOOL_FAILED, INVALID_OUTPUT, TOOL_TIMEOUT). */
export type ErrorBoundary = 'throw' | 'redact';
export type ErrorPolicy = ErrorBoundary | ((error: ToolwrightError, call: ToolCallEvent) => ErrorBoundary);

export interface AgentOptions<O = string> {
  name: string;
  /** What the agent does, in a sentence: the description of the `transfer_to_<name>` tool other agents hand off with. */
  description?: string;
  /**
   * Agents this one may hand the conversation to: its model gets a `transfer_to_<name>` tool per
   * agent; calling it moves the conversation (same session, same history) to that agent, whose
   * instructions and tools take over, and the session records the holder, so the next `run` on the
   * session starts with it. A function, for agents that hand back to each other (`() => [desk]`).
   */
  handoffs?: readonly HandoffTarget[] | (() => readonly HandoffTarget[]);
  /** The system prompt; a function is called once per run with the loaded session and memory. */
  instructions?: string | ((context: AgentContext, memory: AgentMemory) => string);
  model: Model;
  /**
   * A class-validator class for a structured final answer, or a list of classes forming a union keyed
   * by a literal field every class pins with `@Equals(...)` (as a tool's `output`): the model is told
   * its schema in its provider's native way (`Model.nativeOutput`), else through a `final_answer` tool;
   * the answer is validated like tool arguments, and an invalid one goes back to the model with its
   * field errors (under `retryBudget`). `RunResult.output` is the instance of the matched class (typed:
   * `Agent<O>`); `RunResult.text` keeps the text.
   */
  output?: ClassType<O> | readonly ClassType<O>[];
  /** Tool classes (built into a registry with `container`) or a ready registry. */
  tools: ToolRegistry | readonly ClassType[];
  container?: ContainerLike;
  /** Where sessions, memories and paused runs live. Default: a SqliteStore at `./.toolwright/state.db`. */
  store?: SessionStore;
  /** Model calls per run (resumes included) before MaxTurnsExceededError. Default 10. */
  maxTurns?: number;
  /** Tool calls of one model response running at once. Default 4. */
  maxConcurrency?: number;
  /** Model-correctable failures (INVALID_JSON, INVALID_ARGUMENTS, TOOL_NOT_FOUND) allowed per tool per run. Default 2. */
  retryBudget?: number;
  /** Per-tool overrides of `retryBudget`. */
  retryBudgets?: Readonly<Record<string, number>>;
  /** Timeout for tools that declare none with `@Tool({ timeoutMs })`. */
  toolTimeoutMs?: number;
  /** Default `'throw'`: the run fails with ToolCallFailedError. `'redact'`: the model gets a redacted error result. */
  errorPolicy?: ErrorPolicy;
  hooks?: AgentHooks | readonly AgentHooks[];
  /** Per-turn tool selection (tags, authorization, top-k search). */
  catalog?: CatalogOptions;
  /** Load only the last N messages of a session's history into the model's context. */
  historyLimit?: number;
  /**
   * Ends the run after a step whose tool calls have run, when it returns true (the Vercel AI SDK's
   * `stopWhen`): the run completes without asking the model again. `maxTurns` still applies.
   */
  stopWhen?: (step: StepResult) => boolean | Promise<boolean>;
  /**
   * Called before anything is decided for a call the model got wrong (unknown or misspelled tool
   * name, bad JSON, invalid arguments): return a corrected call (same id) to run instead, or nothing
   * to send the error back to the model. A repaired call is checked and approved like any other.
   */
  repairToolCall?: (event: RepairEvent) => RepairedCall | null | undefined | void | Promise<RepairedCall | null | undefined | void>;
  /**
   * How long a resume holds a paused run before another process may take it over (a process that
   * died mid-resume). Default 10 minutes.
   */
  resumeLeaseMs?: number;
  /**
   * Durable steps: every model turn and tool call is claimed in the store before it runs and its
   * outcome recorded when it returns, so a run whose process was killed mid-way, retried with the
   * same input on the same session (or resumed elsewhere), replays the finished steps — no second
   * model call, no second execution — and goes on from the first unfinished one. Default: on for
   * every store that keeps data past the process (SQLite, Redis, PostgreSQL); off for InMemoryStore.
   */
  durableSteps?: boolean;
  /** How long a step's claim holds once its process stopped renewing it (died), before a retry may run the step again. Default 30 s. */
  stepLeaseMs?: number;
  /** Where failures of observer hooks (onRunStart, onRunEnd, onToolError, repairToolCall) go. Default: `process.emitWarning`. */
  onHookError?: (error: unknown, hook: string) => void;
  /**
   * Load the (agent, user) memory at the start of every run. Default: only when `instructions` is
   * a function taking the memory (a second parameter), otherwise just before the first call to a
   * tool declaring `@Tool({ memory: true })`; a run that reads no memory never loads it.
   */
  loadMemory?: boolean;
  /**
   * What the run's OpenTelemetry spans record (`invoke_agent`, `chat`, `execute_tool`, while the app
   * has a tracer provider registered): `recordContent` adds the messages, tool arguments and results
   * (the tools' part only for a registry the agent builds; a ready registry keeps its own option).
   */
  tracing?: TracingOptions;
  /**
   * Who answers a tool's `context.sample`: `true` for the agent's own model, or another model.
   * Default: none, and `context.sample` fails with INPUT_UNAVAILABLE.
   */
  sampling?: boolean | Model;
}

/** An agent a handoff goes to (an `Agent`). */
export interface HandoffTarget {
  readonly name: string;
  readonly description?: string;
  /** The agents it hands off to in turn (a holder reached through several handoffs is found through them). */
  handoffTargets(): readonly HandoffTarget[];
}

/** One model step, after its tool calls ran: what `stopWhen` looks at. */
export interface StepResult {
  /** Model calls so far in this run (1 for the first step). */
  turn: number;
  /** The model's text of this step, if any. */
  text: string | null;
  toolCalls: readonly ToolCall[];
  /** What each call of this step did, in call order. */
  results: readonly ToolCallRecord[];
  usage: ModelUsage;
  context: AgentContext;
}

export interface RepairEvent {
  call: ToolCall;
  /** Why the call cannot run: TOOL_NOT_FOUND, INVALID_JSON or INVALID_ARGUMENTS. */
  error: ToolwrightError;
  /** The tools offered this turn. */
  tools: readonly ToolDefinition[];
  context: AgentContext;
}

export interface RepairedCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Who decided a paused call: not the session's user (a manager, a reviewer, a service). */
export interface Approver {
  id: string;
  /** Anything else to record with the decision (name, role…); plain JSON. */
  [key: string]: unknown;
}

/** A decision as recorded with the paused run, the call's record and the hooks' events. */
export interface ApprovalRecord {
  approved: boolean;
  approver?: Approver;
  /** The rejection reason. */
  reason?: string;
  /** The approver changed the arguments. */
  edited: boolean;
  decidedAt: number;
}

export interface RunOptions {
  sessionId: string;
  /** The real user: session ownership, memory scope, isEnabled/authorize and approval policies see it. */
  userId?: string;
  tenantId?: string;
  /** Cancels the run: the model request and every running tool (through `context.signal`). */
  signal?: AbortSignal;
  /** Narrow the catalog to these tags for this run. */
  tags?: readonly string[];
}

/** `approve` / `reject` / `resume`: the session (and its owner, `userId`) and who decides. */
export interface ResumeOptions extends RunOptions {
  /** The approver's identity, recorded with each decision and shown to hooks; a string is `{ id }`. */
  approver?: string | Approver;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The arguments that ran (after hooks and approval edits), as JSON. */
  arguments: string;
  /** What the model saw. */
  result: string;
  status: 'ok' | 'error' | 'denied' | 'rejected';
  /** The error code when status is `error`. */
  code?: string;
  durationMs: number;
  /** For a call that waited for approval: the decision and who made it. */
  approval?: ApprovalRecord;
}

export interface PendingApproval {
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them. */
  arguments: string;
  /** The validated arguments, as plain JSON. */
  args: unknown;
  /**
   * For a call inside an agent tool's child run: the calls that lead to it, `tool#callId` from the
   * top run down (`['billing#p1', 'refund#r1']`); `toolCallId` is then `p1/r1`, decided on the top session.
   */
  path?: string[];
}

/**
 * A call whose tool asked the person for input (`context.elicit` / `elicitUrl`): the run paused on it
 * until the app answers through `resume` / `answer`, then the call runs again and gets that answer.
 */
export interface PendingInput {
  toolCallId: string;
  name: string;
  /** The call's arguments (JSON), as it runs. */
  arguments: string;
  /** What to show the person: a form (`message`, `requestedSchema`) or a URL to open (`message`, `url`). */
  request: InputRequest;
  /** For a call inside an agent tool's child run: as `PendingApproval.path`. */
  path?: string[];
}

/**
 * A person's answer to a pending input, as MCP elicitation has it: `accept` with the form's content
 * (checked against the tool's input class when the call runs again; for a URL, no content), or `decline` / `cancel`.
 */
export type InputDecision = InputAnswer;

/** What `resume` takes per tool call id: an approval decision, or the answer to a pending input. */
export type ResumeDecision = ApprovalDecision | InputDecision;

export type ApprovalDecision =
  | { approve: true; /** Run with these arguments instead (validated like the model's). */ arguments?: string | Record<string, unknown> }
  | { approve: false; /** Shown to the model. */ reason: string };

/** What a run returns; `O` is the agent's `output` class instance, or the final text for an agent without one. */
export interface RunResult<O = string> {
  status: 'completed' | 'paused';
  /** The final answer: the validated, hydrated instance of the agent's `output` class, else the model's final text; `null` while paused. */
  output: O | null;
  /** The model's final text (for an agent with `output`, the JSON it answered); `null` while paused. */
  text: string | null;
  sessionId: string;
  runId: string;
  toolCalls: ToolCallRecord[];
  usage: ModelUsage;
  /** Model calls made by this run (across resumes). */
  turns: number;
  durationMs: number;
  /** The calls waiting for a decision when `status` is `paused`. */
  approvals: PendingApproval[];
  /**
   * The calls waiting for the person's input (`context.elicit`) when `status` is `paused`. The
   * runner always sets it (empty when none); optional for results an app builds itself.
   */
  inputs?: PendingInput[];
  /** Set when `stopWhen` ended the run. */
  stoppedBy?: 'stopWhen';
  /** The agents the conversation was handed to during this run, in order (see `AgentOptions.handoffs`); the last one answered. */
  handoffs?: string[];
}

export interface ToolCallEvent {
  runId: string;
  sessionId: string;
  userId?: string;
  tenantId?: string;
  toolCallId: string;
  name: string;
  /** The arguments about to run (JSON). */
  arguments: string;
  context: AgentContext;
  /** For a call that waited for approval: the decision and the approver. */
  approval?: ApprovalRecord;
}

export type BeforeToolCallDecision = void | undefined | { arguments: string | Record<string, unknown> } | { deny: string };

export interface RunStartEvent {
  runId: string;
  sessionId: string;
  userId?: string;
  tenantId?: string;
  agentName: string;
  input: string;
  resumed: boolean;
  startedAt: number;
  /** Who decided, when this start is a resume (`approve` / `reject` / `resume`). */
  approver?: Approver;
}

export interface RunEndEvent extends RunStartEvent {
  status: 'completed' | 'paused' | 'failed';
  durationMs: number;
  turns: number;
  usage: ModelUsage;
  toolCalls: readonly ToolCallRecord[];
  error?: unknown;
}

/** Observers and guards around a run. Every hook may be async; several hook sets run in order. */
export interface AgentHooks {
  onRunStart?(event: RunStartEvent): void | Promise<void>;
  onRunEnd?(event: RunEndEvent): void | Promise<void>;
  /** Rewrite the arguments (`{ arguments }`) or refuse the call (`{ deny: reason }`, the model sees the reason). */
  beforeToolCall?(event: ToolCallEvent): BeforeToolCallDecision | Promise<BeforeToolCallDecision>;
  /** Return a string to replace the result the model sees. */
  afterToolCall?(event: ToolCallEvent & { result: string; durationMs: number }): void | string | Promise<void | string>;
  onToolError?(
    event: ToolCallEvent & { error: ToolwrightError; handling: 'retry' | ErrorBoundary | 'abort'; durationMs: number },
  ): void | Promise<void>;
}
