import { IsInt, IsOptional, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  MaxTurnsExceededError,
  Param,
  RetryBudgetExceededError,
  RunAbortedError,
  ScriptedModel,
  SessionForbiddenError,
  Tool,
  ToolCallFailedError,
  type AgentHooks,
  type Message,
  type ToolInterface,
} from 'toolwright';
import { type RunEndEvent, type RunStartEvent } from '../../src/agent';

class OrderIdInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

class RefundArgs {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount' }) @IsOptional() @IsInt() @Min(1) amount?: number;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderIdInput })
class LookupTool implements ToolInterface<OrderIdInput> {
  execute({ order_id }: OrderIdInput, context: AgentContext) {
    context.setState('last_order_id', order_id);
    return { status: 'found', order_id, total: 42 };
  }
}

@Tool({ name: 'refund', description: 'Refund an order', input: RefundArgs })
class RefundTool implements ToolInterface<RefundArgs> {
  execute({ order_id, amount }: RefundArgs) {
    return { status: 'refunded', order_id, amount: amount ?? 42 };
  }
}

@Tool({ name: 'explode', description: 'Always fails', input: OrderIdInput })
class ExplodingTool implements ToolInterface<OrderIdInput> {
  execute(): never {
    throw new Error('db password=hunter2 at 10.0.0.7');
  }
}

@Tool({ name: 'explode_loudly', description: 'Fails, and says why', input: OrderIdInput, exposeErrors: true })
class LoudExplodingTool implements ToolInterface<OrderIdInput> {
  execute(): never {
    throw new Error('warehouse API is down');
  }
}

const session = (id = 's-1') => ({ sessionId: id, userId: 'u-1' });
const toolMessages = (messages: readonly Message[]) => messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
const allText = (model: ScriptedModel) => JSON.stringify(model.requests);

describe('Agent.run: the loop, history and saving', () => {
  it('returns the output, the tool calls, usage and the session id, and saves the turn', async () => {
    const store = new InMemoryStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: 't1', name: 'lookup', arguments: { order_id: 'A-1' } }] },
      (request) => ({ text: `Found: ${request.messages.at(-1)?.content}` }),
    ]);
    const agent = new Agent({ name: 'support', instructions: 'Be brief.', model, tools: [LookupTool], store });

    const result = await agent.run('Where is A-1?', session());

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Found: {"status":"found","order_id":"A-1","total":42}');
    expect(result.sessionId).toBe('s-1');
    expect(result.turns).toBe(2);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        id: 't1',
        name: 'lookup',
        arguments: '{"order_id":"A-1"}',
        status: 'ok',
        result: '{"status":"found","order_id":"A-1","total":42}',
      }),
    ]);
    expect(result.toolCalls[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(model.requests[0].instructions).toBe('Be brief.');
    expect(model.requests[0].tools.map((t) => t.name)).toEqual(['lookup']);

    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(saved?.userId).toBe('u-1');
    expect(saved?.userInput).toBe('Where is A-1?');
    expect(saved?.state).toMatchObject({ last_order_id: 'A-1', user_id: 'u-1' });
    expect(saved?.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('keeps tool results in the history, so a second run can refer to them', async () => {
    const store = new InMemoryStore();
    const first = new ScriptedModel([
      { toolCalls: [{ id: 't1', name: 'lookup', arguments: { order_id: 'A-7' } }] },
      { text: 'A-7 costs 42.' },
    ]);
    await new Agent({ name: 'support', model: first, tools: [LookupTool, RefundTool], store }).run('Look up A-7', session());

    // "refund that order": the model finds the order id in the earlier tool result.
    const second = new ScriptedModel([
      (request) => {
        const lookup = toolMessages(request.messages).find((m) => m.name === 'lookup');
        const { order_id } = JSON.parse(lookup!.content);
        return { toolCalls: [{ id: 't2', name: 'refund', arguments: { order_id } }] };
      },
      { text: 'Refunded.' },
    ]);
    const result = await new Agent({ name: 'support', model: second, tools: [LookupTool, RefundTool], store }).run(
      'Refund that order',
      session(),
    );

    expect(result.toolCalls[0].arguments).toBe('{"order_id":"A-7"}');
    expect(second.requests[0].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(toolMessages(saved!.history).map((m) => m.name)).toEqual(['lookup', 'refund']);
  });

  it('loads and saves the (agent, user) memory, which tools and instructions see', async () => {
    @Tool({ name: 'remember', description: 'Remember a fact', input: OrderIdInput })
    class RememberTool implements ToolInterface<OrderIdInput> {
      execute({ order_id }: OrderIdInput, _context: AgentContext, memory: import('toolwright').AgentMemory) {
        memory.addFact(`customer cares about ${order_id}`);
        return { status: 'ok' };
      }
    }
    const store = new InMemoryStore();
    const instructions = (_c: AgentContext, memory: import('toolwright').AgentMemory) =>
      `Facts: ${memory
        .getFacts()
        .map((f) => f.content)
        .join('; ')}`;
    const one = new ScriptedModel([{ toolCalls: [{ name: 'remember', arguments: { order_id: 'A-9' } }] }, { text: 'ok' }]);
    await new Agent({ name: 'support', instructions, model: one, tools: [RememberTool], store }).run('hi', session('s-a'));

    const two = new ScriptedModel([{ text: 'hello again' }]);
    await new Agent({ name: 'support', instructions, model: two, tools: [RememberTool], store }).run('hi', session('s-b'));
    expect(two.requests[0].instructions).toBe('Facts: customer cares about A-9');

    const otherUser = new ScriptedModel([{ text: 'hi' }]);
    await new Agent({ name: 'support', instructions, model: otherUser, tools: [RememberTool], store }).run('hi', {
      sessionId: 's-c',
      userId: 'u-2',
    });
    expect(otherUser.requests[0].instructions).toBe('Facts: ');
  });

  it("refuses another user's session", async () => {
    const store = new InMemoryStore();
    await new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), tools: [LookupTool], store }).run('hi', session());
    const model = new ScriptedModel([{ text: 'never' }]);
    await expect(
      new Agent({ name: 'a', model, tools: [LookupTool], store }).run('hi', { sessionId: 's-1', userId: 'mallory' }),
    ).rejects.toBeInstanceOf(SessionForbiddenError);
    expect(model.requests).toHaveLength(0);
  });

  it('fails with MaxTurnsExceededError carrying the history', async () => {
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-1' } }] }));
    const agent = new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [LookupTool], maxTurns: 3 });
    const error = await agent.run('loop', session()).catch((e) => e);
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    expect(error.code).toBe('MAX_TURNS_EXCEEDED');
    expect(toolMessages(error.history)).toHaveLength(3);
    expect(model.requests).toHaveLength(3);
  });
});

describe('parallel and sequential tool calls', () => {
  function gate() {
    const state = { inFlight: 0, max: 0, order: [] as string[] };
    const enter = async (label: string) => {
      state.inFlight++;
      state.max = Math.max(state.max, state.inFlight);
      state.order.push(`start ${label}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      state.order.push(`end ${label}`);
      state.inFlight--;
    };
    return { state, enter };
  }

  it('runs the calls of one response concurrently, at most maxConcurrency at a time', async () => {
    const g = gate();
    @Tool({ name: 'slow', description: 'slow', input: OrderIdInput })
    class SlowTool implements ToolInterface<OrderIdInput> {
      async execute({ order_id }: OrderIdInput) {
        await g.enter(order_id);
        return { order_id };
      }
    }
    const calls = Array.from({ length: 7 }, (_, i) => ({ id: `c${i}`, name: 'slow', arguments: { order_id: `O-${i}` } }));
    const model = new ScriptedModel([{ toolCalls: calls }, { text: 'done' }]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [SlowTool], maxConcurrency: 3 }).run(
      'go',
      session(),
    );

    expect(g.state.max).toBe(3);
    // Results go to the model in call order, whatever order they finished in.
    expect(toolMessages(model.requests[1].messages).map((m) => m.toolCallId)).toEqual(calls.map((c) => c.id));
    expect(result.toolCalls.map((c) => c.id)).toEqual(calls.map((c) => c.id));
  });

  it('runs a sequential tool alone, never beside other calls', async () => {
    const g = gate();
    @Tool({ name: 'par', description: 'parallel', input: OrderIdInput })
    class ParTool implements ToolInterface<OrderIdInput> {
      async execute({ order_id }: OrderIdInput) {
        await g.enter(order_id);
        return {};
      }
    }
    @Tool({ name: 'seq', description: 'sequential', input: OrderIdInput, sequential: true })
    class SeqTool implements ToolInterface<OrderIdInput> {
      async execute({ order_id }: OrderIdInput) {
        expect(g.state.inFlight).toBe(0);
        await g.enter(order_id);
        return {};
      }
    }
    const c = (name: string, id: string) => ({ id, name, arguments: { order_id: id } });
    const model = new ScriptedModel([
      { toolCalls: [c('par', 'p1'), c('par', 'p2'), c('seq', 's1'), c('par', 'p3'), c('par', 'p4')] },
      { text: 'done' },
    ]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [ParTool, SeqTool], maxConcurrency: 4 }).run(
      'go',
      session(),
    );

    expect(result.toolCalls.every((r) => r.status === 'ok')).toBe(true);
    const order = g.state.order;
    expect(order.indexOf('start s1')).toBeGreaterThan(Math.max(order.indexOf('end p1'), order.indexOf('end p2')));
    expect(order.indexOf('end s1')).toBeLessThan(Math.min(order.indexOf('start p3'), order.indexOf('start p4')));
    expect(g.state.max).toBe(2);
  });

  it("keeps the siblings' results when one call fails", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'ok1', name: 'lookup', arguments: { order_id: 'A-1' } },
          { id: 'bad', name: 'explode', arguments: { order_id: 'A-2' } },
          { id: 'ok2', name: 'lookup', arguments: { order_id: 'A-3' } },
        ],
      },
    ]);
    const store = new InMemoryStore();
    const error = await new Agent({ name: 'a', model, tools: [LookupTool, ExplodingTool], store }).run('go', session()).catch((e) => e);

    expect(error).toBeInstanceOf(ToolCallFailedError);
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.toolName).toBe('explode');
    const results = toolMessages(error.history);
    expect(results.map((m) => [m.toolCallId, m.isError ?? false])).toEqual([
      ['ok1', false],
      ['bad', true],
      ['ok2', false],
    ]);
    // The failed turn is saved too: nothing the tools did is lost, and the history stays well-formed.
    const saved = await store.loadSession({ sessionId: 's-1' });
    expect(toolMessages(saved!.history)).toHaveLength(3);
    expect(saved!.state.last_order_id).toBe('A-3');
  });
});

describe('model-correctable errors and the retry budget', () => {
  it('sends INVALID_ARGUMENTS back to the model, which corrects the call', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order_id: 'A-1', amount: -5 } }] },
      (request) => {
        const last = JSON.parse(String(request.messages.at(-1)?.content));
        expect(last.code).toBe('INVALID_ARGUMENTS');
        return { toolCalls: [{ name: 'refund', arguments: { order_id: 'A-1', amount: 5 } }] };
      },
      { text: 'done' },
    ]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [RefundTool] }).run('refund 5', session());
    expect(result.toolCalls.map((c) => [c.status, c.code])).toEqual([
      ['error', 'INVALID_ARGUMENTS'],
      ['ok', undefined],
    ]);
    const error = JSON.parse(result.toolCalls[0].result);
    expect(error.errors[0]).toMatchObject({ path: 'amount', constraint: 'min' });
  });

  it('sends INVALID_JSON and TOOL_NOT_FOUND back as the error result', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'j', name: 'refund', arguments: '{"order_id": ' },
          { id: 'n', name: 'refund_everything', arguments: {} },
        ],
      },
      { text: 'sorry' },
    ]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [RefundTool] }).run('x', session());
    const [json, missing] = toolMessages(model.requests[1].messages);
    expect(JSON.parse(json.content).code).toBe('INVALID_JSON');
    expect(JSON.parse(missing.content)).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    expect(result.output).toBe('sorry');
  });

  it('fails past the per-tool budget with RetryBudgetExceededError carrying the history', async () => {
    const bad = { toolCalls: [{ name: 'refund', arguments: { order_id: '' } }] };
    const model = new ScriptedModel([bad, bad, bad, { text: 'never' }]);
    const error = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [RefundTool] })
      .run('x', session())
      .catch((e) => e);

    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect(error.code).toBe('RETRY_BUDGET_EXCEEDED');
    expect(error.toolName).toBe('refund');
    expect(error.attempts).toBe(3);
    expect(error.cause.code).toBe('INVALID_ARGUMENTS');
    expect(toolMessages(error.history)).toHaveLength(3);
    expect(model.requests).toHaveLength(3);
  });

  it('honours a per-tool budget', async () => {
    const bad = { toolCalls: [{ name: 'refund', arguments: { order_id: '' } }] };
    const model = new ScriptedModel([bad, { text: 'never' }]);
    const error = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [RefundTool],
      retryBudget: 5,
      retryBudgets: { refund: 0 },
    })
      .run('x', session())
      .catch((e) => e);
    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect(error.attempts).toBe(1);
  });
});

describe('the error boundary', () => {
  const failing = () =>
    new ScriptedModel([{ toolCalls: [{ id: 'x1', name: 'explode', arguments: { order_id: 'A-1' } }] }, { text: 'I could not do that.' }]);

  it('throws a typed error by default, and the raw message is never sent to a model', async () => {
    const model = failing();
    const error = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [ExplodingTool] })
      .run('x', session())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolCallFailedError);
    expect(error.toolCallId).toBe('x1');
    expect(error.cause.cause.message).toContain('hunter2');
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(error.history)).not.toContain('hunter2');
  });

  it("with 'redact', the model gets a redacted result and the run goes on", async () => {
    const model = failing();
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [ExplodingTool], errorPolicy: 'redact' }).run(
      'x',
      session(),
    );
    expect(result.output).toBe('I could not do that.');
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'TOOL_FAILED' });
    const seen = toolMessages(model.requests[1].messages)[0];
    expect(seen.isError).toBe(true);
    expect(JSON.parse(seen.content)).toEqual({ status: 'error', code: 'TOOL_FAILED', message: 'Tool "explode" failed unexpectedly.' });
    expect(allText(model)).not.toContain('hunter2');
  });

  it('shows the message only when the tool opts in with exposeErrors', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'explode_loudly', arguments: { order_id: 'A-1' } }] }, { text: 'ok' }]);
    await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [LoudExplodingTool], errorPolicy: 'redact' }).run(
      'x',
      session(),
    );
    expect(allText(model)).toContain('warehouse API is down');
  });

  it('takes a policy function per error', async () => {
    const model = failing();
    const seen: string[] = [];
    const result = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [ExplodingTool],
      errorPolicy: (error, call) => {
        seen.push(`${error.code}:${call.name}`);
        return 'redact';
      },
    }).run('x', session());
    expect(seen).toEqual(['TOOL_FAILED:explode']);
    expect(result.status).toBe('completed');
  });

  it('treats a broken output contract as unexpected (INVALID_OUTPUT)', async () => {
    @Tool({ name: 'broken_output', description: 'returns junk', input: OrderIdInput })
    class BrokenOutputTool implements ToolInterface<OrderIdInput> {
      execute() {
        return 'not json {';
      }
    }
    const model = new ScriptedModel([{ toolCalls: [{ name: 'broken_output', arguments: { order_id: 'A' } }] }]);
    const error = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [BrokenOutputTool] })
      .run('x', session())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolCallFailedError);
    expect(error.code).toBe('INVALID_OUTPUT');
  });
});

describe('timeouts and cancellation', () => {
  function hangingTool(name: string, observed: { aborted?: unknown }, timeoutMs?: number) {
    @Tool({ name, description: 'hangs until aborted', input: OrderIdInput, timeoutMs })
    class HangingTool implements ToolInterface<OrderIdInput> {
      execute(_args: OrderIdInput, context: AgentContext) {
        return new Promise<object>((_, reject) => {
          context.signal.addEventListener('abort', () => {
            observed.aborted = context.signal.reason;
            reject(new Error('stopped'));
          });
        });
      }
    }
    return HangingTool;
  }

  it("times a tool out with its own timeoutMs, aborting the tool's signal", async () => {
    const observed: { aborted?: unknown } = {};
    const model = new ScriptedModel([{ toolCalls: [{ name: 'hang', arguments: { order_id: 'A' } }] }, { text: 'timed out' }]);
    const result = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [hangingTool('hang', observed, 20)],
      errorPolicy: 'redact',
      toolTimeoutMs: 60_000,
    }).run('x', session());
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'TOOL_TIMEOUT' });
    expect((observed.aborted as Error).name).toBe('ToolTimeoutError');
  });

  it("applies the agent's default timeout to tools that declare none, failing the run by default", async () => {
    const observed: { aborted?: unknown } = {};
    const model = new ScriptedModel([{ toolCalls: [{ name: 'hang2', arguments: { order_id: 'A' } }] }]);
    const error = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [hangingTool('hang2', observed)],
      toolTimeoutMs: 20,
    })
      .run('x', session())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolCallFailedError);
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(observed.aborted).toBeDefined();
  });

  it("the run's signal cancels running tools and fails the run with RunAbortedError", async () => {
    const observed: { aborted?: unknown } = {};
    const controller = new AbortController();
    const model = new ScriptedModel([
      () => {
        setTimeout(() => controller.abort(new Error('user left')), 10);
        return { toolCalls: [{ name: 'hang3', arguments: { order_id: 'A' } }] };
      },
      { text: 'never' },
    ]);
    const error = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [hangingTool('hang3', observed)],
      errorPolicy: 'redact',
    })
      .run('x', { ...session(), signal: controller.signal })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error.code).toBe('RUN_ABORTED');
    expect((observed.aborted as Error).message).toBe('user left');
    expect(model.requests).toHaveLength(1);
  });

  it('an already aborted signal never reaches the model', async () => {
    const model = new ScriptedModel([{ text: 'never' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [LookupTool] }).run('x', {
        ...session(),
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(RunAbortedError);
    expect(model.requests).toHaveLength(0);
  });
});

describe('hooks', () => {
  it('rewrites arguments, denies calls, rewrites results', async () => {
    const hooks: AgentHooks = {
      beforeToolCall: (event) => {
        if (event.name === 'refund') return { deny: 'Refunds are closed today' };
        if (event.name === 'lookup') return { arguments: { order_id: JSON.parse(event.arguments).order_id.toUpperCase() } };
        return undefined;
      },
      afterToolCall: (event) => (event.name === 'lookup' ? JSON.stringify({ ...JSON.parse(event.result), total: 'hidden' }) : undefined),
    };
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'l', name: 'lookup', arguments: { order_id: 'a-1' } },
          { id: 'r', name: 'refund', arguments: { order_id: 'A-1' } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [LookupTool, RefundTool], hooks }).run(
      'x',
      session(),
    );

    const [lookup, refund] = toolMessages(model.requests[1].messages);
    expect(JSON.parse(lookup.content)).toEqual({ status: 'found', order_id: 'A-1', total: 'hidden' });
    expect(JSON.parse(refund.content)).toEqual({ status: 'error', code: 'DENIED', message: 'Refunds are closed today' });
    expect(refund.isError).toBe(true);
    expect(result.toolCalls.map((c) => [c.status, c.arguments])).toEqual([
      ['ok', '{"order_id":"A-1"}'],
      ['denied', '{"order_id":"A-1"}'],
    ]);
  });

  it('reports tool errors and run start/end with timings, in order, for several hook sets', async () => {
    const log: string[] = [];
    let start: RunStartEvent | undefined;
    let end: RunEndEvent | undefined;
    const audit: AgentHooks = {
      onRunStart: (e) => {
        start = e;
        log.push('start');
      },
      onToolError: (e) => {
        log.push(`error ${e.name} ${e.error.code} ${e.handling}`);
      },
      onRunEnd: (e) => {
        end = e;
        log.push(`end ${e.status}`);
      },
    };
    const tracing: AgentHooks = {
      beforeToolCall: (e) => void log.push(`before ${e.name}`),
      afterToolCall: (e) => void log.push(`after ${e.name}`),
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order_id: '' } }] },
      { toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { text: 'done' },
    ]);
    await new Agent({ store: new InMemoryStore(), name: 'support', model, tools: [LookupTool, RefundTool], hooks: [audit, tracing] }).run(
      'hello',
      session(),
    );

    expect(log).toEqual([
      'start',
      'before refund',
      'error refund INVALID_ARGUMENTS retry',
      'before lookup',
      'after lookup',
      'end completed',
    ]);
    expect(start).toMatchObject({ agentName: 'support', sessionId: 's-1', userId: 'u-1', input: 'hello', resumed: false });
    expect(end!.runId).toBe(start!.runId);
    expect(end!.durationMs).toBeGreaterThanOrEqual(0);
    expect(end!.turns).toBe(3);
    expect(end!.toolCalls).toHaveLength(2);
  });

  it('reports a failed run to onRunEnd with the error', async () => {
    let end: RunEndEvent | undefined;
    const model = new ScriptedModel([{ toolCalls: [{ name: 'explode', arguments: { order_id: 'A' } }] }]);
    await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: [ExplodingTool], hooks: { onRunEnd: (e) => void (end = e) } })
      .run('x', session())
      .catch(() => undefined);
    expect(end?.status).toBe('failed');
    expect(end?.error).toBeInstanceOf(ToolCallFailedError);
  });

  it('a hook that throws is an unexpected failure of that call, handled by the boundary', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { order_id: 'A' } }] }, { text: 'ok' }]);
    const result = await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [LookupTool],
      errorPolicy: 'redact',
      hooks: {
        beforeToolCall: () => {
          throw new Error('audit sink secret-token down');
        },
      },
    }).run('x', session());
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'TOOL_FAILED' });
    expect(allText(model)).not.toContain('secret-token');
  });
});
