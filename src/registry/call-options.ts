import type { ToolContent } from '../content/tool-content';
import type { ToolCallInfo, ToolProgress } from '../session/agent-context';
import type { InputSink, RootsSink, SampleSink } from '../session/elicitation';
import type { ToolLog } from '../session/tool-log';
import { RUN_CANCELLATION, type Cancellation } from './cancellation';

export interface CallOptions {
  /** The model's tool call id: the tool sees it, with an idempotency key derived from it, on `context.toolCall`. */
  toolCallId?: string;
  /** Cancels the call: the tool's `context.signal` fires and the call fails with ABORTED. */
  signal?: AbortSignal;
  /** Overrides `@Tool({ timeoutMs })`. */
  timeoutMs?: number;
  /**
   * What the idempotency key is derived from instead of `toolCallId`: the logical call (the agent
   * runner passes its run, model turn and position), for providers that reuse call ids.
   */
  logicalCallId?: string;
  /**
   * A human approved this call with these arguments. Without it a tool whose approval policy
   * asks for one fails with APPROVAL_REQUIRED; surfaces set it only from a real decision.
   */
  approved?: boolean;
  /** Where the tool's `context.reportProgress` goes (a stream consumer, an MCP progress token). */
  onProgress?: (progress: ToolProgress) => void;
  /** Where the tool's `context.log` goes (at most MAX_LOGS_PER_CALL messages a call, then one notice). */
  onLog?: (log: ToolLog) => void;
  /** Gets a `ToolContent` result's parts, for a surface that carries them (MCP); the call still answers its text form. */
  onContent?: (content: ToolContent) => void;
  /**
   * Who answers the tool's `context.elicit` / `elicitUrl` (MCP elicitation, a human in the agent
   * runner). Without it those throw INPUT_UNAVAILABLE.
   */
  onElicit?: InputSink;
  /** Who answers the tool's `context.sample` (MCP sampling). Without it, INPUT_UNAVAILABLE. */
  onSample?: SampleSink;
  /** Who answers the tool's `context.roots` (MCP roots). Without it, INPUT_UNAVAILABLE. */
  onRoots?: RootsSink;
  /** Where a tool that runs model calls of its own (an agent tool) adds their tokens: the calling run's usage. */
  onUsage?: ToolCallInfo['onUsage'];
  /** @internal An agent run resuming an agent tool's paused child run (see ToolCallInfo.childResume). */
  childResume?: ToolCallInfo['childResume'];
  /** @internal Where an agent tool's child run sends its stream events. */
  onChildEvent?: ToolCallInfo['onChildEvent'];
  /** @internal The agent run's cancellation, used instead of `signal`: it creates an AbortSignal only when the tool reads one. */
  [RUN_CANCELLATION]?: Cancellation;
}
