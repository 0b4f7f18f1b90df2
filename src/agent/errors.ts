import { errorText, ModelError, ToolwrightError, type ErrorCode, type FieldError } from '../errors/errors';
import type { Message } from '../session/message';
import type { PendingApproval, PendingInput } from './types';

/**
 * A run failed. Carries the conversation as it stood (tool results included) and the session, so
 * a caller can log it, show it, or hand it to a human. The session was saved with that history.
 */
export class AgentRunError extends ToolwrightError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly sessionId: string,
    readonly history: readonly Message[],
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** The model kept sending a tool bad arguments (or an unknown tool name) past the retry budget. */
export class RetryBudgetExceededError extends AgentRunError {
  constructor(
    readonly toolName: string,
    readonly attempts: number,
    sessionId: string,
    history: readonly Message[],
    lastError: ToolwrightError,
  ) {
    super(
      'RETRY_BUDGET_EXCEEDED',
      `The model failed to call "${toolName}" correctly ${attempts} times (last: ${lastError.code}). ` +
        'Raise the retry budget, improve the tool description, or check the model.',
      sessionId,
      history,
      { cause: lastError },
    );
  }
}

/** The run used `maxTurns` model calls without a final answer. */
export class MaxTurnsExceededError extends AgentRunError {
  constructor(
    readonly maxTurns: number,
    sessionId: string,
    history: readonly Message[],
  ) {
    super(
      'MAX_TURNS_EXCEEDED',
      `The run reached maxTurns (${maxTurns}) without a final answer. Raise maxTurns or check for a tool loop.`,
      sessionId,
      history,
    );
  }
}

/**
 * An unexpected tool failure (TOOL_FAILED, INVALID_OUTPUT, TOOL_TIMEOUT) reached the error
 * boundary under the `throw` policy. `code` is the underlying error's code; `cause` is that error.
 */
export class ToolCallFailedError extends AgentRunError {
  constructor(
    readonly toolName: string,
    readonly toolCallId: string,
    sessionId: string,
    history: readonly Message[],
    cause: ToolwrightError,
  ) {
    super(cause.code, `Tool call "${toolName}" (${toolCallId}) failed: ${cause.message}`, sessionId, history, { cause });
  }
}

/**
 * The model provider failed mid-run (HTTP error, malformed body, network). `code` is the provider
 * error's code (`MODEL_FAILED`), `cause` is that error; `retryable` is true for 429 and 5xx.
 */
export class ModelCallFailedError extends AgentRunError {
  readonly retryable: boolean;

  constructor(
    readonly modelName: string,
    sessionId: string,
    history: readonly Message[],
    cause: unknown,
  ) {
    super(
      cause instanceof ToolwrightError ? cause.code : 'MODEL_FAILED',
      `Model "${modelName}" failed: ${errorText(cause)}`,
      sessionId,
      history,
      { cause },
    );
    this.retryable = cause instanceof ModelError && cause.retryable;
  }
}

/** The run's AbortSignal fired. */
export class RunAbortedError extends AgentRunError {
  constructor(sessionId: string, history: readonly Message[], reason?: unknown) {
    super('RUN_ABORTED', `The run of session "${sessionId}" was cancelled.`, sessionId, history, { cause: reason });
  }
}

/** `resume` found no paused run for this session (and agent). */
export class RunNotFoundError extends ToolwrightError {
  constructor(
    readonly sessionId: string,
    readonly agentName: string,
  ) {
    super(
      'RUN_NOT_FOUND',
      `Session "${sessionId}" has no run of agent "${agentName}" waiting for approval. ` +
        'Call resume only after run() returned status "paused", with the same sessionId and tenantId.',
    );
  }
}

/**
 * `resume` named calls whose run already went on past them: another approver (or an earlier request)
 * decided them, and they ran or were rejected. Nothing was done now; what still waits is in `pendingApprovals`.
 */
export class ApprovalAlreadyDecidedError extends ToolwrightError {
  constructor(
    readonly sessionId: string,
    readonly toolCallIds: readonly string[],
  ) {
    super(
      'APPROVAL_ALREADY_DECIDED',
      `Tool call ${toolCallIds.map((id) => `"${id}"`).join(', ')} of session "${sessionId}" was already decided: the run went on ` +
        'past it (its result is in the history), so nothing was done. Check pendingApprovals() for calls still waiting.',
    );
  }
}

/** `run` was called while a run of the session waits for approvals; decide them with `resume` first. */
export class RunPausedError extends ToolwrightError {
  constructor(
    readonly sessionId: string,
    readonly pendingToolCallIds: readonly string[],
  ) {
    super(
      'RUN_PAUSED',
      `Session "${sessionId}" has a run waiting for approval of ${pendingToolCallIds.join(', ')}. ` +
        'Approve or reject those calls with agent.resume(...) before sending a new message.',
    );
  }
}

/**
 * `resume` named calls that are not pending, gave a malformed decision, or edited arguments that
 * fail validation (`errors` holds the field errors). Nothing was decided: the run stays paused.
 */
export class ApprovalDecisionError extends ToolwrightError {
  constructor(
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super('INVALID_APPROVAL', message);
  }
}

/**
 * Another process decided or is resuming this paused run at the same moment (or holds it, see
 * `resumeLeaseMs`): its tools run once, there. Load `pendingApprovals` again to see what is left.
 */
export class RunClaimedError extends ToolwrightError {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    message = `The paused run "${runId}" of session "${sessionId}" was decided or resumed by someone else at the same time. ` +
      'Check pendingApprovals() and decide what is still pending.',
  ) {
    super('RUN_CLAIMED', message);
  }
}

/**
 * A step of this run (a model turn or a tool call, see `durableSteps`) is being run by another live
 * process: the same run, retried while the first attempt still runs. Nothing was saved; try again
 * once it finished (its turn is then in the session) or, if it died, after `stepLeaseMs`.
 */
export class StepClaimedError extends RunClaimedError {
  constructor(sessionId: string, runId: string) {
    super(
      sessionId,
      runId,
      `This run of session "${sessionId}" is running in another process right now (one of its steps is claimed there); nothing was done. ` +
        'Try again shortly.',
    );
  }
}

/**
 * An agent called as a tool (`agent.asTool`) paused: a call of its run waits for approval or for
 * the person's input. In an agent run this never reaches the caller: the calling run pauses with the
 * child's calls listed under its own session (`pendingApprovals`, with their `path`) and resumes the
 * child when they are decided. A surface that cannot pause (a direct `registry.call`, MCP, the CLI)
 * gets this error; the child's session (`childSessionId`) keeps its paused run, listed by the child
 * agent's `pendingApprovals` / `pendingInputs`: nothing is approved or lost.
 */
export class ChildRunPausedError extends ToolwrightError {
  readonly pendingToolCallIds: readonly string[];

  constructor(
    readonly agentName: string,
    readonly childSessionId: string,
    readonly approvals: readonly PendingApproval[],
    readonly inputs: readonly PendingInput[] = [],
  ) {
    const ids = [...approvals.map((a) => a.toolCallId), ...inputs.map((i) => i.toolCallId)];
    super(
      'CHILD_RUN_PAUSED',
      `Agent "${agentName}", called as a tool, paused: ${ids.join(', ')} wait(s) for a human (session "${childSessionId}"). ` +
        'Called from an agent run, this pauses the calling run; called directly, decide it on the child session with the child agent.',
    );
    this.pendingToolCallIds = ids;
  }
}
