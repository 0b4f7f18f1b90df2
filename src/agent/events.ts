import type { ToolProgress } from '../session/agent-context';
import type { ToolLog } from '../session/tool-log';
import type { ToolCall } from '../session/message';
import type { ModelUsage } from './model';
import type { PendingApproval, PendingInput, RunResult, ToolCallRecord } from './types';

/**
 * What `agent.stream()` yields, in order: `run-start`; per model turn its `text-delta`s and
 * `tool-call`s, then each call's `tool-progress`es, `tool-log`s and `tool-result`, then `turn-end`; an
 * `approval-required` per call that waits for a human's decision and an `input-required` per call
 * that waits for the person's input (`context.elicit`); last `run-end` with the same `RunResult`
 * `run()` returns. Events are plain data (JSON-serializable), so they can cross a wire unchanged.
 */
export type AgentEvent<O = string> = (
  | { type: 'run-start'; runId: string; sessionId: string; resumed: boolean }
  | { type: 'text-delta'; runId: string; turn: number; delta: string }
  /**
   * The structured final answer (`output`) as it arrives: the object its text holds so far (a
   * tolerant partial-JSON read, unvalidated). The validated instance is `run-end`'s `result.output`.
   */
  | { type: 'output-partial'; runId: string; turn: number; partial: Record<string, unknown> }
  /** A tool call whose arguments are complete, as the model wrote them (JSON text). */
  | { type: 'tool-call'; runId: string; turn: number; toolCallId: string; name: string; arguments: string }
  | ({ type: 'tool-progress'; runId: string; toolCallId: string; name: string } & ToolProgress)
  /** A message the tool logged (`context.log`). */
  | ({ type: 'tool-log'; runId: string; toolCallId: string; name: string } & ToolLog)
  /** What the call did and what the model saw (`record.result`). */
  | { type: 'tool-result'; runId: string; turn: number; record: ToolCallRecord }
  | { type: 'approval-required'; runId: string; approval: PendingApproval }
  /** A call paused on the person's input: show `input.request`, answer with `agent.answer` / `resume`. */
  | { type: 'input-required'; runId: string; input: PendingInput }
  | { type: 'turn-end'; runId: string; turn: number; usage: ModelUsage }
  | { type: 'run-end'; runId: string; result: RunResult<O> }
) &
  NestedRun;

/**
 * Set on the events of an agent tool's child run, forwarded into the calling run's stream: the
 * child agent's name and the calls that lead to it (`tool#callId` from the top run down). The
 * child's approvals, inputs and end are not forwarded: the calling run reports them as its own.
 */
export interface NestedRun {
  agent?: string;
  path?: string[];
}

export type AgentEventType = AgentEvent['type'];

/** Where `emitToolCalls` sends its events (a streamed run's RunEvents). */
interface EventSink {
  emit(event: AgentEvent<unknown>): void;
}

/** A response's calls, arguments complete, with the ids they run under. */
export function emitToolCalls(events: EventSink, runId: string, turn: number, calls: readonly ToolCall[]): void {
  for (const call of calls) {
    events.emit({ type: 'tool-call', runId, turn, toolCallId: call.id, name: call.name, arguments: call.arguments });
  }
}
