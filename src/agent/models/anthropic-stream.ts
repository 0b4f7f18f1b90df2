/**
 * One Messages API stream event, checked: what `AnthropicModel.stream` reads of it, each field of
 * the JSON type it must have (a wrong one is a non-retryable ModelError), every block index an
 * integer in range. Events this model does not read (pings, thinking deltas, new types) are skipped.
 */
import type { SseEvent } from './sse-events';
import { count, inStreamError, isRecord, parseEventData, record, streamIndex, text, wrongShape, type Json } from './stream-shape';

const PROVIDER = 'anthropic';

/** The token counts an event carried (cumulative in `message_delta`); absent ones stay absent. */
export interface TokenCounts {
  input_tokens?: number;
  output_tokens?: number;
}

/** A content block as the stream builds it; a tool call is complete at its `content_block_stop`. */
export type StreamedBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string } | { type: 'other' };

export type AnthropicStreamEvent =
  | { type: 'message_start'; usage: TokenCounts }
  | { type: 'block_start'; index: number; block: StreamedBlock }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'input_json_delta'; index: number; json: string }
  | { type: 'block_stop'; index: number }
  | { type: 'message_delta'; stopReason: string | undefined; usage: TokenCounts }
  | { type: 'message_stop' };

/** The event checked, or undefined for one to skip; an error event is thrown as the ModelError it stands for. */
export function readAnthropicEvent(sse: SseEvent): AnthropicStreamEvent | undefined {
  if (sse.event === 'ping' || sse.event === undefined) return undefined; // as the SDK: unnamed events carry nothing
  if (sse.event === 'error') throw inStreamError(PROVIDER, safeJson(sse.data));
  if (sse.data === '') return undefined;
  const event = record(PROVIDER, parseEventData(PROVIDER, sse.data), 'the event');
  switch (event.type) {
    case 'error':
      throw inStreamError(PROVIDER, event);
    case 'message_start':
      return { type: 'message_start', usage: tokens(record(PROVIDER, event.message, 'message_start.message').usage, 'message_start') };
    case 'content_block_start':
      return {
        type: 'block_start',
        index: streamIndex(PROVIDER, event.index, 'content_block_start.index'),
        block: block(record(PROVIDER, event.content_block, 'content_block_start.content_block')),
      };
    case 'content_block_delta':
      return delta(
        streamIndex(PROVIDER, event.index, 'content_block_delta.index'),
        record(PROVIDER, event.delta, 'content_block_delta.delta'),
      );
    case 'content_block_stop':
      return { type: 'block_stop', index: streamIndex(PROVIDER, event.index, 'content_block_stop.index') };
    case 'message_delta': {
      const change = record(PROVIDER, event.delta, 'message_delta.delta');
      return {
        type: 'message_delta',
        stopReason: text(PROVIDER, change.stop_reason, 'message_delta.delta.stop_reason', true),
        usage: tokens(event.usage, 'message_delta'),
      };
    }
    case 'message_stop':
      return { type: 'message_stop' };
    default:
      if (typeof event.type !== 'string') throw wrongShape(PROVIDER, 'the event has no type');
      return undefined;
  }
}

function block(content: Json): StreamedBlock {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: text(PROVIDER, content.text, 'content_block_start.content_block.text') };
    case 'tool_use':
      // An id or name that is not text is kept as '' (as `generate` keeps it): the runner answers that one call, the turn goes on.
      return {
        type: 'tool_use',
        id: typeof content.id === 'string' ? content.id : '',
        name: typeof content.name === 'string' ? content.name : '',
        json: '',
      };
    default:
      if (typeof content.type !== 'string') throw wrongShape(PROVIDER, 'content_block_start.content_block has no type');
      return { type: 'other' };
  }
}

function delta(index: number, change: Json): AnthropicStreamEvent | undefined {
  switch (change.type) {
    case 'text_delta':
      return { type: 'text_delta', index, text: text(PROVIDER, change.text, 'content_block_delta.delta.text') };
    case 'input_json_delta':
      return { type: 'input_json_delta', index, json: text(PROVIDER, change.partial_json, 'content_block_delta.delta.partial_json') };
    default:
      if (typeof change.type !== 'string') throw wrongShape(PROVIDER, 'content_block_delta.delta has no type');
      return undefined; // thinking, signatures, citations: not part of a ModelResponse
  }
}

function tokens(usage: unknown, where: string): TokenCounts {
  const counts = record(PROVIDER, usage, `${where}.usage`, true);
  if (counts === undefined) return {};
  const input = count(PROVIDER, counts.input_tokens, `${where}.usage.input_tokens`);
  const output = count(PROVIDER, counts.output_tokens, `${where}.usage.output_tokens`);
  return { ...(input !== undefined ? { input_tokens: input } : {}), ...(output !== undefined ? { output_tokens: output } : {}) };
}

function safeJson(data: string): unknown {
  try {
    const value: unknown = JSON.parse(data);
    return isRecord(value) ? value : data;
  } catch {
    return data;
  }
}
