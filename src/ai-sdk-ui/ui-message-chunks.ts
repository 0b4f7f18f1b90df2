/**
 * One UI message's chunks, event by event: the state that spans events (whether `start` was sent,
 * the open step and text part, the calls the client shows) lives here, one method per event kind.
 */
import type { PendingApproval, PendingInput, RunResult, ToolCallRecord } from '../agent/agent';
import type { AgentEvent } from '../agent/events';
import { ToolwrightError } from '../errors/errors';
import { approvalIdOf, type ToolProgressData, type UIMessageChunk, type UIMessageStreamOptions } from './ui-message-protocol';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent<unknown>, { type: T }>;

/** What the browser may see of a failure: its code, never its message (a tool's or provider's internals). */
export function defaultErrorText(error: unknown): string {
  return error instanceof ToolwrightError ? `An error occurred (${error.code}).` : 'An error occurred.';
}

export class UIMessageChunker {
  /** Calls the client shows: the continued message's, and those this stream announced. */
  private readonly announced: Set<string>;
  /** Calls announced by this stream that have no result (or approval request) yet. */
  private readonly open = new Set<string>();
  private readonly progress: boolean;
  private started = false;
  private step = false;
  /** The id of the text part being written, while one is. */
  private text: string | undefined;
  private texts = 0;

  constructor(private readonly options: UIMessageStreamOptions) {
    this.announced = new Set(options.announcedToolCalls);
    this.progress = options.progress ?? true;
  }

  /** The chunks of one event, after `start` if it is the first. */
  *event(event: AgentEvent<unknown>): Generator<UIMessageChunk> {
    // A sub-agent's events (tagged with its path): the chat shows the agent tool's call and result, not its inner run.
    if (event.path !== undefined) return;
    yield* this.begin(event);
    switch (event.type) {
      case 'run-start':
        break;
      case 'text-delta':
        yield* this.textDelta(event);
        break;
      case 'tool-call':
        yield* this.toolCall(event);
        break;
      case 'tool-progress':
        if (this.progress) yield progressChunk(event);
        break;
      case 'tool-log':
        // A tool's log is the developer's (traces, the run's stream), not part of the chat's messages.
        break;
      case 'tool-result':
        yield* this.toolResult(event.record);
        break;
      case 'approval-required':
        yield* this.approvalRequired(event.approval);
        break;
      case 'input-required':
        yield* this.inputRequired(event.input);
        break;
      case 'turn-end':
        yield* this.closeStep();
        break;
      case 'run-end':
        yield* this.closeStep();
        yield finishChunk(event.result);
        break;
    }
  }

  /** `start`, once: the message's id is the client's (a continued message) or the run's, which a restored chat gives it again. */
  *begin(event?: AgentEvent<unknown>): Generator<UIMessageChunk> {
    if (this.started) return;
    this.started = true;
    const messageId = this.options.messageId ?? (event?.type === 'run-start' ? event.runId : undefined);
    yield messageId === undefined ? { type: 'start' } : { type: 'start', messageId };
  }

  /** A failed run ends with `error` (no `finish`). */
  *fail(error: unknown): Generator<UIMessageChunk> {
    yield* this.begin();
    yield* this.closeText();
    const errorText = (this.options.errorText ?? defaultErrorText)(error);
    // A call the failure interrupted would otherwise spin forever in the UI.
    for (const toolCallId of this.open) yield { type: 'tool-output-error', toolCallId, errorText };
    yield { type: 'error', errorText };
  }

  private *textDelta(event: EventOf<'text-delta'>): Generator<UIMessageChunk> {
    if (event.delta === '') return;
    yield* this.openStep();
    if (this.text === undefined) {
      this.text = `${event.runId}-${event.turn}-${this.texts++}`;
      yield { type: 'text-start', id: this.text };
    }
    yield { type: 'text-delta', id: this.text, delta: event.delta };
  }

  private *toolCall(event: EventOf<'tool-call'>): Generator<UIMessageChunk> {
    // A resumed run repeats its paused calls: the client shows them already (and their approvals).
    if (this.announced.has(event.toolCallId)) return;
    yield* this.openStep();
    yield* this.input(event.toolCallId, event.name, event.arguments);
  }

  private *toolResult(record: ToolCallRecord): Generator<UIMessageChunk> {
    yield* this.settle(record.id, record.name, record.arguments);
    yield outputChunk(record);
  }

  private *approvalRequired(approval: PendingApproval): Generator<UIMessageChunk> {
    yield* this.waitingParent(approval);
    yield* this.settle(approval.toolCallId, approval.name, approval.arguments);
    yield { type: 'tool-approval-request', approvalId: approvalIdOf(approval.toolCallId), toolCallId: approval.toolCallId };
  }

  /**
   * The call waits on the person's input: its part back to `input-available` (the client may show
   * the previous answer as its output: the call asks again) and the request as `data-tool-input`.
   */
  private *inputRequired(input: PendingInput): Generator<UIMessageChunk> {
    if (this.announced.has(input.toolCallId)) this.announced.delete(input.toolCallId);
    yield* this.waitingParent(input);
    yield* this.settle(input.toolCallId, input.name, input.arguments);
    yield {
      type: 'data-tool-input',
      id: input.toolCallId,
      data: { toolCallId: input.toolCallId, name: input.name, request: input.request },
    };
  }

  /**
   * A call inside an agent tool's child run (listed with a `path`, id `parentCallId/…`) gets a part
   * of its own; the agent tool's call, open since it started, gets an output saying it waits, so the
   * client sees the step as complete once the person answered (`sendAutomaticallyWhen`). The resumed
   * run sends the call's real output over it.
   */
  private *waitingParent(entry: PendingApproval | PendingInput): Generator<UIMessageChunk> {
    const step = entry.path && entry.path.length > 1 ? entry.path[0] : undefined;
    const parent = step?.slice(step.indexOf('#') + 1);
    if (parent === undefined || !this.open.has(parent) || !entry.toolCallId.startsWith(`${parent}/`)) return;
    yield* this.closeText();
    this.open.delete(parent);
    yield { type: 'tool-output-available', toolCallId: parent, output: { status: 'waiting', for: 'a sub-agent call' } };
  }

  /** Before a call's result or approval request: its part, unless the client shows it already. */
  private *settle(toolCallId: string, toolName: string, args: string): Generator<UIMessageChunk> {
    if (!this.announced.has(toolCallId)) yield* this.input(toolCallId, toolName, args);
    else yield* this.closeText();
    this.open.delete(toolCallId);
  }

  private *input(toolCallId: string, toolName: string, args: string): Generator<UIMessageChunk> {
    yield* this.closeText();
    this.announced.add(toolCallId);
    this.open.add(toolCallId);
    const parsed = parseJson(args);
    yield parsed.ok
      ? { type: 'tool-input-available', toolCallId, toolName, input: parsed.value }
      : { type: 'tool-input-error', toolCallId, toolName, input: args, errorText: 'The model sent arguments that are not valid JSON.' };
  }

  private *openStep(): Generator<UIMessageChunk> {
    if (!this.step) yield { type: 'start-step' };
    this.step = true;
  }

  private *closeText(): Generator<UIMessageChunk> {
    if (this.text !== undefined) yield { type: 'text-end', id: this.text };
    this.text = undefined;
  }

  private *closeStep(): Generator<UIMessageChunk> {
    yield* this.closeText();
    if (this.step) yield { type: 'finish-step' };
    this.step = false;
  }
}

/** `finish`: `tool-calls` when the run paused for approval. */
function finishChunk(result: RunResult<unknown>): UIMessageChunk {
  return {
    type: 'finish',
    finishReason: result.status === 'paused' ? 'tool-calls' : 'stop',
    messageMetadata: { runId: result.runId, sessionId: result.sessionId, status: result.status, turns: result.turns, usage: result.usage },
  };
}

function outputChunk(record: ToolCallRecord): UIMessageChunk {
  switch (record.status) {
    case 'ok': {
      const parsed = parseJson(record.result);
      return { type: 'tool-output-available', toolCallId: record.id, output: parsed.ok ? parsed.value : record.result };
    }
    case 'rejected':
      return { type: 'tool-output-denied', toolCallId: record.id };
    default:
      // `error`, and `denied` by a beforeToolCall hook: what the model saw (the compact error JSON).
      return { type: 'tool-output-error', toolCallId: record.id, errorText: record.result };
  }
}

function progressChunk(event: EventOf<'tool-progress'>): UIMessageChunk {
  const data: ToolProgressData = { toolCallId: event.toolCallId, name: event.name, progress: event.progress };
  if (event.total !== undefined) data.total = event.total;
  if (event.message !== undefined) data.message = event.message;
  return { type: 'data-tool-progress', id: event.toolCallId, data };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
