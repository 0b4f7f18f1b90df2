/**
 * toUIMessageStream against the AI SDK's own reader: random runs (turns of text deltas, tool calls
 * with every outcome, progress, a pause for approvals) written as SSE, parsed by
 * DefaultChatTransport (its chunk schema) and assembled by readUIMessageStream; the message must
 * be the one the run describes.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk as AiChunk } from 'ai';
import fc from 'fast-check';
import type { RunResult, ToolCallRecord } from '../../src/agent/agent';
import type { AgentEvent } from '../../src/agent/events';
import { ModelCallFailedError } from '../../src/agent/errors';
import { toServerSentEvents, toUIMessageStream, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from '../../src/ai-sdk-ui';

/** Compile-time: every chunk toolwright writes is a chunk of the AI SDK's union. */
const asAiChunk = (chunk: UIMessageChunk): AiChunk => chunk;

interface CallSpec {
  name: string;
  input: Record<string, unknown>;
  outcome: 'ok' | 'error' | 'rejected' | 'denied';
  output: unknown;
  progress: number[];
}
interface TurnSpec {
  deltas: string[];
  calls: CallSpec[];
}
interface RunSpec {
  turns: TurnSpec[];
  /** The last turn's calls wait for approval instead of running. */
  paused: boolean;
}

const json = fc.jsonValue().filter((v) => v !== null) as fc.Arbitrary<unknown>;
const callArb: fc.Arbitrary<CallSpec> = fc.record({
  name: fc.constantFrom('lookup_order', 'process_refund', 'send_mail'),
  input: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.oneof(fc.string(), fc.integer())),
  outcome: fc.constantFrom('ok', 'error', 'rejected', 'denied'),
  output: json,
  progress: fc.array(fc.nat(100), { maxLength: 3 }),
});
const runArb: fc.Arbitrary<RunSpec> = fc
  .record({
    turns: fc.array(
      fc.record({
        deltas: fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
        calls: fc.array(callArb, { minLength: 1, maxLength: 3 }),
      }),
      {
        maxLength: 3,
      },
    ),
    last: fc.oneof(
      fc.record({
        paused: fc.constant(true),
        deltas: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }),
        calls: fc.array(callArb, { minLength: 1, maxLength: 2 }),
      }),
      fc.record({
        paused: fc.constant(false),
        deltas: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        calls: fc.constant<CallSpec[]>([]),
      }),
    ),
  })
  .map(({ turns, last }) => ({ turns: [...turns, { deltas: last.deltas, calls: last.calls }], paused: last.paused }));

const RUN = 'r';
const idOf = (turn: number, index: number) => `call-${turn}-${index}`;

function record(turn: number, index: number, call: CallSpec): ToolCallRecord {
  const result =
    call.outcome === 'ok'
      ? JSON.stringify(call.output)
      : JSON.stringify({ status: 'error', code: call.outcome.toUpperCase(), message: 'no' });
  return { id: idOf(turn, index), name: call.name, arguments: JSON.stringify(call.input), result, status: call.outcome, durationMs: 0 };
}

/** The events `agent.stream` yields for the run, in its documented order. */
function* eventsOf(spec: RunSpec): Generator<AgentEvent> {
  yield { type: 'run-start', runId: RUN, sessionId: 's', resumed: false };
  const records: ToolCallRecord[] = [];
  for (const [t, turn] of spec.turns.entries()) {
    const pausing = spec.paused && t === spec.turns.length - 1;
    for (const delta of turn.deltas) yield { type: 'text-delta', runId: RUN, turn: t + 1, delta };
    for (const [i, call] of turn.calls.entries())
      yield { type: 'tool-call', runId: RUN, turn: t + 1, toolCallId: idOf(t, i), name: call.name, arguments: JSON.stringify(call.input) };
    if (!pausing) {
      for (const [i, call] of turn.calls.entries())
        for (const progress of call.progress)
          yield { type: 'tool-progress', runId: RUN, toolCallId: idOf(t, i), name: call.name, progress, total: 100 };
      for (const [i, call] of turn.calls.entries()) {
        records.push(record(t, i, call));
        yield { type: 'tool-result', runId: RUN, turn: t + 1, record: records[records.length - 1] };
      }
    }
    yield { type: 'turn-end', runId: RUN, turn: t + 1, usage: { inputTokens: 1, outputTokens: 1 } };
    if (pausing)
      for (const [i, call] of turn.calls.entries())
        yield {
          type: 'approval-required',
          runId: RUN,
          approval: { toolCallId: idOf(t, i), name: call.name, arguments: JSON.stringify(call.input), args: call.input },
        };
  }
  const result: RunResult = {
    status: spec.paused ? 'paused' : 'completed',
    output: spec.paused ? null : spec.turns[spec.turns.length - 1].deltas.join(''),
    text: spec.paused ? null : spec.turns[spec.turns.length - 1].deltas.join(''),
    sessionId: 's',
    runId: RUN,
    toolCalls: records,
    usage: { inputTokens: spec.turns.length, outputTokens: spec.turns.length },
    turns: spec.turns.length,
    durationMs: 0,
    approvals: [],
  };
  yield { type: 'run-end', runId: RUN, result };
}

/** The parts useChat should end up with. */
function expectedParts(spec: RunSpec): unknown[] {
  const parts: unknown[] = [];
  for (const [t, turn] of spec.turns.entries()) {
    const pausing = spec.paused && t === spec.turns.length - 1;
    parts.push({ type: 'step-start' });
    const text = turn.deltas.join('');
    if (text !== '') parts.push({ type: 'text', text, state: 'done' });
    for (const [i, call] of turn.calls.entries()) {
      const base = { type: `tool-${call.name}`, toolCallId: idOf(t, i), input: call.input };
      if (pausing) parts.push({ ...base, state: 'approval-requested', approval: { id: idOf(t, i) } });
      else if (call.outcome === 'ok') parts.push({ ...base, state: 'output-available', output: call.output });
      else if (call.outcome === 'rejected') parts.push({ ...base, state: 'output-denied' });
      else parts.push({ ...base, state: 'output-error', errorText: record(t, i, call).result });
    }
    if (!pausing)
      for (const [i, call] of turn.calls.entries()) {
        const last = call.progress[call.progress.length - 1];
        if (last !== undefined)
          parts.push({
            type: 'data-tool-progress',
            id: idOf(t, i),
            data: { toolCallId: idOf(t, i), name: call.name, progress: last, total: 100 },
          });
      }
  }
  return parts;
}

async function* fromArray<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** The stream as the AI SDK client reads it off the wire: SSE → DefaultChatTransport (schema-checked) → readUIMessageStream. */
async function readAsClient(
  events: AsyncIterable<AgentEvent>,
  message?: UIMessage,
  announcedToolCalls: string[] = [],
): Promise<{ message: UIMessage | undefined; errors: unknown[] }> {
  const encoder = new TextEncoder();
  const sse = toServerSentEvents(toUIMessageStream(events, message ? { messageId: message.id, announcedToolCalls } : {}));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await sse.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  const transport = new DefaultChatTransport({
    api: 'http://x/api',
    fetch: async () => new Response(body, { headers: UI_MESSAGE_STREAM_HEADERS }),
  });
  const stream = await transport.sendMessages({
    chatId: 'c',
    messages: [],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: unknown[] = [];
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, message, onError: (error) => errors.push(error) })) last = snapshot;
  return { message: last, errors };
}

const clean = (parts: readonly object[]) =>
  parts.map((part) =>
    Object.fromEntries(
      Object.entries(part).filter(([key, v]) => v !== undefined && !['providerExecuted', 'title', 'preliminary', 'rawInput'].includes(key)),
    ),
  );

describe('toUIMessageStream, read back by the AI SDK client', () => {
  it('any run becomes the message it describes: steps, text, tool states, approvals, progress, metadata', async () => {
    await fc.assert(
      fc.asyncProperty(runArb, async (spec) => {
        const { message, errors } = await readAsClient(fromArray(eventsOf(spec)));
        expect(errors).toEqual([]);
        expect(clean(message!.parts)).toEqual(expectedParts(spec));
        expect(message!.metadata).toEqual({
          runId: RUN,
          sessionId: 's',
          status: spec.paused ? 'paused' : 'completed',
          turns: spec.turns.length,
          usage: { inputTokens: spec.turns.length, outputTokens: spec.turns.length },
        });
      }),
      { numRuns: 60 },
    );
  });

  it('every chunk has the fields the AI SDK union gives its type', async () => {
    const spec = fc.sample(runArb, { numRuns: 1, seed: 7 })[0];
    const chunks: AiChunk[] = [];
    for await (const chunk of toUIMessageStream(fromArray(eventsOf(spec)))) chunks.push(asAiChunk(chunk));
    // The message is named after the run: a restored chat (toUIMessages) gives it the same id.
    expect(chunks[0]).toEqual({ type: 'start', messageId: RUN });
    expect(chunks[chunks.length - 1]).toMatchObject({ type: 'finish', finishReason: spec.paused ? 'tool-calls' : 'stop' });
  });

  it('a continued message (resume): the repeated calls add no part, their results update the parts the client shows', async () => {
    const first = await readAsClient(
      fromArray(
        eventsOf({
          turns: [{ deltas: ['Checking'], calls: [{ name: 'process_refund', input: { id: 1 }, outcome: 'ok', output: 1, progress: [] }] }],
          paused: true,
        }),
      ),
    );
    const asked = first.message!;
    const answered: UIMessage = {
      ...asked,
      parts: asked.parts.map((p) =>
        p.type === 'tool-process_refund'
          ? ({ ...p, state: 'approval-responded', approval: { id: 'call-0-0', approved: true } } as typeof p)
          : p,
      ),
    };
    const done: ToolCallRecord = {
      id: 'call-0-0',
      name: 'process_refund',
      arguments: '{"id":1}',
      result: '{"refunded":1}',
      status: 'ok',
      durationMs: 0,
    };
    async function* resumed(): AsyncGenerator<AgentEvent> {
      yield { type: 'run-start', runId: RUN, sessionId: 's', resumed: true };
      yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'call-0-0', name: 'process_refund', arguments: '{"id":1}' };
      yield { type: 'tool-result', runId: RUN, turn: 1, record: done };
      yield { type: 'turn-end', runId: RUN, turn: 1, usage: { inputTokens: 0, outputTokens: 0 } };
      yield { type: 'text-delta', runId: RUN, turn: 2, delta: 'Done.' };
      yield { type: 'turn-end', runId: RUN, turn: 2, usage: { inputTokens: 1, outputTokens: 1 } };
    }
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(resumed(), { messageId: asked.id, announcedToolCalls: ['call-0-0'] })) chunks.push(chunk);
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'tool-output-available',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
    ]);
    const { message, errors } = await readAsClient(resumed(), answered, ['call-0-0']);
    expect(errors).toEqual([]);
    expect(message!.id).toBe(asked.id);
    expect(message!.parts.filter((p) => p.type === 'tool-process_refund')).toEqual([
      expect.objectContaining({ state: 'output-available', output: { refunded: 1 }, approval: { id: 'call-0-0', approved: true } }),
    ]);
    expect(message!.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))).toEqual(['Checking', 'Done.']);
  });

  it('a failure: open text is closed, unanswered calls fail, then one error chunk with the code only; no finish', async () => {
    async function* failing(): AsyncGenerator<AgentEvent> {
      yield { type: 'text-delta', runId: RUN, turn: 1, delta: 'Hi' };
      yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'c1', name: 'x', arguments: '{' };
      throw new ModelCallFailedError('m', 's', [], new Error('upstream secret'));
    }
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(failing())) chunks.push(chunk);
    expect(chunks).toEqual([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'text-start', id: 'r-1-0' },
      { type: 'text-delta', id: 'r-1-0', delta: 'Hi' },
      { type: 'text-end', id: 'r-1-0' },
      {
        type: 'tool-input-error',
        toolCallId: 'c1',
        toolName: 'x',
        input: '{',
        errorText: 'The model sent arguments that are not valid JSON.',
      },
      { type: 'tool-output-error', toolCallId: 'c1', errorText: 'An error occurred (MODEL_FAILED).' },
      { type: 'error', errorText: 'An error occurred (MODEL_FAILED).' },
    ]);
  });
});
