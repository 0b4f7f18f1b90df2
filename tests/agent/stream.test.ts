import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import fc from 'fast-check';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  ModelCallFailedError,
  ModelError,
  Param,
  RunAbortedError,
  RunPausedError,
  ScriptedModel,
  SqliteStore,
  Tool,
  ToolCallFailedError,
  type AgentEvent,
  type Message,
  type Model,
  type RunResult,
  type ScriptedStep,
  type SessionStore,
  type ToolInterface,
} from 'toolwright';
import { type ModelRequest, type ModelResponse, type ModelStreamPart } from '../../src/agent/models';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

class CountInput {
  @Param({ description: 'Steps' }) @IsInt() @Min(1) steps!: number;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderInput })
class LookupTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    return { order_id, status: 'shipped' };
  }
}

/** Reports progress once per step, then answers. */
@Tool({ name: 'count', description: 'Counts, reporting progress', input: CountInput })
class CountTool implements ToolInterface<CountInput> {
  async execute({ steps }: CountInput, context: AgentContext) {
    for (let i = 1; i <= steps; i++) {
      await Promise.resolve();
      context.reportProgress(i, steps, `step ${i}`);
    }
    return { counted: steps };
  }
}

/** Waits for the run's signal, and records what it saw. */
const waited: { aborted: boolean; reason: unknown }[] = [];
@Tool({ name: 'wait', description: 'Waits until cancelled', input: OrderInput })
class WaitTool implements ToolInterface<OrderInput> {
  execute(_: OrderInput, context: AgentContext) {
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener('abort', () => {
        waited.push({ aborted: context.signal.aborted, reason: context.signal.reason });
        reject(new Error('stopped'));
      });
    });
  }
}

/** Never settles and never looks at its signal. */
@Tool({ name: 'hang', description: 'Hangs forever', input: OrderInput })
class HangTool implements ToolInterface<OrderInput> {
  execute() {
    return new Promise(() => undefined);
  }
}

@Tool({ name: 'boom', description: 'Fails', input: OrderInput })
class BoomTool implements ToolInterface<OrderInput> {
  execute(): never {
    throw new Error('warehouse down');
  }
}

@Tool({ name: 'pay', description: 'Pays a refund', input: OrderInput, approval: true })
class PayTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    return { refunded: order_id };
  }
}

/** Keeps the signal it was given (as a tool that starts background work would). */
const kept: AbortSignal[] = [];
@Tool({ name: 'keep', description: 'Keeps its signal', input: OrderInput })
class KeepTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput, context: AgentContext) {
    kept.push(context.signal);
    return { order_id };
  }
}

const TOOLS = [LookupTool, CountTool, WaitTool, HangTool, BoomTool, PayTool];
const who = (sessionId = 's-1') => ({ sessionId, userId: 'u-1' });

/**
 * A model that streams: ScriptedModel's answer, its text in chunks of `size` characters, each tool
 * call complete, then `finish` with the whole response. Independent of any model's own `stream`.
 */
class ChunkedModel implements Model {
  readonly name = 'chunked';
  constructor(
    readonly inner: Model,
    private readonly size = 3,
  ) {}
  generate(request: ModelRequest): Promise<ModelResponse> {
    return this.inner.generate(request);
  }
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const response = await this.inner.generate(request);
    const text = response.content ?? '';
    for (let i = 0; i < text.length; i += this.size) {
      await Promise.resolve();
      yield { type: 'text-delta', delta: text.slice(i, i + this.size) };
    }
    for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
    yield { type: 'finish', response };
  }
}

/** The same model without `stream` (ScriptedModel may gain one; this one never has it). */
const generateOnly = (model: Model): Model => ({ name: model.name, generate: (request) => model.generate(request) });

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** What differs between two runs of the same script: ids and timings. */
function comparable(result: RunResult): unknown {
  return {
    ...result,
    runId: '-',
    durationMs: 0,
    toolCalls: result.toolCalls.map((c) => ({ ...c, durationMs: 0 })),
  };
}

/** Every assistant tool call has its result right after it (providers refuse anything else). */
function expectWellFormed(history: readonly Message[]): void {
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role === 'tool')
      expect(history.slice(0, i).some((p) => p.role === 'assistant' && p.toolCalls?.some((c) => c.id === m.toolCallId))).toBe(true);
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const results = history.slice(i + 1, i + 1 + m.toolCalls.length);
    expect(results.map((r) => (r.role === 'tool' ? r.toolCallId : r.role))).toEqual(m.toolCalls.map((c) => c.id));
  }
}

const scriptTwoTurns = (): ScriptedStep[] => [
  { text: 'Let me check.', toolCalls: [{ id: 'c1', name: 'lookup', arguments: { order_id: 'A-1' } }] },
  { toolCalls: [{ id: 'c2', name: 'count', arguments: { steps: 2 } }] },
  { text: 'A-1 has shipped; counted to two.' },
];

describe('agent.stream: events', () => {
  it('yields run-start, per turn its deltas, calls, progress, results and turn-end, then run-end with the RunResult', async () => {
    const agent = new Agent({
      name: 'desk',
      model: new ChunkedModel(new ScriptedModel(scriptTwoTurns())),
      tools: TOOLS,
      store: new InMemoryStore(),
    });

    const events = await collect(agent.stream('Where is A-1?', who()));

    const runId = events[0].runId;
    expect(events.every((e) => e.runId === runId)).toBe(true);
    expect(events.map((e) => (e.type === 'text-delta' ? `delta:${e.turn}` : e.type))).toEqual([
      'run-start',
      ...Array(5).fill('delta:1'), // 'Let me check.' in threes
      'tool-call',
      'tool-result',
      'turn-end',
      'tool-call',
      'tool-progress',
      'tool-progress',
      'tool-result',
      'turn-end',
      ...Array(11).fill('delta:3'),
      'turn-end',
      'run-end',
    ]);
    expect(events[0]).toEqual({ type: 'run-start', runId, sessionId: 's-1', resumed: false });
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', runId, turn: 1, toolCallId: 'c1', name: 'lookup', arguments: '{"order_id":"A-1"}' },
      { type: 'tool-call', runId, turn: 2, toolCallId: 'c2', name: 'count', arguments: '{"steps":2}' },
    ]);
    expect(events.filter((e) => e.type === 'tool-progress')).toEqual([
      { type: 'tool-progress', runId, toolCallId: 'c2', name: 'count', progress: 1, total: 2, message: 'step 1' },
      { type: 'tool-progress', runId, toolCallId: 'c2', name: 'count', progress: 2, total: 2, message: 'step 2' },
    ]);
    const end = events.at(-1) as Extract<AgentEvent, { type: 'run-end' }>;
    expect(end.result.output).toBe('A-1 has shipped; counted to two.');
    expect(end.result.runId).toBe(runId);
    // The results and per-turn usage in the events are the run's.
    expect(events.flatMap((e) => (e.type === 'tool-result' ? [e.record] : []))).toEqual(end.result.toolCalls);
    const turnEnds = events.flatMap((e) => (e.type === 'turn-end' ? [e] : []));
    expect(turnEnds.map((e) => e.turn)).toEqual([1, 2, 3]);
    expect(turnEnds.reduce((n, e) => n + e.usage.inputTokens, 0)).toBe(end.result.usage.inputTokens);
    expect(turnEnds.reduce((n, e) => n + e.usage.outputTokens, 0)).toBe(end.result.usage.outputTokens);
    const lastDeltas = events.flatMap((e) => (e.type === 'text-delta' && e.turn === 3 ? [e.delta] : []));
    expect(lastDeltas.join('')).toBe(end.result.output);
    // Plain data: the events cross a wire unchanged.
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);
  });

  it('a model without stream still streams: one delta per turn with text, from generate', async () => {
    const agent = new Agent({
      name: 'desk',
      model: generateOnly(new ScriptedModel(scriptTwoTurns())),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const events = await collect(agent.stream('Where is A-1?', who()));
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [[e.turn, e.delta]] : []))).toEqual([
      [1, 'Let me check.'],
      [3, 'A-1 has shipped; counted to two.'],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', result: { status: 'completed', turns: 3 } });
  });

  it('ends with the same RunResult and session as run(), for any script (differential)', async () => {
    const call = fc.oneof(
      fc.record({
        name: fc.constant('lookup'),
        arguments: fc.oneof(fc.constant({ order_id: 'A-1' }), fc.constant({ order_id: '' }), fc.constant('{bad')),
      }),
      fc.record({ name: fc.constant('count'), arguments: fc.record({ steps: fc.integer({ min: 0, max: 3 }) }) }),
      fc.record({ name: fc.constant('nope'), arguments: fc.constant({}) }),
    );
    const step = fc.record({
      text: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
      toolCalls: fc.array(call, { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 3 }), fc.string({ maxLength: 20 }), fc.boolean(), async (steps, final, chunked) => {
        const script = (): ScriptedStep[] => [...steps.map((s) => ({ ...s })), { text: final }];
        const run = async (streamed: boolean) => {
          const store = new InMemoryStore();
          const model = new ScriptedModel(script());
          const agent = new Agent({
            name: 'desk',
            model: streamed && chunked ? new ChunkedModel(model, 2) : model,
            tools: TOOLS,
            store,
            retryBudget: 9,
          });
          let result: RunResult | undefined;
          let error: unknown;
          try {
            if (!streamed) result = await agent.run('go', who());
            else {
              const events = await collect(agent.stream('go', who()));
              const end = events.at(-1);
              result = end?.type === 'run-end' ? end.result : undefined;
            }
          } catch (e) {
            error = e;
          }
          const session = await store.loadSession({ sessionId: 's-1' });
          return {
            result: result && comparable(result),
            error: error && [(error as Error).constructor.name, (error as Error).message],
            history: session?.history,
          };
        };
        expect(await run(true)).toEqual(await run(false));
      }),
      { numRuns: 40 },
    );
  });
});

describe('agent.stream: leaving early cancels the run', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'tw-stream-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const stores: [string, () => SessionStore][] = [
    ['in-memory', () => new InMemoryStore()],
    ['sqlite', () => new SqliteStore({ path: path.join(dir, `${Math.random().toString(36).slice(2)}.db`) })],
  ];

  describe.each(stores)('on %s', (name, makeStore) => {
    it('break while a tool runs: the tool sees the signal, the run stops, the session is well-formed and usable', async () => {
      const store = makeStore();
      waited.length = 0;
      const model = new ScriptedModel([
        {
          text: 'one moment',
          toolCalls: [
            { id: 'w1', name: 'wait', arguments: { order_id: 'A-1' } },
            { id: 'l1', name: 'lookup', arguments: { order_id: 'A-1' } },
          ],
        },
        { text: 'never asked' },
      ]);
      // generate only: one text delta (ScriptedModel may stream its text in chunks).
      const agent = new Agent({ name: 'desk', model: generateOnly(model), tools: TOOLS, store });
      const seen: string[] = [];
      for await (const event of agent.stream('go', who())) {
        seen.push(event.type);
        if (event.type === 'tool-call' && event.toolCallId === 'l1') break;
      }
      expect(seen).toEqual(['run-start', 'text-delta', 'tool-call', 'tool-call']);
      // The loop is left only once the run has stopped: the tool already saw its signal fire. With durable
      // steps (SQLite) the call is claimed in the store first, so the cancel may come before it started: then it never runs.
      if (name === 'in-memory') expect(waited).toHaveLength(1);
      else expect(waited.length).toBeLessThanOrEqual(1);
      for (const seenSignal of waited) {
        expect(seenSignal.aborted).toBe(true);
        expect((seenSignal.reason as Error).name).toBe('AbortError');
      }
      expect(model.requests).toHaveLength(1); // the model was not asked again

      const session = await store.loadSession({ sessionId: 's-1' });
      const history = session!.history;
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
      expectWellFormed(history);
      expect(history[2]).toMatchObject({ role: 'tool', toolCallId: 'w1', isError: true });
      expect(session!.pendingRun ?? null).toBeNull();

      // The session goes on.
      const next = new Agent({ name: 'desk', model: new ScriptedModel([{ text: 'back' }]), tools: TOOLS, store });
      await expect(next.run('again', who())).resolves.toMatchObject({ status: 'completed', output: 'back' });
      expectWellFormed((await store.loadSession({ sessionId: 's-1' }))!.history);
      await (store as { close?: () => Promise<void> }).close?.();
    });

    it("break at run-end cancels nothing: the run is completed and saved, a kept signal never fires, the caller's signal is let go", async () => {
      const store = makeStore();
      kept.length = 0;
      const caller = new AbortController();
      const model = new ScriptedModel([{ toolCalls: [{ id: 'k1', name: 'keep', arguments: { order_id: 'A-1' } }] }, { text: 'kept' }]);
      const agent = new Agent({ name: 'desk', model, tools: [KeepTool], store });
      let result: RunResult | undefined;
      for await (const event of agent.stream('go', { ...who('s-end'), signal: caller.signal })) {
        if (event.type !== 'run-end') continue;
        result = event.result;
        break;
      }
      expect(result).toMatchObject({ status: 'completed', output: 'kept' });
      expect(kept).toHaveLength(1);
      expect(kept[0].aborted).toBe(false);
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
      caller.abort();
      expect(kept[0].aborted).toBe(false);
      const history = (await store.loadSession({ sessionId: 's-end' }))!.history;
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(history.at(-1)).toMatchObject({ content: 'kept' });
      await (store as { close?: () => Promise<void> }).close?.();
    });

    it('break while a tool hangs ignoring its signal: the loop is left at once and the call is recorded as cancelled', async () => {
      const store = makeStore();
      const agent = new Agent({
        name: 'desk',
        model: new ScriptedModel([{ toolCalls: [{ id: 'h1', name: 'hang', arguments: { order_id: 'A-1' } }] }]),
        tools: TOOLS,
        store,
      });
      const stream = agent.stream('go', who());
      for await (const event of stream) if (event.type === 'tool-call') break;
      const history = (await store.loadSession({ sessionId: 's-1' }))!.history;
      expectWellFormed(history);
      expect(history.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'h1', isError: true });
      expect(JSON.parse((history.at(-1) as { content: string }).content)).toMatchObject({ code: 'ABORTED' });
      // A finished stream stays finished.
      await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
      await (store as { close?: () => Promise<void> }).close?.();
    });

    it('break while the model streams (and ignores the signal): no half answer is kept', async () => {
      const store = makeStore();
      let aborted: boolean | undefined;
      const stuck: Model = {
        name: 'stuck',
        generate: () => Promise.reject(new Error('unused')),
        async *stream(request) {
          yield { type: 'text-delta', delta: 'Hel' };
          await new Promise((resolve) => setTimeout(resolve, 50));
          aborted = request.signal?.aborted;
          await new Promise(() => undefined); // never finishes
        },
      };
      const agent = new Agent({ name: 'desk', model: stuck, tools: TOOLS, store });
      const deltas: string[] = [];
      for await (const event of agent.stream('hi', who())) {
        if (event.type === 'text-delta') {
          deltas.push(event.delta);
          break;
        }
      }
      expect(deltas).toEqual(['Hel']);
      const history = (await store.loadSession({ sessionId: 's-1' }))!.history;
      expect(history.map((m) => m.role)).toEqual(['user']);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(aborted).toBe(true); // the model's request signal fired too
      await (store as { close?: () => Promise<void> }).close?.();
    });
  });

  it("the caller's own signal cancels a streamed run like run(): the iterator throws RunAbortedError", async () => {
    const controller = new AbortController();
    const agent = new Agent({
      name: 'desk',
      model: new ScriptedModel([{ toolCalls: [{ id: 'w1', name: 'wait', arguments: { order_id: 'A-1' } }] }]),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const seen: AgentEvent[] = [];
    const consume = async () => {
      for await (const event of agent.stream('go', { ...who(), signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'tool-call') controller.abort(new Error('user hung up'));
      }
    };
    await expect(consume()).rejects.toBeInstanceOf(RunAbortedError);
    // The cancelled call still gets its result (the history stays well-formed), then the run fails.
    expect(seen.map((e) => e.type)).toEqual(['run-start', 'tool-call', 'tool-result']);
    expect(seen[2]).toMatchObject({ record: { id: 'w1', status: 'error', code: 'ABORTED' } });
  });

  it('a stream never read runs nothing', async () => {
    const model = new ScriptedModel([{ text: 'hi' }]);
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model, tools: TOOLS, store });
    const stream = agent.stream('go', who());
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(model.requests).toHaveLength(0);
    await stream.return!();
    expect(await store.loadSession({ sessionId: 's-1' })).toBeUndefined();
  });
});

describe('agent.stream: errors are the ones run() throws', () => {
  it('a model that throws mid-stream: the deltas so far, then ModelCallFailedError as from run()', async () => {
    const failing: Model = {
      name: 'flaky',
      generate: () => Promise.reject(new ModelError('flaky', 'connection reset', undefined, true)),
      async *stream() {
        yield { type: 'text-delta', delta: 'Part' };
        throw new ModelError('flaky', 'connection reset', undefined, true);
      },
    };
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model: failing, tools: TOOLS, store });
    const seen: AgentEvent[] = [];
    let streamed: unknown;
    try {
      for await (const event of agent.stream('hi', who('a'))) seen.push(event);
    } catch (error) {
      streamed = error;
    }
    const ran = await agent.run('hi', who('b')).catch((error: unknown) => error);
    expect(seen.map((e) => e.type)).toEqual(['run-start', 'text-delta']);
    expect(streamed).toBeInstanceOf(ModelCallFailedError);
    expect(ran).toBeInstanceOf(ModelCallFailedError);
    expect((streamed as ModelCallFailedError).code).toBe((ran as ModelCallFailedError).code);
    expect(((streamed as Error).cause as ModelError).message).toBe(((ran as Error).cause as ModelError).message);
    // The failed turn left the user's message and no half answer.
    expect((await store.loadSession({ sessionId: 'a' }))!.history.map((m) => m.role)).toEqual(['user']);
  });

  it('a model stream that ends without finish is a failed model call', async () => {
    const cut: Model = {
      name: 'cut',
      generate: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'text-delta', delta: 'Hal' };
      },
    };
    const agent = new Agent({ name: 'desk', model: cut, tools: TOOLS, store: new InMemoryStore() });
    const error = await collect(agent.stream('hi', who())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallFailedError);
    expect((error as Error).cause).toBeInstanceOf(ModelError);
  });

  it('a failing tool under the throw policy: the iterator throws ToolCallFailedError after the result event', async () => {
    const agent = new Agent({
      name: 'desk',
      model: new ScriptedModel([{ toolCalls: [{ id: 'b1', name: 'boom', arguments: { order_id: 'A-1' } }] }]),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const seen: string[] = [];
    const consume = async () => {
      for await (const event of agent.stream('go', who())) seen.push(event.type);
    };
    await expect(consume()).rejects.toBeInstanceOf(ToolCallFailedError);
    expect(seen).toEqual(['run-start', 'tool-call', 'tool-result']);
  });

  it('a session waiting for approval refuses a new streamed run with RunPausedError, before any event', async () => {
    const agent = new Agent({
      name: 'desk',
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { order_id: 'A-1' } }] }]),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    await agent.run('refund', who());
    const seen: AgentEvent[] = [];
    const consume = async () => {
      for await (const event of agent.stream('again', who())) seen.push(event);
    };
    await expect(consume()).rejects.toBeInstanceOf(RunPausedError);
    expect(seen).toEqual([]);
  });
});

describe('agent.stream: approvals', () => {
  it('a pause yields approval-required and run-end paused; streamResume runs the approved call and ends completed', async () => {
    const store = new InMemoryStore();
    const model = new ScriptedModel([
      { text: 'Refunding.', toolCalls: [{ id: 'p1', name: 'pay', arguments: { order_id: 'A-1' } }] },
      { text: 'Refunded A-1.' },
    ]);
    const agent = new Agent({ name: 'desk', model: generateOnly(model), tools: TOOLS, store });

    const paused = await collect(agent.stream('refund A-1', who()));
    expect(paused.map((e) => e.type)).toEqual(['run-start', 'text-delta', 'tool-call', 'turn-end', 'approval-required', 'run-end']);
    expect(paused[4]).toMatchObject({ approval: { toolCallId: 'p1', name: 'pay', args: { order_id: 'A-1' } } });
    const end = paused[5] as Extract<AgentEvent, { type: 'run-end' }>;
    expect(end.result).toMatchObject({ status: 'paused', output: null, approvals: [{ toolCallId: 'p1' }] });
    expect(end.result.approvals).toEqual(await agent.pendingApprovals(who()));

    const resumed = await collect(agent.streamResume({ ...who(), approver: 'boss' }, { p1: { approve: true } }));
    expect(resumed.map((e) => e.type)).toEqual(['run-start', 'tool-call', 'tool-result', 'turn-end', 'text-delta', 'turn-end', 'run-end']);
    expect(resumed[0]).toMatchObject({ resumed: true, runId: end.runId });
    expect(resumed[2]).toMatchObject({ record: { id: 'p1', status: 'ok', approval: { approved: true, approver: { id: 'boss' } } } });
    expect(resumed.at(-1)).toMatchObject({ type: 'run-end', result: { status: 'completed', output: 'Refunded A-1.', runId: end.runId } });
    expectWellFormed((await store.loadSession({ sessionId: 's-1' }))!.history);
  });
});

describe('agent.stream: the iterator', () => {
  it('answers reads that were not awaited one by one, in order', async () => {
    const agent = new Agent({
      name: 'desk',
      model: generateOnly(new ScriptedModel([{ text: 'hi' }])),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const stream = agent.stream('go', who());
    const reads = await Promise.all([stream.next(), stream.next(), stream.next(), stream.next(), stream.next(), stream.next()]);
    expect(reads.map((r) => (r.done ? 'done' : r.value.type))).toEqual(['run-start', 'text-delta', 'turn-end', 'run-end', 'done', 'done']);
  });
});
