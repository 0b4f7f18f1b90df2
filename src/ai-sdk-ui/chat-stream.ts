/** A started run as the answer: its events as UI message chunks, written as Server-Sent Events. */
import type { AgentEvent } from '../agent/events';
import { ToolwrightError } from '../errors/errors';
import type { Answer } from './chat-answer';
import type { ChatHandlerOptions } from './chat-options';
import type { ChatRun } from './chat-run';
import { defaultErrorText, toServerSentEvents, toUIMessageStream } from './ui-message-stream';

export async function streamAnswer(run: ChatRun, options: ChatHandlerOptions, report: (error: unknown) => void): Promise<Answer> {
  // The first event is awaited before answering: a refusal (another user's session, a paused run,
  // an approval for a call not waiting) is an HTTP error the client can tell from a failed run.
  const iterator = run.events[Symbol.asyncIterator]();
  let first: IteratorResult<AgentEvent<unknown>>;
  try {
    first = await iterator.next();
  } catch (error) {
    run.controller.abort();
    throw error;
  }
  const errorText = options.errorText ?? defaultErrorText;
  const chunks = toUIMessageStream(prepend(first, iterator), {
    messageId: run.messageId,
    announcedToolCalls: run.announced,
    progress: options.progress,
    errorText: (error) => {
      if (!(error instanceof ToolwrightError)) report(error);
      return errorText(error);
    },
  });
  return { stream: toServerSentEvents(chunks), abort: (reason) => run.controller.abort(reason) };
}

/** The iterator again, its first result already read. */
async function* prepend(
  first: IteratorResult<AgentEvent<unknown>>,
  rest: AsyncIterator<AgentEvent<unknown>>,
): AsyncGenerator<AgentEvent<unknown>> {
  try {
    if (first.done) return;
    yield first.value;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}
