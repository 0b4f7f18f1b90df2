import { getEventListeners } from 'node:events';
import { IsString, MinLength } from 'class-validator';
import fc from 'fast-check';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  Param,
  RunAbortedError,
  Tool,
  ToolRegistry,
  ToolTimeoutError,
  type AgentEvent,
  type Message,
  type Model,
  type ToolInterface,
} from 'toolwright';
import { type ModelRequest, type ModelResponse } from '../../src/agent/models';

/**
 * A streamed run creates an AbortSignal only when a tool or the model reads one (Node 20 makes
 * creating one cost microseconds). These tests pin what that laziness must not change: leaving
 * the loop or the caller's signal still cancels every call, whenever (or whether) a tool looks.
 */

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderInput })
class LookupTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    return { order_id, status: 'shipped' };
  }
}

/** How a hanging tool treats its signal: never reads it, listens at once, or reads it only after the run ended. */
type Reader = 'never' | 'listens' | 'later';
const contexts: { reader: Reader; context: AgentContext; fired: number }[] = [];

const hangingTool = (reader: Reader) => {
  @Tool({ name: `hang_${reader}`, description: 'Hangs until cancelled', input: OrderInput })
  class HangTool implements ToolInterface<OrderInput> {
    execute(_: OrderInput, context: AgentContext) {
      const seen = { reader, context, fired: 0 };
      contexts.push(seen);
      if (reader === 'listens') context.signal.addEventListener('abort', () => seen.fired++);
      return new Promise(() => undefined);
    }
  }
  return HangTool;
};
const TOOLS = [LookupTool, hangingTool('never'), hangingTool('listens'), hangingTool('later')];

/** Answers from a script (its first step again after a tool result) and never reads `request.signal`, like the bench's model. */
class BlindModel implements Model {
  readonly name = 'blind';
  constructor(private readonly steps: ModelResponse[]) {}
  generate({ messages }: { messages: readonly Message[] }): Promise<ModelResponse> {
    return Promise.resolve(this.steps[messages.at(-1)!.role === 'tool' ? 1 : 0]);
  }
}

const call = (id: string, name: string) => ({ id, name, arguments: JSON.stringify({ order_id: 'A-1' }) });
const who = { sessionId: 's-1', userId: 'u-1' };

async function drain(events: AsyncIterable<AgentEvent>, leaveOn?: (event: AgentEvent) => boolean): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (leaveOn?.(event)) break;
  }
  return seen;
}

function expectWellFormed(history: readonly Message[]): void {
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const results = history.slice(i + 1, i + 1 + m.toolCalls.length);
    expect(results.map((r) => (r.role === 'tool' ? r.toolCallId : r.role))).toEqual(m.toolCalls.map((c) => c.id));
  }
}

const codeOf = (message: Message | undefined) => JSON.parse((message as { content: string }).content).code as string;

afterEach(() => {
  jest.restoreAllMocks();
  contexts.length = 0;
});

describe('a streamed run creates no AbortSignal nobody reads', () => {
  it('neither the tools nor the model read one: none is created, none is combined', async () => {
    const outer = new AbortController().signal; // the caller's, created before counting
    const created = jest.spyOn(AbortController.prototype, 'signal', 'get');
    const combined = jest.spyOn(AbortSignal, 'any');
    const agent = new Agent({
      name: 'desk',
      model: new BlindModel([
        { content: null, toolCalls: [call('c1', 'lookup')] },
        { content: 'shipped', toolCalls: [] },
      ]),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const events = await drain(agent.stream('go', who));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', result: { status: 'completed', output: 'shipped' } });
    const events2 = await drain(agent.stream('again', { ...who, signal: outer }));
    expect(events2.at(-1)).toMatchObject({ type: 'run-end', result: { status: 'completed' } });
    expect(created).not.toHaveBeenCalled();
    expect(combined).not.toHaveBeenCalled();
    // The run unlinked itself from the caller's signal when it ended.
    expect(getEventListeners(outer, 'abort')).toHaveLength(0);
  });

  it('a model that reads request.signal gets a live one, and it fires when the consumer leaves', async () => {
    let signal: AbortSignal | undefined;
    let abortedWith: unknown;
    const listening: Model = {
      name: 'listening',
      generate(request: ModelRequest) {
        signal = request.signal;
        return new Promise((_, reject) =>
          signal!.addEventListener('abort', () => {
            abortedWith = signal!.reason;
            reject(new Error('cancelled'));
          }),
        );
      },
    };
    const store = new InMemoryStore();
    const agent = new Agent({ name: 'desk', model: listening, tools: TOOLS, store });
    const seen = await drain(agent.stream('go', who), (e) => e.type === 'run-start');
    expect(seen.map((e) => e.type)).toEqual(['run-start']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal!.aborted).toBe(true);
    expect((abortedWith as Error).name).toBe('AbortError');
    expect((await store.loadSession({ sessionId: 's-1' }))!.history.map((m) => m.role)).toEqual(['user']);
  });
});

describe('leaving the loop or the caller aborting cancels every call, whether or when its tool reads the signal', () => {
  it('a tool that never reads context.signal still fails ABORTED; one that reads it after the consumer left sees it aborted', async () => {
    const store = new InMemoryStore();
    const agent = new Agent({
      name: 'desk',
      model: new BlindModel([{ content: null, toolCalls: [call('n1', 'hang_never'), call('l1', 'hang_later')] }]),
      tools: TOOLS,
      store,
    });
    await drain(agent.stream('go', who), (e) => e.type === 'tool-call' && e.toolCallId === 'l1');
    const history = (await store.loadSession({ sessionId: 's-1' }))!.history;
    expectWellFormed(history);
    expect(history.slice(-2).map(codeOf)).toEqual(['ABORTED', 'ABORTED']);
    const later = contexts.find((c) => c.reader === 'later')!.context.signal;
    expect(later.aborted).toBe(true);
    expect((later.reason as Error).name).toBe('AbortError');
    expect(contexts.find((c) => c.reader === 'never')!.context.signal).toBe(later); // one signal per run
  });

  it("the caller's signal aborting mid-run aborts the run though nothing read a signal, and the run lets go of it", async () => {
    const controller = new AbortController();
    const agent = new Agent({
      name: 'desk',
      model: new BlindModel([{ content: null, toolCalls: [call('n1', 'hang_never')] }]),
      tools: TOOLS,
      store: new InMemoryStore(),
    });
    const seen: AgentEvent[] = [];
    const hungUp = new Error('user hung up');
    const consume = async () => {
      for await (const event of agent.stream('go', { ...who, signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'tool-call') setImmediate(() => controller.abort(hungUp));
      }
    };
    const error = (await consume().catch((e: unknown) => e)) as RunAbortedError;
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error.cause).toBe(hungUp);
    expect(seen.map((e) => e.type)).toEqual(['run-start', 'tool-call', 'tool-result']);
    expect(seen[2]).toMatchObject({ record: { id: 'n1', status: 'error', code: 'ABORTED' } });
    expect(contexts[0].context.signal.reason).toBe(hungUp);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("a caller's signal aborted before the first read: RunAbortedError with its reason, before any event", async () => {
    const reason = new Error('too late');
    const model = new BlindModel([{ content: 'never', toolCalls: [] }]);
    const agent = new Agent({ name: 'desk', model, tools: TOOLS, store: new InMemoryStore() });
    const seen: AgentEvent[] = [];
    const error = (await drain(agent.stream('go', { ...who, signal: AbortSignal.abort(reason) })).then(
      (events) => seen.push(...events),
      (e: unknown) => e,
    )) as RunAbortedError;
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error.cause).toBe(reason);
    expect(seen).toEqual([]);
  });

  it('for any mix of tools (never / listening / reading later) and either canceller, every call fails ABORTED once', async () => {
    const reader = fc.constantFrom<Reader>('never', 'listens', 'later');
    await fc.assert(
      fc.asyncProperty(fc.array(reader, { minLength: 1, maxLength: 4 }), fc.boolean(), async (readers, byCaller) => {
        contexts.length = 0;
        const store = new InMemoryStore();
        const calls = readers.map((r, i) => call(`c${i}`, `hang_${r}`));
        const agent = new Agent({ name: 'desk', model: new BlindModel([{ content: null, toolCalls: calls }]), tools: TOOLS, store });
        const controller = new AbortController();
        const lastId = calls.at(-1)!.id;
        let failure: unknown;
        try {
          for await (const event of agent.stream('go', { ...who, signal: controller.signal })) {
            if (event.type !== 'tool-call' || event.toolCallId !== lastId) continue;
            // The calls run once the last tool-call event is out; cancel while they hang.
            await new Promise((resolve) => setImmediate(resolve));
            if (!byCaller) break;
            controller.abort(new Error('caller'));
          }
        } catch (error) {
          failure = error;
        }
        if (byCaller) expect(failure).toBeInstanceOf(RunAbortedError);
        else expect(failure).toBeUndefined();
        const history = (await store.loadSession({ sessionId: 's-1' }))!.history;
        expectWellFormed(history);
        expect(history.slice(-calls.length).map(codeOf)).toEqual(calls.map(() => 'ABORTED'));
        expect(contexts).toHaveLength(calls.length);
        for (const seen of contexts) {
          expect(seen.fired).toBe(seen.reader === 'listens' ? 1 : 0);
          expect(seen.context.signal.aborted).toBe(true);
          const reason = seen.context.signal.reason as Error;
          if (byCaller) expect(reason.message).toBe('caller');
          else expect(reason.name).toBe('AbortError');
        }
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      }),
      { numRuns: 30 },
    );
  });
});

describe('a call with a timeout creates its signal only when the tool reads it', () => {
  it('read only after the timeout: already aborted, the timeout error its reason', async () => {
    let context: AgentContext | undefined;
    @Tool({ name: 'slow', description: 'Hangs, never looking at its signal', input: OrderInput, timeoutMs: 15 })
    class SlowTool implements ToolInterface<OrderInput> {
      execute(_: OrderInput, ctx: AgentContext) {
        context = ctx;
        return new Promise(() => undefined);
      }
    }
    const created = jest.spyOn(AbortController.prototype, 'signal', 'get');
    const registry = ToolRegistry.build({ tools: [SlowTool] });
    const error = await registry
      .call('slow', { order_id: 'A-1' }, new AgentContext({ sessionId: 's' }), new AgentMemory({ agentName: 'a', userId: 'u' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(created).not.toHaveBeenCalled();
    expect(context!.signal.aborted).toBe(true);
    expect(context!.signal.reason).toBe(error);
  });
});
