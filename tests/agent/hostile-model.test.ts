/**
 * Issue 10: decisions, hostile model output, hook and provider failures, and what the peers have
 * (ModelRetry, stopWhen, tool-call repair). Store-independent runner logic, on the in-memory store.
 */
import { IsNumber, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  AgentMemory,
  AgentRunError,
  ApprovalDecisionError,
  InMemoryStore,
  ModelCallFailedError,
  ModelError,
  ModelRetryError,
  Param,
  RetryBudgetExceededError,
  ScriptedModel,
  Tool,
  ToolRegistry,
  type AgentHooks,
  type Message,
  type ToolInterface,
} from 'toolwright';
import { type ToolCallEvent } from '../../src/agent';

class Ledger {
  readonly refunds: Array<{ order: string; amount: number }> = [];
}
let ledger = new Ledger();
beforeEach(() => (ledger = new Ledger()));

class PayArgs {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount' }) @IsNumber() @Min(1) amount!: number;
}

@Tool({ name: 'pay_refund', description: 'Refund money (a human approves)', input: PayArgs, approval: true })
class PayRefundTool implements ToolInterface<PayArgs> {
  execute({ order_id, amount }: PayArgs) {
    ledger.refunds.push({ order: order_id, amount });
    return { status: 'refunded', order_id, amount };
  }
}

class OrderArgs {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup', description: 'Look up an order', input: OrderArgs })
class LookupTool implements ToolInterface<OrderArgs> {
  execute({ order_id }: OrderArgs) {
    if (!order_id.startsWith('A-')) throw new ModelRetryError(`No order "${order_id}". Order ids look like A-123; ask the user.`);
    return { status: 'found', order_id };
  }
}

@Tool({ name: 'explode', description: 'Always fails', input: OrderArgs })
class ExplodeTool implements ToolInterface<OrderArgs> {
  execute(): never {
    throw new Error('boom');
  }
}

@Tool({ name: 'final_answer', description: 'Give the final answer', input: OrderArgs })
class FinalAnswerTool implements ToolInterface<OrderArgs> {
  execute({ order_id }: OrderArgs) {
    return { answer: order_id };
  }
}

const who = { sessionId: 's-1', userId: 'u-1' };
const toolResults = (messages: readonly Message[]) => messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
const payCall = (id: string, amount: number) => ({ id, name: 'pay_refund', arguments: { order_id: 'A-1', amount } });

describe('one decision, one call', () => {
  it('records the approver apart from the session user, with the decision, and shows it to hooks', async () => {
    const store = new InMemoryStore();
    const seen: ToolCallEvent[] = [];
    const starts: Array<string | undefined> = [];
    const hooks: AgentHooks = {
      beforeToolCall: (e) => void seen.push(e),
      afterToolCall: (e) => void seen.push(e),
      onRunStart: (e) => void starts.push(e.approver?.id),
    };
    const agent = (model: ScriptedModel) => new Agent({ name: 'support', model, tools: [PayRefundTool], store, hooks });
    await agent(new ScriptedModel([{ toolCalls: [payCall('p1', 30), payCall('p2', 40)] }])).run('refund', who);

    const approver = { id: 'manager-7', role: 'team lead' };
    const partial = await agent(new ScriptedModel([])).approve({ ...who, approver }, 'p1', { order_id: 'A-1', amount: 25 });
    expect(partial.status).toBe('paused');
    // Recorded with the decision in the stored run, before anything runs.
    const stored = (await store.loadSession({ sessionId: 's-1' }))!.pendingRun as { decisions: Record<string, unknown> };
    expect(stored.decisions.p1).toMatchObject({ approve: true, approver, decidedAt: expect.any(Number) });

    const done = await agent(new ScriptedModel([{ text: 'ok' }])).reject({ ...who, approver: 'auditor-2' }, 'p2', 'too much');
    expect(done.toolCalls.map((c) => c.approval)).toEqual([
      { approved: true, approver, edited: true, decidedAt: expect.any(Number) },
      { approved: false, approver: { id: 'auditor-2' }, reason: 'too much', edited: false, decidedAt: expect.any(Number) },
    ]);
    expect(seen.map((e) => [e.name, e.userId, e.approval?.approver?.id])).toEqual([
      ['pay_refund', 'u-1', 'manager-7'],
      ['pay_refund', 'u-1', 'manager-7'],
    ]);
    expect(starts).toEqual([undefined, 'manager-7', 'auditor-2']);
    await expect(agent(new ScriptedModel([])).approve({ ...who, approver: '' }, 'p1')).rejects.toBeInstanceOf(ApprovalDecisionError);
  });

  it('makes call ids unique before anything is decided: one approval runs one call', async () => {
    const agent = (model: ScriptedModel) => new Agent({ name: 'support', model, tools: [PayRefundTool], store });
    const store = new InMemoryStore();
    const paused = await agent(new ScriptedModel([{ toolCalls: [payCall('c1', 500), payCall('c1', 9000)] }])).run('refund', who);
    expect(paused.approvals.map((a) => [a.toolCallId, (a.args as { amount: number }).amount])).toEqual([
      ['c1', 500],
      ['c1_2', 9000],
    ]);
    const still = await agent(new ScriptedModel([])).approve(who, 'c1');
    expect(still.status).toBe('paused');
    expect(ledger.refunds).toHaveLength(0);
    const model = new ScriptedModel([{ text: 'ok' }]);
    const done = await agent(model).reject(who, 'c1_2', 'no');
    expect(ledger.refunds.map((r) => r.amount)).toEqual([500]);
    expect(done.toolCalls.map((c) => [c.id, c.status])).toEqual([
      ['c1', 'ok'],
      ['c1_2', 'rejected'],
    ]);
    // The history the provider sees pairs each call with exactly one result.
    const history = model.requests[0].messages;
    const ids = (history[1] as { toolCalls: Array<{ id: string }> }).toolCalls.map((c) => c.id);
    expect(ids).toEqual(['c1', 'c1_2']);
    expect(toolResults(history).map((m) => m.toolCallId)).toEqual(ids);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'looks up call id %s as an own key: it waits for its own decision',
    async (id) => {
      const store = new InMemoryStore();
      const agent = (model: ScriptedModel) => new Agent({ name: 'support', model, tools: [PayRefundTool], store });
      const paused = await agent(new ScriptedModel([{ toolCalls: [payCall(id, 5), payCall('other', 6)] }])).run('refund', who);
      expect(paused.approvals.map((a) => a.toolCallId)).toEqual([id, 'other']);
      const half = await agent(new ScriptedModel([])).approve(who, 'other');
      expect(half.approvals.map((a) => a.toolCallId)).toEqual([id]);
      await expect(agent(new ScriptedModel([])).pendingApprovals(who)).resolves.toEqual([expect.objectContaining({ toolCallId: id })]);
      const done = await agent(new ScriptedModel([{ text: 'ok' }])).approve(who, id);
      expect(done.status).toBe('completed');
      expect(ledger.refunds.map((r) => r.amount)).toEqual([5, 6]);
      expect(({} as Record<string, unknown>).approve).toBeUndefined();
    },
  );

  it.each(['constructor', 'toString', '__proto__', 'valueOf'])('counts retries of an unknown tool named %s as a number', async (name) => {
    const model = new ScriptedModel(() => ({ toolCalls: [{ name, arguments: {} }] }));
    const error = await new Agent({ name: 'a', model, tools: [LookupTool], store: new InMemoryStore() })
      .run('x', who)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect((error as RetryBudgetExceededError).attempts).toBe(3);
    expect(model.requests).toHaveLength(3);
  });

  it('refuses an invalid edit to the approver with the field errors; the run stays paused and the model is not charged', async () => {
    const store = new InMemoryStore();
    const agent = (model: ScriptedModel) => new Agent({ name: 'support', model, tools: [PayRefundTool], store, retryBudget: 0 });
    await agent(new ScriptedModel([{ toolCalls: [payCall('p1', 80)] }])).run('refund', who);
    const untouched = new ScriptedModel([{ text: 'never' }]);
    const error = await agent(untouched)
      .approve(who, 'p1', { order_id: 'A-1', amount: -5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalDecisionError);
    expect((error as ApprovalDecisionError).errors).toEqual([expect.objectContaining({ path: 'amount', constraint: 'min' })]);
    expect(untouched.requests).toHaveLength(0);
    expect(ledger.refunds).toHaveLength(0);
    await expect(agent(untouched).pendingApprovals(who)).resolves.toHaveLength(1);
    // A valid edit then runs; the model's retry budget (0) was never touched.
    const done = await agent(new ScriptedModel([{ text: 'ok' }])).approve(who, 'p1', '{"order_id":"A-1","amount":50}');
    expect(done.status).toBe('completed');
    expect(ledger.refunds.map((r) => r.amount)).toEqual([50]);
  });
});

describe('failures that must not corrupt a session', () => {
  it('settles every call before an onToolError hook runs; a throwing observer changes nothing', async () => {
    const store = new InMemoryStore();
    const hookErrors: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'lookup', arguments: { order_id: 'A-1' } },
          { id: 'b', name: 'explode', arguments: { order_id: 'A-2' } },
          { id: 'c', name: 'lookup', arguments: { order_id: 'A-3' } },
        ],
      },
      { text: 'done' },
    ]);
    const result = await new Agent({
      name: 'a',
      model,
      store,
      tools: [LookupTool, ExplodeTool],
      errorPolicy: 'redact',
      hooks: {
        onToolError: () => {
          throw new Error('log sink down');
        },
        onRunEnd: () => {
          throw new Error('metrics down');
        },
        onRunStart: () => {
          throw new Error('tracing down');
        },
      },
      onHookError: (error, hook) => hookErrors.push(`${hook}: ${(error as Error).message}`),
    }).run('go', who);
    expect(result.status).toBe('completed');
    expect(hookErrors).toEqual(['onRunStart: tracing down', 'onToolError: log sink down', 'onRunEnd: metrics down']);
    const saved = (await store.loadSession({ sessionId: 's-1' }))!;
    expect(toolResults(saved.history).map((m) => m.toolCallId)).toEqual(['a', 'b', 'c']);
    expect(saved.history.at(-1)).toEqual({ role: 'assistant', content: 'done' });
  });

  it('an onToolError that throws while the run fails still leaves every call with its result, and the typed run error wins', async () => {
    const store = new InMemoryStore();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'explode', arguments: { order_id: 'A-1' } },
          { id: 'b', name: 'lookup', arguments: { order_id: 'A-2' } },
          { id: 'c', name: 'lookup', arguments: { order_id: 'A-3' } },
        ],
      },
    ]);
    const error = await new Agent({
      name: 'a',
      model,
      store,
      tools: [LookupTool, ExplodeTool],
      hooks: {
        onToolError: () => {
          throw new Error('audit down');
        },
      },
      onHookError: () => undefined,
    })
      .run('go', who)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).code).toBe('TOOL_FAILED');
    expect(toolResults((await store.loadSession({ sessionId: 's-1' }))!.history)).toHaveLength(3);
  });

  it('turns a provider failure mid-run into ModelCallFailedError carrying the history, and saves the session', async () => {
    const store = new InMemoryStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'a', name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { error: new ModelError('openai', 'rate limited', 429, true) },
    ]);
    const error = await new Agent({ name: 'a', model, store, tools: [LookupTool] }).run('go', who).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallFailedError);
    expect(error).toBeInstanceOf(AgentRunError);
    const failure = error as ModelCallFailedError;
    expect(failure.code).toBe('MODEL_FAILED');
    expect(failure.retryable).toBe(true);
    expect(failure.cause).toBeInstanceOf(ModelError);
    expect(failure.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect((await store.loadSession({ sessionId: 's-1' }))!.history).toHaveLength(3);
    // A raw error from a hand-written model is typed the same way.
    const raw = new ScriptedModel([{ error: new Error('socket hang up') }]);
    await expect(
      new Agent({ name: 'a', model: raw, store: new InMemoryStore(), tools: [LookupTool] }).run('go', who),
    ).rejects.toBeInstanceOf(ModelCallFailedError);
  });
});

describe('what the peers have', () => {
  it('sends a ModelRetryError from execute back to the model, under the tool’s retry budget', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { order_id: '123' } }] },
      (request) => {
        const last = JSON.parse(String(request.messages.at(-1)!.content));
        expect(last).toEqual({ status: 'error', code: 'MODEL_RETRY', message: 'No order "123". Order ids look like A-123; ask the user.' });
        return { toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-123' } }] };
      },
      { text: 'found it' },
    ]);
    const result = await new Agent({ name: 'a', model, store: new InMemoryStore(), tools: [LookupTool] }).run('find 123', who);
    expect(result.output).toBe('found it');
    expect(result.toolCalls.map((c) => [c.status, c.code])).toEqual([
      ['error', 'MODEL_RETRY'],
      ['ok', undefined],
    ]);
    expect(toolResults(model.requests[1].messages)[0].isError).toBe(true);

    const stubborn = new ScriptedModel(() => ({ toolCalls: [{ name: 'lookup', arguments: { order_id: 'nope' } }] }));
    const error = await new Agent({ name: 'a', model: stubborn, store: new InMemoryStore(), tools: [LookupTool], retryBudget: 1 })
      .run('x', who)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect((error as RetryBudgetExceededError).attempts).toBe(2);
    expect(((error as RetryBudgetExceededError).cause as ModelRetryError).code).toBe('MODEL_RETRY');
  });

  it('maps ModelRetryError in the registry, so every surface sees MODEL_RETRY (with and without a timeout)', async () => {
    const registry = ToolRegistry.build({ tools: [LookupTool] });
    for (const options of [undefined, { timeoutMs: 1000 }, { signal: new AbortController().signal }]) {
      const error = await registry.call('lookup', { order_id: '9' }, undefined, undefined, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelRetryError);
      expect((error as ModelRetryError).code).toBe('MODEL_RETRY');
      expect(JSON.parse((error as ModelRetryError).toToolResult()).message).toContain('Order ids look like A-123');
    }
    // An adapter (the AI SDK's) hands the model the same correctable error.
    const { toAiSdkTools } = await import('../../src/adapters/ai-sdk');
    const tools = toAiSdkTools(registry, {
      session: { context: new AgentContext({ sessionId: 's' }), memory: new AgentMemory({ agentName: 'a', userId: 'u' }) },
    });
    const seen = await tools.lookup.execute!({ order_id: '9' }, { toolCallId: 't', messages: [] });
    expect(seen).toMatchObject({ status: 'error', code: 'MODEL_RETRY' });
  });

  it('stops when stopWhen says so after a step, without asking the model again', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { order_id: 'A-1' } }] },
      { text: 'Answering now.', toolCalls: [{ name: 'final_answer', arguments: { order_id: 'A-1' } }] },
      { text: 'never asked' },
    ]);
    const steps: number[] = [];
    const result = await new Agent({
      name: 'a',
      model,
      store: new InMemoryStore(),
      tools: [LookupTool, FinalAnswerTool],
      stopWhen: (step) => {
        steps.push(step.turn);
        return step.toolCalls.some((c) => c.name === 'final_answer');
      },
    }).run('x', who);
    expect(model.requests).toHaveLength(2);
    expect(steps).toEqual([1, 2]);
    expect(result).toMatchObject({ status: 'completed', stoppedBy: 'stopWhen', output: 'Answering now.', turns: 2 });
    expect(result.toolCalls.map((c) => c.name)).toEqual(['lookup', 'final_answer']);
  });

  it('repairs a misspelled tool name before anything is decided; a repaired call still needs approval', async () => {
    const store = new InMemoryStore();
    const repaired: string[] = [];
    const repairToolCall = ({ call, error, tools }: import('../../src/agent').RepairEvent) => {
      repaired.push(`${call.name}:${error.code}`);
      const near = tools.find((t) => t.name.replace(/_/g, '') === call.name.replace(/_/g, '') || t.name.startsWith(call.name.slice(0, 4)));
      return near ? { name: near.name, arguments: call.arguments } : undefined;
    };
    const model = new ScriptedModel([{ toolCalls: [{ id: 'l', name: 'lookp', arguments: { order_id: 'A-1' } }] }, { text: 'ok' }]);
    const result = await new Agent({ name: 'a', model, store, tools: [LookupTool, PayRefundTool], repairToolCall }).run('x', who);
    expect(repaired).toEqual(['lookp:TOOL_NOT_FOUND']);
    expect(result.toolCalls).toEqual([expect.objectContaining({ id: 'l', name: 'lookup', status: 'ok' })]);
    expect((model.requests[1].messages[1] as { toolCalls: Array<{ name: string }> }).toolCalls[0].name).toBe('lookup');

    const sneaky = new ScriptedModel([{ toolCalls: [{ id: 'p', name: 'payrefund', arguments: { order_id: 'A-1', amount: 10 } }] }]);
    const paused = await new Agent({ name: 'a', model: sneaky, store, tools: [LookupTool, PayRefundTool], repairToolCall }).run('x', {
      sessionId: 's-2',
      userId: 'u-1',
    });
    expect(paused.status).toBe('paused');
    expect(paused.approvals.map((a) => a.name)).toEqual(['pay_refund']);
    expect(ledger.refunds).toHaveLength(0);
  });
});
