import { errorText, type ToolwrightError } from '../errors/errors';
import type { ToolCall } from '../session/message';
import type { RunState } from './run-state';
import type { AgentHooks, AgentOptions, ApprovalRecord, ErrorBoundary, RunEndEvent, RunStartEvent, ToolCallEvent } from './types';

/** The hook sets of one agent, split by kind once, and the events they see. */
export class HookSet {
  readonly before: NonNullable<AgentHooks['beforeToolCall']>[];
  readonly after: NonNullable<AgentHooks['afterToolCall']>[];
  readonly onError: NonNullable<AgentHooks['onToolError']>[];
  /** Some hook set watches run start/end. */
  readonly observed: boolean;
  /** Where failures of observer hooks (onRunStart, onRunEnd, onToolError, repairToolCall) go. */
  readonly onHookError: (error: unknown, hook: string) => void;
  private readonly hooks: readonly AgentHooks[];

  constructor(
    private readonly agentName: string,
    options: Pick<AgentOptions, 'hooks' | 'onHookError'>,
  ) {
    this.hooks = options.hooks === undefined ? [] : Array.isArray(options.hooks) ? [...options.hooks] : [options.hooks as AgentHooks];
    this.before = this.hooks.flatMap((h) => (h.beforeToolCall ? [h.beforeToolCall.bind(h)] : []));
    this.after = this.hooks.flatMap((h) => (h.afterToolCall ? [h.afterToolCall.bind(h)] : []));
    this.onError = this.hooks.flatMap((h) => (h.onToolError ? [h.onToolError.bind(h)] : []));
    this.observed = this.hooks.some((h) => typeof h.onRunStart === 'function' || typeof h.onRunEnd === 'function');
    this.onHookError =
      options.onHookError ??
      ((error, hook) =>
        process.emitWarning(`toolwright agent "${agentName}": ${hook} hook failed: ${errorText(error)}`, 'ToolwrightHookWarning'));
  }

  event(state: RunState, call: ToolCall, args: string | Record<string, unknown>, approval?: ApprovalRecord): ToolCallEvent {
    const event: ToolCallEvent = {
      runId: state.runId,
      sessionId: state.key.sessionId,
      userId: state.userId,
      tenantId: state.key.tenantId,
      toolCallId: call.id,
      name: call.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      context: state.context,
    };
    if (approval) event.approval = approval;
    return event;
  }

  /** onToolError observes: its failure is reported to onHookError and changes nothing about the call. */
  async toolError(
    state: RunState,
    call: ToolCall,
    args: string,
    approval: ApprovalRecord | undefined,
    detail: { error: ToolwrightError; handling: 'retry' | ErrorBoundary | 'abort'; durationMs: number },
  ): Promise<void> {
    for (const hook of this.onError) {
      try {
        await hook({ ...this.event(state, call, args, approval), ...detail });
      } catch (error) {
        this.onHookError(error, 'onToolError');
      }
    }
  }

  private startEvent(state: RunState): RunStartEvent {
    return {
      runId: state.runId,
      sessionId: state.key.sessionId,
      userId: state.userId,
      tenantId: state.key.tenantId,
      agentName: this.agentName,
      input: state.input,
      resumed: state.resumed,
      startedAt: state.startedAt,
      ...(state.approver ? { approver: state.approver } : {}),
    };
  }

  /** Run observers: a failing one is reported to onHookError and changes nothing about the run. */
  async emitStart(state: RunState): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onRunStart) continue;
      try {
        await hook.onRunStart(this.startEvent(state));
      } catch (error) {
        this.onHookError(error, 'onRunStart');
      }
    }
  }

  async emitEnd(state: RunState, status: RunEndEvent['status'], error: unknown): Promise<void> {
    for (const hook of this.hooks) {
      if (!hook.onRunEnd) continue;
      try {
        await hook.onRunEnd({
          ...this.startEvent(state),
          status,
          durationMs: Date.now() - state.startedAt,
          turns: state.turns,
          usage: { ...state.usage },
          toolCalls: [...state.records],
          ...(error === undefined ? {} : { error }),
        });
      } catch (hookError) {
        this.onHookError(hookError, 'onRunEnd');
      }
    }
  }
}
