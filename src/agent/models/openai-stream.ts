/**
 * One `chat.completion.chunk`, checked: what `OpenAIChatModel.stream` reads of it, each field of
 * the JSON type it must have (a wrong one is a non-retryable ModelError), each tool call index an
 * integer in range. What a compatible server may vary in one call (a name that is not text,
 * arguments sent as an object) is kept for the runner to answer, as `generate` keeps it.
 */
import type { SseEvent } from './sse-events';
import { count, inStreamError, list, parseEventData, record, streamIndex, text, type Json } from './stream-shape';

const PROVIDER = 'openai';

export interface ToolCallPiece {
  /** Absent when the server gave none (Ollama gives every parallel call index 0, or none). */
  index: number | undefined;
  id: string | undefined;
  /** `''` for a name that is not text: the runner answers TOOL_NOT_FOUND for that call. */
  name: string | undefined;
  arguments: string | undefined;
}

export interface OpenAIChunk {
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The first choice's delta, when the chunk has one (the usage chunk has none). */
  choice?: {
    content: string | undefined;
    refusal: string | undefined;
    toolCalls: ToolCallPiece[];
    finishReason: string | undefined;
  };
}

/** The chunk checked; `'done'` for `data: [DONE]`; an error chunk is thrown as the ModelError it stands for. */
export function readOpenAIChunk(sse: SseEvent): OpenAIChunk | 'done' {
  if (sse.data.startsWith('[DONE]')) return 'done';
  const chunk = record(PROVIDER, parseEventData(PROVIDER, sse.data), 'the chunk');
  if (chunk.error) throw inStreamError(PROVIDER, chunk);
  const read: OpenAIChunk = {};
  const usage = record(PROVIDER, chunk.usage, 'usage', true);
  if (usage !== undefined) {
    read.usage = {
      prompt_tokens: count(PROVIDER, usage.prompt_tokens, 'usage.prompt_tokens') ?? 0,
      completion_tokens: count(PROVIDER, usage.completion_tokens, 'usage.completion_tokens') ?? 0,
    };
  }
  const choices = list(PROVIDER, chunk.choices, 'choices').map((c, i) => record(PROVIDER, c, `choices[${i}]`));
  const choice = choices.find((c) => (c.index ?? 0) === 0);
  if (choice !== undefined) read.choice = readChoice(choice);
  return read;
}

function readChoice(choice: Json): NonNullable<OpenAIChunk['choice']> {
  const delta = record(PROVIDER, choice.delta, 'choices[0].delta', true) ?? {};
  return {
    content: text(PROVIDER, delta.content, 'choices[0].delta.content', true),
    refusal: text(PROVIDER, delta.refusal, 'choices[0].delta.refusal', true),
    toolCalls: list(PROVIDER, delta.tool_calls, 'choices[0].delta.tool_calls').map((part, i) =>
      readPiece(record(PROVIDER, part, `choices[0].delta.tool_calls[${i}]`), `choices[0].delta.tool_calls[${i}]`),
    ),
    finishReason: text(PROVIDER, choice.finish_reason, 'choices[0].finish_reason', true) || undefined,
  };
}

function readPiece(part: Json, where: string): ToolCallPiece {
  const fn = record(PROVIDER, part.function, `${where}.function`, true);
  const name = fn?.name;
  const args = fn?.arguments;
  return {
    index: part.index === undefined || part.index === null ? undefined : streamIndex(PROVIDER, part.index, `${where}.index`),
    id: typeof part.id === 'string' && part.id !== '' ? part.id : undefined,
    name: name === undefined || name === null || name === '' ? undefined : typeof name === 'string' ? name : '',
    // Some local servers send an object (or a number): kept as its JSON, for the runner to report.
    arguments: args === undefined || args === null ? undefined : typeof args === 'string' ? args : JSON.stringify(args),
  };
}
