import { getEventListeners } from 'node:events';
import 'reflect-metadata';
import {
  Equals,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Min,
  ValidateIf,
  ValidateNested,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Transform, Type } from 'class-transformer';
import { Service } from 'typedi';
import {
  AgentContext,
  AgentMemory,
  Param,
  Tool,
  ToolAbortedError,
  ToolExecutionError,
  ToolInputError,
  ToolOutputError,
  ToolRegistry,
  ToolTimeoutError,
  type ClassType,
  type ContainerLike,
  type ToolDefinition,
  type ToolInterface,
} from 'toolwright';

/*
 * The call pipeline: arguments in (parsed, validated, hydrated), execute, result out
 * (serialized, checked against the output contract). Every tool is declared here.
 */

const newContext = (sessionId = 's-1') => new AgentContext({ sessionId, userId: 'u-1', tenantId: 't-1', state: { user_id: 'u-1' } });
const newMemory = () => new AgentMemory({ agentName: 'support', userId: 'u-1' });

/** Rejects with `errorClass` and `code`; returns the error for further checks. */
async function callError<E extends Error>(
  promise: Promise<unknown>,
  errorClass: abstract new (...args: never[]) => E,
  code: string,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(errorClass);
  expect((error as { code?: string }).code).toBe(code);
  return error as E;
}

class Address {
  @Param() @IsString() street!: string;
  @Param() @IsString() @Matches(/^\d{5}$/) zip!: string;
}
class LineItem {
  @Param() @IsString() sku!: string;
  @Param() @IsInt() @Min(1) qty!: number;
}
class OrderInput {
  @Param() @IsString() orderId!: string;
  @Param() @ValidateNested() @Type(() => Address) address!: Address;
  @Param() @ValidateNested({ each: true }) @Type(() => LineItem) items!: LineItem[];
  @Param({ type: () => [String] }) @IsString({ each: true }) @Matches(/^[a-z]+$/, { each: true }) tags!: string[];
  @Param() placedAt!: Date;
  @Param() @IsOptional() @IsString() note?: string;
}

describe('arguments reach execute as class instances', () => {
  let received: unknown;
  @Tool({ name: 'place_order', description: 'Place an order', input: OrderInput })
  class PlaceOrderTool implements ToolInterface<OrderInput> {
    execute(args: OrderInput): string {
      received = args;
      return '{"status":"ok"}';
    }
  }
  const registry = ToolRegistry.build({ tools: [PlaceOrderTool] });
  const valid = {
    orderId: 'A-1',
    address: { street: 'Main 1', zip: '12345' },
    items: [{ sku: 'X', qty: 2 }],
    tags: ['gift', 'rush'],
    placedAt: '2024-05-01T10:00:00Z',
  };

  it('hydrates the input class, nested classes and Dates', async () => {
    await registry.call('place_order', JSON.stringify(valid));
    const args = received as OrderInput;
    expect(args).toBeInstanceOf(OrderInput);
    expect(args.address).toBeInstanceOf(Address);
    expect(args.items[0]).toBeInstanceOf(LineItem);
    expect(args.items[0].qty).toBe(2);
    expect(args.tags).toEqual(['gift', 'rush']);
    expect(args.placedAt).toBeInstanceOf(Date);
    expect(args.placedAt.toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(args).not.toHaveProperty('note');
  });

  it('accepts the arguments as an object too', async () => {
    await registry.call('place_order', valid);
    expect(received).toBeInstanceOf(OrderInput);
    expect((received as OrderInput).address).toBeInstanceOf(Address);
  });

  it('treats null for an optional field as absent', async () => {
    await registry.call('place_order', { ...valid, note: null });
    expect(received).not.toHaveProperty('note');
  });

  it('rejects null for a required field', async () => {
    const error = await callError(registry.call('place_order', { ...valid, orderId: null }), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors.map((e) => e.path)).toContain('orderId');
  });

  it('reports per-field errors with nested paths', async () => {
    const bad = { ...valid, address: { street: 'Main 1', zip: '12' }, items: [{ sku: 'X', qty: 0 }], tags: ['ok', 'fine', 'NOT-OK'] };
    const error = await callError(registry.call('place_order', JSON.stringify(bad)), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.toolName).toBe('place_order');
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { path: 'address.zip', constraint: 'matches', message: expect.stringContaining('address.zip must match') },
        { path: 'items[0].qty', constraint: 'min', message: 'items[0].qty must not be less than 1' },
        { path: 'tags[2]', constraint: 'matches', message: expect.stringContaining('tags[2]') },
      ]),
    );
    expect(error.errors).toHaveLength(3);
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'INVALID_ARGUMENTS',
      message: error.message,
      errors: error.errors,
    });
  });

  it('names a missing nested field by its path', async () => {
    const error = await callError(
      registry.call('place_order', { ...valid, address: { street: 'Main 1' } }),
      ToolInputError,
      'INVALID_ARGUMENTS',
    );
    expect(error.errors).toEqual([
      { path: 'address.zip', constraint: 'isDefined', message: 'address.zip should not be null or undefined' },
    ]);
  });
});

describe('context and memory', () => {
  class EmptyInput {}

  it('passes the caller’s context and memory to execute', async () => {
    let seen: [AgentContext, AgentMemory] | undefined;
    @Tool({ name: 'whoami', description: 'Who am I', input: EmptyInput })
    class WhoAmITool {
      execute(_args: EmptyInput, context: AgentContext, memory: AgentMemory): object {
        seen = [context, memory];
        context.setState('visited', true);
        memory.addFact('likes tea');
        return { user: context.getState('user_id') };
      }
    }
    const registry = ToolRegistry.build({ tools: [WhoAmITool] });
    const context = newContext();
    const memory = newMemory();
    await expect(registry.call('whoami', '{}', context, memory)).resolves.toBe('{"user":"u-1"}');
    expect(seen).toEqual([context, memory]);
    expect(seen![0]).toBe(context);
    expect(seen![1]).toBe(memory);
    expect(context.getState('visited')).toBe(true);
    expect(memory.getFacts().map((f) => f.content)).toEqual(['likes tea']);
  });

  it('gives a tool call id and a stable idempotency key on the per-call view', async () => {
    const calls: { id?: string; key?: string; view: AgentContext }[] = [];
    @Tool({ name: 'refund', description: 'Refund', input: EmptyInput })
    class RefundTool {
      execute(_args: EmptyInput, context: AgentContext): string {
        calls.push({ id: context.toolCall?.id, key: context.idempotencyKey, view: context });
        context.setState('refunded', true);
        return '{}';
      }
    }
    const registry = ToolRegistry.build({ tools: [RefundTool] });
    const session = newContext('s-1');
    await registry.call('refund', '{}', session, newMemory(), { toolCallId: 'call-1' });
    await registry.call('refund', '{}', newContext('s-1'), newMemory(), { toolCallId: 'call-1' });
    await registry.call('refund', '{}', newContext('s-1'), newMemory(), { toolCallId: 'call-2' });
    await registry.call('refund', '{}', newContext('s-2'), newMemory(), { toolCallId: 'call-1' });

    expect(calls[0].id).toBe('call-1');
    expect(calls[0].view.toolCall?.name).toBe('refund');
    expect(calls[0].key).toMatch(/^[0-9a-f]{32}$/);
    expect(calls[1].key).toBe(calls[0].key); // same session, same call id: a retry
    expect(calls[2].key).not.toBe(calls[0].key); // another call
    expect(calls[3].key).not.toBe(calls[0].key); // another session
    expect(calls[0].key).not.toContain('call-1');
    // The view shares the session's state.
    expect(calls[0].view).not.toBe(session);
    expect(session.getState('refunded')).toBe(true);
    expect(session.toolCall).toBeUndefined();
  });

  it('derives the idempotency key from the logical call the same way on every call path (plain, signal, timeout)', async () => {
    const keys: (string | undefined)[] = [];
    @Tool({ name: 'pay', description: 'Pay', input: EmptyInput })
    class PayTool {
      async execute(_args: EmptyInput, context: AgentContext): Promise<string> {
        keys.push(context.idempotencyKey);
        return '{}';
      }
    }
    const registry = ToolRegistry.build({ tools: [PayTool] });
    const paths = [
      {},
      { signal: new AbortController().signal },
      { timeoutMs: 5_000 },
      { signal: new AbortController().signal, timeoutMs: 5_000 },
    ];
    for (const path of paths) {
      // A provider that restarts its call ids: the same toolCallId, two different logical calls.
      await registry.call('pay', '{}', newContext('s-1'), newMemory(), { ...path, toolCallId: 'call_0', logicalCallId: 'run-1:1:0' });
      await registry.call('pay', '{}', newContext('s-1'), newMemory(), { ...path, toolCallId: 'call_0', logicalCallId: 'run-2:1:0' });
    }
    expect(keys[0]).not.toBe(keys[1]);
    for (let i = 2; i < keys.length; i += 2) {
      expect(keys[i]).toBe(keys[0]);
      expect(keys[i + 1]).toBe(keys[1]);
    }
  });

  it('gives no tool call without a toolCallId', async () => {
    let view: AgentContext | undefined;
    @Tool({ name: 'plain', description: 'Plain', input: EmptyInput })
    class PlainTool {
      execute(_args: EmptyInput, context: AgentContext): string {
        view = context;
        return '{}';
      }
    }
    const context = newContext();
    await ToolRegistry.build({ tools: [PlainTool] }).call('plain', '{}', context, newMemory());
    expect(view).toBe(context);
    expect(view?.idempotencyKey).toBeUndefined();
  });
});

describe('results', () => {
  class EmptyInput {}
  function toolReturning(result: unknown): ClassType {
    @Tool({ name: 'result', description: 'Returns a fixed result', input: EmptyInput })
    class ResultTool {
      execute(): unknown {
        return result;
      }
    }
    return ResultTool;
  }
  const call = (result: unknown) => ToolRegistry.build({ tools: [toolReturning(result)] }).call('result', '{}');

  it('passes a JSON string through unchanged', async () => {
    await expect(call('{ "status" : "success" }')).resolves.toBe('{ "status" : "success" }');
  });

  it('serializes an object result', async () => {
    await expect(call({ status: 'success', ids: [1, 2] })).resolves.toBe('{"status":"success","ids":[1,2]}');
  });

  it('awaits a promised result', async () => {
    await expect(call(Promise.resolve({ ok: true }))).resolves.toBe('{"ok":true}');
  });

  it.each([
    { label: 'an invalid JSON string', result: 'Refund done!' },
    { label: 'undefined', result: undefined },
    {
      label: 'a circular object',
      result: (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    },
  ])('rejects $label with INVALID_OUTPUT', async ({ result }) => {
    const error = await callError(call(result), ToolOutputError, 'INVALID_OUTPUT');
    expect(error.toolName).toBe('result');
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'INVALID_OUTPUT',
      message: 'Tool "result" returned an invalid result.',
    });
  });
});

describe('output contracts', () => {
  class LookupInput {
    @Param() @IsString() orderId!: string;
  }
  class Receipt {
    @Param() @IsString() refundId!: string;
    @Param() @IsInt() @Min(0) cents!: number;
  }
  class Found {
    @Param() @Equals('found') status!: 'found';
    @Param() @IsString() orderId!: string;
    @Param() @IsIn(['processing', 'shipped', 'delivered']) fulfillmentStatus!: string;
  }
  class NotFound {
    @Param() @Equals('not_found') status!: 'not_found';
    @Param() @IsString() orderId!: string;
  }
  class Blocked {
    @Param() @Equals('blocked') status!: 'blocked';
    @Param() @Equals('access_denied') reason!: 'access_denied';
  }

  let next: unknown;
  @Tool({ name: 'receipt', description: 'Receipt', input: LookupInput, output: Receipt })
  class ReceiptTool {
    execute(): unknown {
      return next;
    }
  }
  @Tool({ name: 'lookup_order', description: 'Look up one order', input: LookupInput, output: [Found, NotFound, Blocked] })
  class LookupOrderTool {
    execute(): unknown {
      return next;
    }
  }
  const registry = ToolRegistry.build({ tools: [ReceiptTool, LookupOrderTool] });
  const run = (name: string, result: unknown) => {
    next = result;
    return registry.call(name, '{"orderId":"A-100"}');
  };

  it('accepts a result matching a single output class', async () => {
    await expect(run('receipt', { refundId: 'R-1', cents: 500 })).resolves.toBe('{"refundId":"R-1","cents":500}');
    await expect(run('receipt', '{"refundId":"R-2","cents":0}')).resolves.toBe('{"refundId":"R-2","cents":0}');
  });

  it.each([
    { label: 'a wrong type', result: { refundId: 'R-1', cents: 'five' }, path: 'cents' },
    { label: 'a missing field', result: { refundId: 'R-1' }, path: 'cents' },
    { label: 'an extra field', result: { refundId: 'R-1', cents: 1, secret: 'x' }, path: 'secret' },
    { label: 'a broken bound', result: '{"refundId":"R-1","cents":-1}', path: 'cents' },
  ])('rejects a single-class result with $label', async ({ result, path }) => {
    const error = await callError(run('receipt', result), ToolOutputError, 'INVALID_OUTPUT');
    expect(error.errors.map((e) => e.path)).toContain(path);
    expect(error.message).toContain('breaks its output contract');
  });

  it.each([
    { status: 'found', orderId: 'A-100', fulfillmentStatus: 'shipped' },
    { status: 'not_found', orderId: 'A-100' },
    { status: 'blocked', reason: 'access_denied' },
  ])('accepts the union state $status', async (state) => {
    await expect(run('lookup_order', state)).resolves.toBe(JSON.stringify(state));
  });

  it.each([
    { label: 'an unknown status', result: { status: 'lost', orderId: 'A-100' } },
    { label: 'no status', result: { orderId: 'A-100' } },
    { label: 'found without its fields', result: { status: 'found' } },
    { label: 'found with a bad enum value', result: { status: 'found', orderId: 'A-100', fulfillmentStatus: 'teleported' } },
    { label: 'blocked with another reason', result: { status: 'blocked', reason: 'rate_limited' } },
    { label: 'fields of another state', result: { status: 'not_found', orderId: 'A-100', fulfillmentStatus: 'shipped' } },
    { label: 'an array', result: [{ status: 'found' }] },
  ])('rejects a union result with $label', async ({ result }) => {
    await callError(run('lookup_order', result), ToolOutputError, 'INVALID_OUTPUT');
  });
});

describe('failures while running', () => {
  class EmptyInput {}

  it('wraps a thrown error in ToolExecutionError with the original as cause, hiding its message from the model', async () => {
    const boom = new Error('connection string postgres://admin:secret@db');
    @Tool({ name: 'explode', description: 'Explodes', input: EmptyInput })
    class ExplodingTool {
      async execute(): Promise<string> {
        throw boom;
      }
    }
    const error = await callError(ToolRegistry.build({ tools: [ExplodingTool] }).call('explode', '{}'), ToolExecutionError, 'TOOL_FAILED');
    expect(error.cause).toBe(boom);
    expect(error.toolName).toBe('explode');
    expect(error.message).toContain('postgres://admin:secret@db'); // for logs
    expect(error.toToolResult()).not.toContain('secret');
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'TOOL_FAILED',
      message: 'Tool "explode" failed unexpectedly.',
    });
  });

  it('wraps a synchronous throw too', async () => {
    @Tool({ name: 'sync_throw', description: 'Throws', input: EmptyInput })
    class SyncThrowTool {
      execute(): string {
        throw new TypeError('bad');
      }
    }
    const error = await callError(
      ToolRegistry.build({ tools: [SyncThrowTool] }).call('sync_throw', '{}'),
      ToolExecutionError,
      'TOOL_FAILED',
    );
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('shows the message to the model with exposeErrors', async () => {
    @Tool({ name: 'explain', description: 'Explains its failure', input: EmptyInput, exposeErrors: true })
    class ExplainingTool {
      execute(): string {
        throw new Error('Order A-100 is already refunded');
      }
    }
    const error = await callError(ToolRegistry.build({ tools: [ExplainingTool] }).call('explain', '{}'), ToolExecutionError, 'TOOL_FAILED');
    expect(JSON.parse(error.toToolResult())).toEqual({ status: 'error', code: 'TOOL_FAILED', message: 'Order A-100 is already refunded' });
  });

  it('gives every call an AbortSignal, typed as always there: one nothing can cancel never fires', async () => {
    const seen: AbortSignal[] = [];
    @Tool({ name: 'fetching', description: 'Passes its signal on', input: EmptyInput })
    class FetchingTool {
      execute(_args: EmptyInput, context: AgentContext): string {
        // No `!` or `?.`: the type tools see says the signal is there (this line does not compile otherwise).
        const signal: AbortSignal = context.signal;
        seen.push(signal);
        return JSON.stringify({ aborted: signal.aborted });
      }
    }
    const registry = ToolRegistry.build({ tools: [FetchingTool] });
    // The direct fast path, a call id without signal or timeout, and the caller's own context.
    expect(await registry.call('fetching', '{}')).toBe('{"aborted":false}');
    expect(await registry.call('fetching', '{}', newContext(), newMemory(), { toolCallId: 'c-1' })).toBe('{"aborted":false}');
    const context = newContext();
    expect(await registry.call('fetching', '{}', context, newMemory())).toBe('{"aborted":false}');
    expect(seen).toHaveLength(3);
    for (const signal of seen) expect(signal).toBeInstanceOf(AbortSignal);
    expect(context.signal).toBe(context.signal); // one per context, not a new one per read
  });

  it('times out a hanging tool, aborting the signal it sees', async () => {
    let signal: AbortSignal | undefined;
    @Tool({ name: 'hang', description: 'Hangs', input: EmptyInput, timeoutMs: 20 })
    class HangingTool {
      execute(_args: EmptyInput, context: AgentContext): Promise<string> {
        signal = context.signal;
        return new Promise(() => undefined);
      }
    }
    const error = await callError(ToolRegistry.build({ tools: [HangingTool] }).call('hang', '{}'), ToolTimeoutError, 'TOOL_TIMEOUT');
    expect(error.timeoutMs).toBe(20);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
  });

  it('lets a call override the timeout', async () => {
    @Tool({ name: 'slow', description: 'Waits for its signal', input: EmptyInput })
    class SlowTool {
      execute(_args: EmptyInput, context: AgentContext): Promise<string> {
        return new Promise((_resolve, reject) => context.signal?.addEventListener('abort', () => reject(new Error('stopped'))));
      }
    }
    const error = await callError(
      ToolRegistry.build({ tools: [SlowTool] }).call('slow', '{}', newContext(), newMemory(), { timeoutMs: 10 }),
      ToolTimeoutError,
      'TOOL_TIMEOUT',
    );
    expect(error.toolName).toBe('slow');
  });

  it('aborts on the caller’s AbortSignal', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    @Tool({ name: 'wait', description: 'Waits', input: EmptyInput })
    class WaitingTool {
      execute(_args: EmptyInput, context: AgentContext): Promise<string> {
        toolSignal = context.signal;
        started();
        return new Promise(() => undefined);
      }
    }
    const call = ToolRegistry.build({ tools: [WaitingTool] }).call('wait', '{}', newContext(), newMemory(), { signal: controller.signal });
    await running;
    controller.abort(new Error('user cancelled'));
    const error = await callError(call, ToolAbortedError, 'ABORTED');
    expect(error.message).toContain('user cancelled');
    expect(toolSignal?.aborted).toBe(true);
  });

  it('with a signal and no timeout, the tool sees the caller’s own signal and no abort listener outlives the call', async () => {
    const controller = new AbortController();
    const seen: Array<AbortSignal | undefined> = [];
    @Tool({ name: 'sync_tool', description: 'Synchronous', input: EmptyInput })
    class SyncTool {
      execute(_args: EmptyInput, context: AgentContext): object {
        seen.push(context.signal);
        return { ok: true };
      }
    }
    @Tool({ name: 'async_tool', description: 'Asynchronous', input: EmptyInput })
    class AsyncTool {
      async execute(_args: EmptyInput, context: AgentContext): Promise<object> {
        seen.push(context.signal);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0); // ours is added once execute returns its promise
        await new Promise((r) => setImmediate(r));
        return { ok: true };
      }
    }
    @Tool({ name: 'failing_async', description: 'Rejects', input: EmptyInput })
    class FailingAsyncTool {
      async execute(): Promise<object> {
        throw new Error('nope');
      }
    }
    const registry = ToolRegistry.build({ tools: [SyncTool, AsyncTool, FailingAsyncTool] });
    const options = { signal: controller.signal };
    await expect(registry.call('sync_tool', '{}', newContext(), newMemory(), options)).resolves.toBe('{"ok":true}');
    await expect(registry.call('async_tool', '{}', newContext(), newMemory(), options)).resolves.toBe('{"ok":true}');
    await callError(registry.call('failing_async', '{}', newContext(), newMemory(), options), ToolExecutionError, 'TOOL_FAILED');
    expect(seen).toEqual([controller.signal, controller.signal]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not start a tool whose signal is already aborted', async () => {
    let ran = false;
    @Tool({ name: 'never', description: 'Never runs', input: EmptyInput })
    class NeverTool {
      execute(): string {
        ran = true;
        return '{}';
      }
    }
    const signal = AbortSignal.abort();
    await callError(
      ToolRegistry.build({ tools: [NeverTool] }).call('never', '{}', newContext(), newMemory(), { signal }),
      ToolAbortedError,
      'ABORTED',
    );
    expect(ran).toBe(false);
  });
});

describe('dependency injection', () => {
  class EmptyInput {}

  it('injects a typedi @Service() into the tool constructor', async () => {
    @Service()
    class PriceService {
      price(): number {
        return 42;
      }
    }
    @Tool({ name: 'price', description: 'Price', input: EmptyInput })
    class PriceTool {
      constructor(private readonly prices: PriceService) {}
      execute(): object {
        return { price: this.prices.price() };
      }
    }
    await expect(ToolRegistry.build({ tools: [PriceTool] }).call('price', '{}')).resolves.toBe('{"price":42}');
  });

  it('resolves tools through a custom container adapter', async () => {
    @Tool({ name: 'greet', description: 'Greet', input: EmptyInput })
    class GreetTool {
      constructor(private readonly greeting: string) {}
      execute(): object {
        return { greeting: this.greeting };
      }
    }
    const asked: ClassType[] = [];
    const container: ContainerLike = {
      get<T>(cls: ClassType<T>): T {
        asked.push(cls);
        return new cls('hello from the container');
      },
    };
    const registry = ToolRegistry.build({ tools: [GreetTool], container });
    expect(asked).toEqual([GreetTool]);
    expect(registry.get('greet')).toBeInstanceOf(GreetTool);
    await expect(registry.call('greet', '{}')).resolves.toBe('{"greeting":"hello from the container"}');
  });
});

describe('hand-written tools (JSON Schema, no @Param)', () => {
  class WeatherTool implements ToolInterface {
    definition(): ToolDefinition {
      return {
        name: 'weather',
        description: 'Weather for a city',
        parameters: {
          type: 'object',
          properties: {
            city: { type: 'string', minLength: 1 },
            days: { type: 'integer', minimum: 1, maximum: 7 },
            email: { type: 'string', format: 'email' },
          },
          required: ['city'],
        },
      };
    }
    execute(args: Record<string, unknown>): object {
      return { city: args.city, days: args.days ?? 1 };
    }
  }
  const registry = ToolRegistry.build({ tools: [WeatherTool] });

  it('runs with valid arguments', async () => {
    await expect(registry.call('weather', '{"city":"Oslo","days":3}')).resolves.toBe('{"city":"Oslo","days":3}');
    expect(registry.get('weather').definition().name).toBe('weather');
  });

  it.each([
    { label: 'a missing required field', args: '{"days":3}', path: 'city', constraint: 'required' },
    { label: 'a wrong type', args: '{"city":"Oslo","days":"three"}', path: 'days', constraint: 'type' },
    { label: 'a broken bound', args: '{"city":"Oslo","days":9}', path: 'days', constraint: 'maximum' },
    { label: 'a bad format', args: '{"city":"Oslo","email":"nope"}', path: 'email', constraint: 'format' },
  ])('rejects $label', async ({ args, path, constraint }) => {
    const error = await callError(registry.call('weather', args), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors).toEqual([expect.objectContaining({ path, constraint })]);
  });
});

describe('class-validator fallback', () => {
  @ValidatorConstraint({ name: 'isEvenNumber' })
  class IsEvenNumber implements ValidatorConstraintInterface {
    validate(value: unknown): boolean {
      return typeof value === 'number' && value % 2 === 0;
    }
    defaultMessage(): string {
      return '$property must be even';
    }
  }
  class PairInput {
    @Param() @IsInt() @Validate(IsEvenNumber) size!: number;
    @Param() @IsIn(['card', 'iban']) method!: string;
    @Param() @ValidateIf((o: PairInput) => o.method === 'iban') @IsString() @Matches(/^[A-Z]{2}\d+$/) iban?: string;
  }
  @Tool({ name: 'pairs', description: 'Pairs', input: PairInput })
  class PairsTool {
    execute(args: PairInput): object {
      return { size: args.size };
    }
  }
  const registry = ToolRegistry.build({ tools: [PairsTool] });

  it('accepts values that pass the custom constraint', async () => {
    await expect(registry.call('pairs', '{"size":4,"method":"card"}')).resolves.toBe('{"size":4}');
    await expect(registry.call('pairs', '{"size":4,"method":"iban","iban":"DE1234"}')).resolves.toBe('{"size":4}');
  });

  it('enforces a custom @ValidatorConstraint', async () => {
    const error = await callError(registry.call('pairs', '{"size":3,"method":"card"}'), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors).toEqual([{ path: 'size', constraint: 'isEvenNumber', message: 'size must be even' }]);
  });

  it('enforces constraints under @ValidateIf when its condition holds', async () => {
    const error = await callError(registry.call('pairs', '{"size":2,"method":"iban","iban":"nope"}'), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors.map((e) => e.path)).toEqual(['iban']);
  });

  it('enforces presence under @ValidateIf when its condition holds', async () => {
    const error = await callError(registry.call('pairs', '{"size":2,"method":"iban"}'), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors.map((e) => e.path)).toContain('iban');
  });

  it('skips every constraint under @ValidateIf when its condition is false, as class-validator does', async () => {
    await expect(registry.call('pairs', '{"size":2,"method":"card"}')).resolves.toBe('{"size":2}');
    await expect(registry.call('pairs', '{"size":2,"method":"card","iban":"nope"}')).resolves.toBe('{"size":2}');
    await expect(registry.call('pairs', '{"size":2,"method":"card","iban":42}')).resolves.toBe('{"size":2}');
    expect(registry.definitions()[0].parameters.required).toEqual(['size', 'method']);
  });

  it('still runs the compiled checks first', async () => {
    const error = await callError(registry.call('pairs', '{"size":"4","method":"card"}'), ToolInputError, 'INVALID_ARGUMENTS');
    expect(error.errors[0]).toMatchObject({ path: 'size', constraint: 'isInt' });
  });
});

describe('class-transformer @Transform', () => {
  class SearchInput {
    @Param() @IsString() @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)) query!: string;
  }
  @Tool({ name: 'search', description: 'Search', input: SearchInput })
  class SearchTool {
    execute(args: SearchInput): object {
      return { query: args.query, isInput: args instanceof SearchInput };
    }
  }

  it('applies the transform before execute', async () => {
    await expect(ToolRegistry.build({ tools: [SearchTool] }).call('search', '{"query":"  Blue SHOES "}')).resolves.toBe(
      '{"query":"blue shoes","isInput":true}',
    );
  });
});
