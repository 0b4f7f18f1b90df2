/**
 * An agent run as the Vercel AI SDK's UI message stream (the protocol `useChat` reads), without
 * depending on the `ai` package: the chunks are plain JSON, written as Server-Sent Events.
 */
import type { RunResult } from '../agent/agent';
import type { AgentEvent } from '../agent/events';
import { UIMessageChunker } from './ui-message-chunks';
import type { UIMessageChunk, UIMessageStreamOptions } from './ui-message-protocol';

export { defaultErrorText } from './ui-message-chunks';
export { approvalIdOf } from './ui-message-protocol';
export type {
  RunMessageMetadata,
  ToolInputData,
  ToolProgressData,
  UIFinishReason,
  UIMessageChunk,
  UIMessageStreamOptions,
} from './ui-message-protocol';

/** The response headers the AI SDK's client expects (`UI_MESSAGE_STREAM_HEADERS` in `ai` v6). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});

/**
 * AgentEvents → UI message chunks, in order: `start` (its `messageId` the run's id, unless
 * `options.messageId` continues a message), per model turn `start-step`, its text
 * (`text-start`/`text-delta`/`text-end`), each tool call's input, progress, output (or error, or
 * denial) and approval request, `finish-step`; last `finish` (`stop`, or `tool-calls` when the run
 * paused for approval). A failed run ends with `error` (no `finish`); calls it left without a result
 * are marked as failed. Pure: no I/O, nothing from the `ai` package.
 */
export async function* toUIMessageStream(
  events: AsyncIterable<AgentEvent<unknown>>,
  options: UIMessageStreamOptions = {},
): AsyncGenerator<UIMessageChunk> {
  const message = new UIMessageChunker(options);
  try {
    for await (const event of events) yield* message.event(event);
    // An empty run still opens its message.
    yield* message.begin();
  } catch (error) {
    yield* message.fail(error);
  }
}

/** Server-Sent Events of the chunks, ending with `data: [DONE]` as the AI SDK's own server does. */
export async function* toServerSentEvents(chunks: AsyncIterable<UIMessageChunk>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `data: ${JSON.stringify(chunk)}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * The events of a run that was not streamed (an agent without a streaming resume), from its
 * RunResult: every call's result, the final text, the approvals and inputs it waits on, the end.
 */
export async function* runResultEvents(result: RunResult | Promise<RunResult>): AsyncGenerator<AgentEvent<unknown>> {
  const done = await result;
  const { runId, sessionId, turns } = done;
  yield { type: 'run-start', runId, sessionId, resumed: true };
  for (const record of done.toolCalls) yield { type: 'tool-result', runId, turn: turns, record };
  if (done.text) yield { type: 'text-delta', runId, turn: turns, delta: done.text };
  for (const approval of done.approvals) yield { type: 'approval-required', runId, approval };
  for (const input of done.inputs ?? []) yield { type: 'input-required', runId, input };
  yield { type: 'run-end', runId, result: done };
}
