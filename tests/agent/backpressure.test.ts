import { IsString, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  Param,
  RunAbortedError,
  ScriptedModel,
  Tool,
  type AgentEvent,
  type Model,
  type ToolInterface,
} from 'toolwright';
import { type ModelResponse, type ModelStreamPart } from '../../src/agent/models';
import { STREAM_HIGH_WATER } from '../../src/agent/event-stream';

/**
 * Backpressure: a streamed run goes at its reader's pace. A reader that sleeps holds a few events,
 * not the model's whole answer, and a tool's flood of progress reports stays one event per call.
 */

/** Lets every pending microtask and a few macrotask turns run: a run that does not wait would have pulled everything by then. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Streams `parts` one-word deltas (then finish), counting each part the run asked for. */
class CountingModel implements Model {
  readonly name = 'counting';
  pulled = 0;
  /** Set when the model's stream was closed (finished, or returned by the run). */
  closed = false;
  constructor(private readonly parts: number) {}
  generate(): Promise<ModelResponse> {
    return Promise.reject(new Error('unused: the run streams'));
  }
  async *stream(): AsyncGenerator<ModelStreamPart> {
    try {
      for (let i = 0; i < this.parts; i++) {
        this.pulled++;
        yield { type: 'text-delta', delta: 'w ' };
      }
      const response: ModelResponse = {
        content: 'w '.repeat(this.parts),
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: 'stop',
      };
      yield { type: 'finish', response };
    } finally {
      this.closed = true;
    }
  }
}

class JobInput {
  @Param({ description: 'Job id' }) @IsString() @MinLength(1) job!: string;
}

const REPORTS = 100_000;
const finished: string[] = [];
let allDone: (() => void) | undefined;

/** Reports its progress 100,000 times, then answers. */
@Tool({ name: 'crunch', description: 'Crunches numbers, reporting each step', input: JobInput })
class CrunchTool implements ToolInterface<JobInput> {
  async execute({ job }: JobInput, context: AgentContext) {
    for (let i = 1; i <= REPORTS; i++) {
      context.reportProgress(i, REPORTS, `step ${i}`);
      if (i % 10_000 === 0) await Promise.resolve(); // the other call reports in between
    }
    finished.push(job);
    if (finished.length === 2) allDone?.();
    return { job, steps: REPORTS };
  }
}

const who = { sessionId: 's-bp', userId: 'u-1' };

describe('agent.stream: backpressure', () => {
  it('pulls the model as the reader reads: after one read a bounded number of 50,000 parts were asked for', async () => {
    const model = new CountingModel(50_000);
    const agent = new Agent({ name: 'desk', model, tools: [], store: new InMemoryStore() });
    const stream = agent.stream('talk', who);

    await expect(stream.next()).resolves.toMatchObject({ value: { type: 'run-start' } });
    await settle();
    expect(model.pulled).toBeGreaterThan(0);
    expect(model.pulled).toBeLessThanOrEqual(STREAM_HIGH_WATER + 2);

    // Every further read lets the run ask for about one more part, never the rest of the answer.
    let read = 0;
    for (; read < 1000; read++) {
      const next = await stream.next();
      expect(next.value).toMatchObject({ type: 'text-delta', delta: 'w ' });
    }
    await settle();
    expect(model.pulled).toBeLessThanOrEqual(read + STREAM_HIGH_WATER + 2);

    // The rest arrives whole, in order, and the run completes.
    let deltas = read;
    let end: Extract<AgentEvent, { type: 'run-end' }> | undefined;
    for await (const event of stream) {
      if (event.type === 'text-delta') deltas++;
      if (event.type === 'run-end') end = event;
    }
    expect(deltas).toBe(50_000);
    expect(model.pulled).toBe(50_000);
    expect(end?.result).toMatchObject({ status: 'completed', output: 'w '.repeat(50_000) });
  });

  it('a reader that leaves while the run waits for room: the model is not asked again and its stream is closed', async () => {
    const model = new CountingModel(50_000);
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model, tools: [], store });
    const stream = agent.stream('talk', who);
    await stream.next();
    await settle();
    const pulled = model.pulled;
    await stream.return!();
    expect(model.pulled).toBeLessThanOrEqual(pulled + 1);
    expect(model.closed).toBe(true);
    // No half answer kept.
    expect((await store.loadSession({ sessionId: 's-bp' }))!.history.map((m) => m.role)).toEqual(['user']);
  });

  it("the caller's signal while the run waits for room: the run ends as RunAbortedError without asking the model again", async () => {
    const model = new CountingModel(50_000);
    const caller = new AbortController();
    const agent = new Agent({ name: 'desk', model, tools: [], store: new InMemoryStore() });
    const stream = agent.stream('talk', { ...who, signal: caller.signal });
    await stream.next();
    await settle();
    const pulled = model.pulled;
    caller.abort(new Error('user hung up'));
    await settle();
    expect(model.pulled).toBeLessThanOrEqual(pulled + 1);
    expect(model.closed).toBe(true);
    // The queued events, then the run's error.
    const drain = async () => {
      for await (const event of stream) void event;
    };
    await expect(drain()).rejects.toBeInstanceOf(RunAbortedError);
  });

  it('100,000 progress reports per call while the reader sleeps: a bounded few per call, ending with the latest', async () => {
    finished.length = 0;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'crunch', arguments: { job: 'a' } },
          { id: 'b', name: 'crunch', arguments: { job: 'b' } },
        ],
      },
      { text: 'crunched' },
    ]);
    const agent = new Agent({ name: 'desk', model, tools: [CrunchTool], store: new InMemoryStore() });
    const stream = agent.stream('crunch both', who);
    await expect(stream.next()).resolves.toMatchObject({ value: { type: 'run-start' } });
    await done; // both tools reported all their progress while nothing was read
    await settle();

    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const progress = events.filter((e): e is Extract<AgentEvent, { type: 'tool-progress' }> => e.type === 'tool-progress');
    // Reported below the high-water mark, then coalesced: bounded, not 200,000.
    expect(progress.length).toBeLessThanOrEqual(STREAM_HIGH_WATER);
    for (const id of ['a', 'b']) {
      const mine = progress.filter((e) => e.toolCallId === id);
      expect(mine.at(-1)).toMatchObject({ progress: REPORTS, total: REPORTS, message: `step ${REPORTS}` });
      // In order, and before the call's result.
      expect(mine.map((e) => e.progress)).toEqual([...mine.map((e) => e.progress)].sort((x, y) => x - y));
      const result = events.findIndex((e) => e.type === 'tool-result' && e.record.id === id);
      expect(events.lastIndexOf(mine.at(-1)!)).toBeLessThan(result);
    }
    expect(events.at(-1)).toMatchObject({ type: 'run-end', result: { status: 'completed', output: 'crunched' } });
  });
});
