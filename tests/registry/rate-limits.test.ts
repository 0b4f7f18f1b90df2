/**
 * Rate limits and quotas in the registry's gate: counted per caller and rule, refused with
 * RATE_LIMITED and when to try again, windows that end, calls that never count (refused arguments,
 * a pending approval), and the rules checked at build.
 */
import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import {
  AgentContext,
  Param,
  RateLimitedError,
  StoreUnavailableError,
  Tool,
  ToolDefinitionError,
  ToolRegistry,
  type RateLimit,
  type ToolInterface,
} from '../../src';
import { MemoryRateCounters } from '../../src/side-effects/rate-counters';

class Query {
  @Param({ description: 'What to look up' })
  @IsString()
  @MinLength(1)
  q!: string;
}

let ran = 0;

function limitedTool(name: string, rateLimit?: RateLimit | RateLimit[], approval = false) {
  @Tool({ name, description: 'Looks something up', input: Query, rateLimit, approval })
  class Limited implements ToolInterface<Query> {
    execute({ q }: Query): object {
      ran += 1;
      return { q };
    }
  }
  return Limited;
}

/** A clock the test moves. */
function clock(start = 1_000_000) {
  const at = { now: start };
  return { at, counters: new MemoryRateCounters(() => at.now) };
}

const as = (userId: string, tenantId?: string, sessionId = `s-${userId}`) => new AgentContext({ sessionId, userId, tenantId });

/** The call's outcome: 'ok', or the refusal's code (and retryAfter for RATE_LIMITED). */
async function outcome(registry: ToolRegistry, name: string, context: AgentContext, args: object = { q: 'x' }): Promise<string> {
  try {
    await registry.call(name, args, context);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimitedError) return `RATE_LIMITED:${error.retryAfter}`;
    return (error as { code: string }).code;
  }
}

beforeEach(() => (ran = 0));

describe('rate limits', () => {
  it('lets each user make `limit` calls a window, refuses the next with when to try again, and counts again after it', async () => {
    const { at, counters } = clock(60_000 * 100); // the start of a window
    const registry = ToolRegistry.build({ tools: [limitedTool('lookup', { limit: 2, windowMs: 60_000 })], rateCounters: counters });
    const alice = as('alice');
    expect([await outcome(registry, 'lookup', alice), await outcome(registry, 'lookup', alice)]).toEqual(['ok', 'ok']);
    at.now += 15_000;
    expect(await outcome(registry, 'lookup', alice)).toBe('RATE_LIMITED:45');
    // Another user has a count of their own; the same user in another session shares alice's.
    expect(await outcome(registry, 'lookup', as('bob'))).toBe('ok');
    expect(await outcome(registry, 'lookup', as('alice', undefined, 'other-session'))).toBe('RATE_LIMITED:45');
    // The same user id in another tenant is another caller.
    expect(await outcome(registry, 'lookup', as('alice', 'acme'))).toBe('ok');
    at.now += 45_000;
    expect(await outcome(registry, 'lookup', alice)).toBe('ok');
    expect(ran).toBe(5);
  });

  it('answers the model a tool result with the code, the message and retryAfter', async () => {
    const registry = ToolRegistry.build({
      tools: [limitedTool('lookup', { limit: 0, windowMs: 10_000 })],
      rateCounters: clock(5_000).counters,
    });
    const error = (await registry.call('lookup', { q: 'x' }, as('alice')).catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      toolName: 'lookup',
      retryAfterMs: 5_000,
      retryAfter: 5,
      limit: 0,
      windowMs: 10_000,
    });
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'RATE_LIMITED',
      message: 'Tool "lookup" is over its limit of 0 calls per 10000 ms; try again in 5 s.',
      retryAfter: 5,
    });
  });

  it.each<[RateLimit['per'], [AgentContext, AgentContext], boolean]>([
    ['global', [as('alice'), as('bob')], true],
    ['tenant', [as('alice', 't1'), as('bob', 't1')], true],
    ['tenant', [as('alice', 't1'), as('alice', 't2')], false],
    ['session', [as('alice', undefined, 's1'), as('alice', undefined, 's2')], false],
    ['session', [as('alice', undefined, 's1'), as('bob', undefined, 's1')], true],
    [(context) => String(context.getState('org')), [as('alice'), as('bob')], true],
  ])('per %p: do two callers share one count? %#', async (per, [first, second], shared) => {
    const registry = ToolRegistry.build({
      tools: [limitedTool('lookup', { limit: 1, windowMs: 60_000, per })],
      rateCounters: clock().counters,
    });
    expect(await outcome(registry, 'lookup', first)).toBe('ok');
    expect((await outcome(registry, 'lookup', second)).startsWith(shared ? 'RATE_LIMITED' : 'ok')).toBe(true);
  });

  it('gives each caller the limit a function answers (a plan quota), and refuses on the tightest of several rules', async () => {
    const { at, counters } = clock(0);
    const plan = (context: AgentContext) => (context.getState('plan') === 'pro' ? 3 : 1);
    const registry = ToolRegistry.build({
      tools: [
        limitedTool('lookup', [
          { limit: plan, windowMs: 60_000 },
          { limit: 4, windowMs: 3_600_000 },
        ]),
      ],
      rateCounters: counters,
    });
    const pro = as('pro');
    pro.setState('plan', 'pro');
    const free = as('free');
    expect(await outcome(registry, 'lookup', free)).toBe('ok');
    expect(await outcome(registry, 'lookup', free)).toBe('RATE_LIMITED:60');
    for (let i = 0; i < 3; i++) expect(await outcome(registry, 'lookup', pro)).toBe('ok');
    expect(await outcome(registry, 'lookup', pro)).toBe('RATE_LIMITED:60');
    // The minute is over, the hourly quota is not (4 used: 3 calls and the refused one).
    at.now = 60_000;
    expect(await outcome(registry, 'lookup', pro)).toBe('RATE_LIMITED:3540');
  });

  it("applies the registry's rateLimit to every tool, each tool counted apart", async () => {
    const registry = ToolRegistry.build({
      tools: [limitedTool('one'), limitedTool('two')],
      rateLimit: { limit: 1, windowMs: 60_000 },
      rateCounters: clock(0).counters,
    });
    const alice = as('alice');
    expect([await outcome(registry, 'one', alice), await outcome(registry, 'two', alice)]).toEqual(['ok', 'ok']);
    expect([await outcome(registry, 'one', alice), await outcome(registry, 'two', alice)]).toEqual(['RATE_LIMITED:60', 'RATE_LIMITED:60']);
  });

  it('does not count refused arguments or a call waiting for approval', async () => {
    const registry = ToolRegistry.build({
      tools: [limitedTool('lookup', { limit: 1, windowMs: 60_000 }), limitedTool('refund', { limit: 1, windowMs: 60_000 }, true)],
      rateCounters: clock().counters,
    });
    const alice = as('alice');
    expect(await outcome(registry, 'lookup', alice, { q: '' })).toBe('INVALID_ARGUMENTS');
    expect(await outcome(registry, 'lookup', alice, { q: 5 })).toBe('INVALID_ARGUMENTS');
    expect(await outcome(registry, 'lookup', alice)).toBe('ok');
    expect(await outcome(registry, 'refund', alice)).toBe('APPROVAL_REQUIRED');
    await expect(registry.call('refund', { q: 'x' }, alice, undefined, { approved: true })).resolves.toBe('{"q":"x"}');
    await expect(registry.call('refund', { q: 'x' }, alice, undefined, { approved: true })).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('keeps a tool without limits on the direct path, and counts in this process by default', async () => {
    const registry = ToolRegistry.build({ tools: [limitedTool('free'), limitedTool('lookup', { limit: 1, windowMs: 60_000 })] });
    for (let i = 0; i < 20; i++) await registry.call('free', { q: 'x' });
    expect(await outcome(registry, 'lookup', as('alice'))).toBe('ok');
    expect((await outcome(registry, 'lookup', as('alice'))).startsWith('RATE_LIMITED')).toBe(true);
  });

  it.each<[string, RateLimit, RegExp]>([
    ['a zero window', { limit: 1, windowMs: 0 }, /windowMs must be a positive integer/],
    ['a fractional window', { limit: 1, windowMs: 1.5 }, /windowMs must be a positive integer/],
    ['a negative limit', { limit: -1, windowMs: 1000 }, /limit must be a whole number/],
    ['a limit that is not a number', { limit: '5' as unknown as number, windowMs: 1000 }, /limit must be a whole number/],
  ])('refuses %s at build, naming the tool', (_what, rule, message) => {
    expect(() => ToolRegistry.build({ tools: [limitedTool('bad', rule)] })).toThrow(ToolDefinitionError);
    expect(() => ToolRegistry.build({ tools: [limitedTool('bad', rule)] })).toThrow(message);
  });
});

describe('counters that are down', () => {
  it("refuse the call with the store's typed error before the tool runs, and count again once back", async () => {
    let down = true;
    const inner = new MemoryRateCounters();
    const counters = {
      hit: (key: string, windowMs: number) =>
        down ? Promise.reject(new StoreUnavailableError('redis', new Error('connection refused'))) : inner.hit(key, windowMs),
    };
    const registry = ToolRegistry.build({ tools: [limitedTool('lookup', { limit: 1, windowMs: 60_000 })], rateCounters: counters });
    expect(await outcome(registry, 'lookup', as('alice'))).toBe('STORE_UNAVAILABLE');
    expect(ran).toBe(0);
    down = false;
    expect(await outcome(registry, 'lookup', as('alice'))).toBe('ok');
    expect(ran).toBe(1);
  });
});

describe('MemoryRateCounters', () => {
  it('aligns windows to the epoch and drops ended windows as keys are hit', async () => {
    const { at, counters } = clock(9_500);
    await expect(counters.hit('k', 1_000)).resolves.toEqual({ count: 1, resetMs: 500 });
    await expect(counters.hit('k', 1_000)).resolves.toEqual({ count: 2, resetMs: 500 });
    at.now = 10_000;
    await expect(counters.hit('k', 1_000)).resolves.toEqual({ count: 1, resetMs: 1_000 });
    // The same key under another window length is another count.
    await expect(counters.hit('k', 5_000)).resolves.toEqual({ count: 1, resetMs: 5_000 });
    for (let i = 0; i < 10_001; i++) await counters.hit(`key-${i}`, 1_000);
    at.now = 20_000;
    await counters.hit('after', 1_000);
    expect((counters as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThan(20);
  });
});
