/**
 * An agent run as the Vercel AI SDK's UI message stream (the protocol `useChat` reads), without
 * depending on the `ai` package: the chunks are plain JSON, written as Server-Sent Events.
 */
import type { RunResult, ToolCallRecord } from '../agent/agent';
import type { AgentEvent } from '../agent/events';
import { ToolwrightError } from '../errors/errors';

/** The response headers the AI SDK's client expects (`UI_MESSAGE_STREAM_HEADERS` in `ai` v6). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});

export type UIFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** What toolwright puts in the UI message's `metadata` when a run ends. */
export interface RunMessageMetadata {
  runId: string;
  sessionId: string;
  status: RunResult['status'];
  turns: number;
  usage: RunResult['usage'];
}

/** A tool's progress (`context.reportProgress`), as the `data-tool-progress` part of its call. */
export interface ToolProgressData {
  toolCallId: string;
  name: string;
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The chunks toolwright writes: a subset of the AI SDK v6 `UIMessageChunk` union (its
 * `uiMessageChunkSchema`), field for field; the tests check each one against that schema.
 */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'data-tool-progress'; id: string; data: ToolProgressData }
  | { type: 'finish-step' }
  | { type: 'finish'; finishReason: UIFinishReason; messageMetadata: RunMessageMetadata }
  | { type: 'error'; errorText: string };

export interface UIMessageStreamOptions {
  /**
   * The assistant message's id (`start.messageId`): give the client's own id to continue its
   * message. Default: the run's id (from `run-start`), the id a restored chat gives the message.
   */
  messageId?: string;
  /**
   * Tool calls the client already shows (a continued message): their results update those parts.
   * A result or approval for any other call not announced in this stream first adds its part.
   */
  announcedToolCalls?: Iterable<string>;
  /** The `errorText` a failed run shows. Default: "An error occurred (CODE)." — never a message or stack. */
  errorText?: (error: unknown) => string;
  /** Send tool progress as `data-tool-progress` parts (one per call, updated in place). Default true. */
  progress?: boolean;
}

/**
 * The approval id of a call: the tool call id itself, so an approval response read back from the
 * client names the call it decides and nothing else needs remembering between requests.
 */
export const approvalIdOf = (toolCallId: string): string => toolCallId;

/**
 * AgentEvents → UI message chunks, in order: `start` (its `messageId` the run's id, unless
 * `options.messageId` continues a message), per model turn `start-step`, its text
 * (`text-start`/`text-delta`/`text-end`), each tool call's input, progress, output (or error, or
 * denial) and approval request, `finish-step`; last `finish` (`stop`, or `tool-calls` when the run
 * paused for approval). A failed run ends with `error` (no `finish`); calls it left without a result
 * are marked as failed. Pure: no I/O, nothing from the `ai` package.
 */
export async function* toUIMessageStream(
  events: AsyncIterable<AgentEvent>,
  options: UIMessageStreamOptions = {},
): AsyncGenerator<UIMessageChunk> {
  const announced = new Set(options.announcedToolCalls);
  /** Calls announced by this stream that have no result (or approval request) yet. */
  const open = new Set<string>();
  const progress = options.progress ?? true;
  let step = false;
  let text: string | undefined;
  let texts = 0;

  let started = false;

  /** `start`, once: the message's id is the client's (a continued message) or the run's, which a restored chat gives it again. */
  function* begin(event?: AgentEvent): Generator<UIMessageChunk> {
    if (started) return;
    started = true;
    const messageId = options.messageId ?? (event?.type === 'run-start' ? event.runId : undefined);
    yield messageId === undefined ? { type: 'start' } : { type: 'start', messageId };
  }
  function* closeText(): Generator<UIMessageChunk> {
    if (text !== undefined) yield { type: 'text-end', id: text };
    text = undefined;
  }
  function* openStep(): Generator<UIMessageChunk> {
    if (!step) yield { type: 'start-step' };
    step = true;
  }
  function* input(toolCallId: string, toolName: string, args: string): Generator<UIMessageChunk> {
    yield* closeText();
    announced.add(toolCallId);
    open.add(toolCallId);
    const parsed = parseJson(args);
    yield parsed.ok
      ? { type: 'tool-input-available', toolCallId, toolName, input: parsed.value }
      : { type: 'tool-input-error', toolCallId, toolName, input: args, errorText: 'The model sent arguments that are not valid JSON.' };
  }

  try {
    for await (const event of events) {
      yield* begin(event);
      switch (event.type) {
        case 'run-start':
          break;
        case 'text-delta':
          if (event.delta === '') break;
          yield* openStep();
          if (text === undefined) {
            text = `${event.runId}-${event.turn}-${texts++}`;
            yield { type: 'text-start', id: text };
          }
          yield { type: 'text-delta', id: text, delta: event.delta };
          break;
        case 'tool-call':
          // A resumed run repeats its paused calls: the client shows them already (and their approvals).
          if (announced.has(event.toolCallId)) break;
          yield* openStep();
          yield* input(event.toolCallId, event.name, event.arguments);
          break;
        case 'tool-progress':
          if (progress) yield progressChunk(event);
          break;
        case 'tool-result':
          if (!announced.has(event.record.id)) yield* input(event.record.id, event.record.name, event.record.arguments);
          else yield* closeText();
          open.delete(event.record.id);
          yield outputChunk(event.record);
          break;
        case 'approval-required':
          if (!announced.has(event.approval.toolCallId))
            yield* input(event.approval.toolCallId, event.approval.name, event.approval.arguments);
          else yield* closeText();
          open.delete(event.approval.toolCallId);
          yield {
            type: 'tool-approval-request',
            approvalId: approvalIdOf(event.approval.toolCallId),
            toolCallId: event.approval.toolCallId,
          };
          break;
        case 'turn-end':
          yield* closeText();
          if (step) yield { type: 'finish-step' };
          step = false;
          break;
        case 'run-end': {
          yield* closeText();
          if (step) yield { type: 'finish-step' };
          step = false;
          const { result } = event;
          yield {
            type: 'finish',
            finishReason: result.status === 'paused' ? 'tool-calls' : 'stop',
            messageMetadata: {
              runId: result.runId,
              sessionId: result.sessionId,
              status: result.status,
              turns: result.turns,
              usage: result.usage,
            },
          };
          break;
        }
      }
    }
    yield* begin();
  } catch (error) {
    yield* begin();
    yield* closeText();
    const errorText = (options.errorText ?? defaultErrorText)(error);
    // A call the failure interrupted would otherwise spin forever in the UI.
    for (const toolCallId of open) yield { type: 'tool-output-error', toolCallId, errorText };
    yield { type: 'error', errorText };
  }
}

/** Server-Sent Events of the chunks, ending with `data: [DONE]` as the AI SDK's own server does. */
export async function* toServerSentEvents(chunks: AsyncIterable<UIMessageChunk>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `data: ${JSON.stringify(chunk)}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * The events of a run that was not streamed (an agent without a streaming resume), from its
 * RunResult: every call's result, the final text, the approvals it waits on, the end.
 */
export async function* runResultEvents(result: RunResult | Promise<RunResult>): AsyncGenerator<AgentEvent> {
  const done = await result;
  const { runId, sessionId, turns } = done;
  yield { type: 'run-start', runId, sessionId, resumed: true };
  for (const record of done.toolCalls) yield { type: 'tool-result', runId, turn: turns, record };
  if (done.output) yield { type: 'text-delta', runId, turn: turns, delta: done.output };
  for (const approval of done.approvals) yield { type: 'approval-required', runId, approval };
  yield { type: 'run-end', runId, result: done };
}

/** What the browser may see of a failure: its code, never its message (a tool's or provider's internals). */
export function defaultErrorText(error: unknown): string {
  return error instanceof ToolwrightError ? `An error occurred (${error.code}).` : 'An error occurred.';
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

function progressChunk(event: Extract<AgentEvent, { type: 'tool-progress' }>): UIMessageChunk {
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
