/**
 * `context.log`: what a tool logs reaches the caller's `onLog` on every call path, capped per
 * call; an `execute_tool` span gets a `tool.log` event (the message only with recordContent);
 * a streamed run yields `tool-log` events. The MCP and CLI ends are in tests/mcp and tests/cli.
 */
import 'reflect-metadata';
import { IsArray, IsIn, IsInt, IsString, Min } from 'class-validator';
import fc from 'fast-check';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  Param,
  ScriptedModel,
  Tool,
  ToolRegistry,
  ToolwrightError,
  type CallOptions,
  type ToolInterface,
} from 'toolwright';
import type { AgentEvent, LogLevel, ToolLog } from 'toolwright/agent';
import { MAX_LOG_DATA_CHARS, MAX_LOG_MESSAGE_CHARS, MAX_LOGS_PER_CALL } from '../../src/registry/log-budget';
import { LOG_LEVELS, logLevelAtLeast } from '../../src/session/tool-log';
import { startTracing } from '../support/tracing';

class LinesInput {
  @Param({ description: 'Levels to log at, in order' })
  @IsArray()
  @IsIn([...LOG_LEVELS, 'loud'], { each: true })
  levels!: string[];
}

/** Logs `line <i>` at each given level (with its index as data), then answers. */
@Tool({ name: 'lines', description: 'Logs one line per level', input: LinesInput })
class LinesTool implements ToolInterface<LinesInput> {
  async execute({ levels }: LinesInput, context: AgentContext): Promise<object> {
    levels.forEach((level, i) => context.log(level as LogLevel, `line ${i}`, { i }));
    await new Promise((resolve) => setImmediate(resolve));
    return { logged: levels.length };
  }
}

class CountInput {
  @Param({ description: 'How many' }) @IsInt() @Min(0) count!: number;
}

@Tool({ name: 'chatty', description: 'Logs many lines', input: CountInput })
class ChattyTool implements ToolInterface<CountInput> {
  execute({ count }: CountInput, context: AgentContext): object {
    for (let i = 0; i < count; i++) context.log('info', `line ${i}`);
    return { count };
  }
}

class NoteInput {
  @Param({ description: 'A note' }) @IsString() note!: string;
}

@Tool({ name: 'note', description: 'Logs the note', input: NoteInput })
class NoteTool implements ToolInterface<NoteInput> {
  execute({ note }: NoteInput, context: AgentContext): object {
    context.log('notice', note);
    return { ok: true };
  }
}

class OddInput {
  @Param({ description: 'What to log' }) @IsIn(['huge message', 'huge data', 'cycle', 'bigint', 'mutated']) kind!: string;
}

/** Logs what a careless tool might: a huge message or data, data with no JSON form, data it changes afterwards. */
@Tool({ name: 'odd', description: 'Logs odd things', input: OddInput })
class OddTool implements ToolInterface<OddInput> {
  execute({ kind }: OddInput, context: AgentContext): object {
    if (kind === 'huge message') context.log('info', 'x'.repeat(MAX_LOG_MESSAGE_CHARS * 10));
    if (kind === 'huge data') context.log('info', 'rows', { rows: 'y'.repeat(MAX_LOG_DATA_CHARS * 10) });
    if (kind === 'bigint') context.log('info', 'big', { n: BigInt(1) });
    if (kind === 'cycle') {
      const data: Record<string, unknown> = {};
      data.self = data;
      context.log('info', 'cycle', data);
    }
    if (kind === 'mutated') {
      const data = { step: 1 };
      context.log('info', 'step', data);
      data.step = 2;
    }
    return { kind };
  }
}

const TOOLS = [LinesTool, ChattyTool, NoteTool, OddTool];
const session = () => ({
  context: new AgentContext({ sessionId: 'log-1', userId: 'u-1' }),
  memory: new AgentMemory({ agentName: 'logs', userId: 'u-1' }),
});

/** Every way `call` runs a tool: plain with only a listener, a call id, a caller's signal, a timeout. */
const PATHS: Record<string, (onLog: (log: ToolLog) => void) => CallOptions> = {
  plain: (onLog) => ({ onLog }),
  'call id': (onLog) => ({ toolCallId: 'c-1', onLog }),
  signal: (onLog) => ({ signal: new AbortController().signal, onLog }),
  timeout: (onLog) => ({ timeoutMs: 5_000, onLog }),
};

async function logsOf(registry: ToolRegistry, name: string, args: object, options: (onLog: (log: ToolLog) => void) => CallOptions) {
  const logs: ToolLog[] = [];
  const { context, memory } = session();
  const result = await registry.call(
    name,
    args,
    context,
    memory,
    options((log) => logs.push(log)),
  );
  return { logs, result: JSON.parse(result) as unknown };
}

describe('context.log on its own', () => {
  it('is a no-op without a listener (a direct call), and a wrong level is the tool’s bug: TOOL_FAILED', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    const { context, memory } = session();
    expect(JSON.parse(await registry.call('lines', { levels: ['info', 'error'] }, context, memory))).toEqual({ logged: 2 });
    const failed = await registry.call('lines', { levels: ['loud'] }, context, memory, { onLog: () => undefined }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ToolwrightError);
    expect((failed as ToolwrightError).code).toBe('TOOL_FAILED');
    expect(((failed as ToolwrightError).cause as ToolwrightError).code).toBe('INVALID_CONFIG');
    expect(((failed as ToolwrightError).cause as Error).message).toContain(
      'debug, info, notice, warning, error, critical, alert, emergency',
    );
  });

  it('a listener that throws or rejects does not fail the tool', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    const { context, memory } = session();
    const throwing = () => {
      throw new Error('listener down');
    };
    const rejecting = () => Promise.reject(new Error('listener down'));
    for (const onLog of [throwing, rejecting] as ((log: ToolLog) => void)[]) {
      expect(JSON.parse(await registry.call('lines', { levels: ['info'] }, context, memory, { onLog }))).toEqual({ logged: 1 });
    }
  });

  it('levels order as MCP’s (RFC 5424): logLevelAtLeast is the order of LOG_LEVELS', () => {
    const level = fc.constantFrom(...LOG_LEVELS);
    fc.assert(fc.property(level, level, (a, b) => logLevelAtLeast(a, b) === LOG_LEVELS.indexOf(a) >= LOG_LEVELS.indexOf(b)));
  });
});

describe.each(Object.entries(PATHS))('the registry, on the %s path', (_path, options) => {
  const registry = ToolRegistry.build({ tools: TOOLS });

  it('hands every message to onLog, in order, with its level and data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...LOG_LEVELS), { maxLength: 20 }), async (levels) => {
        const { logs, result } = await logsOf(registry, 'lines', { levels }, options);
        expect(result).toEqual({ logged: levels.length });
        expect(logs).toEqual(levels.map((level, i) => ({ level, message: `line ${i}`, data: { i } })));
      }),
      { numRuns: 25 },
    );
  });

  it(`passes on ${MAX_LOGS_PER_CALL} messages a call, then one warning that the rest are dropped`, async () => {
    const { logs } = await logsOf(registry, 'chatty', { count: MAX_LOGS_PER_CALL + 500 }, options);
    expect(logs).toHaveLength(MAX_LOGS_PER_CALL + 1);
    expect(logs[MAX_LOGS_PER_CALL - 1]).toEqual({ level: 'info', message: `line ${MAX_LOGS_PER_CALL - 1}` });
    expect(logs[MAX_LOGS_PER_CALL].level).toBe('warning');
    expect(logs[MAX_LOGS_PER_CALL].message).toContain('the rest are dropped');
    // The budget is per call: the next call logs again.
    expect((await logsOf(registry, 'chatty', { count: 3 }, options)).logs).toHaveLength(3);
  });
});

describe('what a careless tool logs is bounded and plain JSON before any surface sees it', () => {
  const registry = ToolRegistry.build({ tools: TOOLS });
  const logged = async (kind: string) => (await logsOf(registry, 'odd', { kind }, PATHS.plain)).logs;

  it('a huge message is cut, saying how long it was', async () => {
    const [log] = await logged('huge message');
    expect(log.message.startsWith('x'.repeat(MAX_LOG_MESSAGE_CHARS))).toBe(true);
    expect(log.message).toBe(`${'x'.repeat(MAX_LOG_MESSAGE_CHARS)}… (${MAX_LOG_MESSAGE_CHARS * 10} characters)`);
  });

  it('huge data becomes a note of its size; data with no JSON form (a cycle, a BigInt) a note that it has none', async () => {
    expect((await logged('huge data'))[0].data).toEqual({
      truncated: true,
      chars: JSON.stringify({ rows: 'y'.repeat(MAX_LOG_DATA_CHARS * 10) }).length,
    });
    expect((await logged('cycle'))[0].data).toEqual({ unserializable: true });
    expect((await logged('bigint'))[0].data).toEqual({ unserializable: true });
  });

  it('the data is a copy taken when logged: the tool changing it later changes nothing', async () => {
    expect((await logged('mutated'))[0].data).toEqual({ step: 1 });
  });
});

describe('tool.log span events', () => {
  // Registered for this block only: the blocks above run the untraced call paths.
  let tracing: ReturnType<typeof startTracing>;
  beforeAll(() => (tracing = startTracing()));
  afterAll(() => tracing.stop());
  beforeEach(() => tracing.exporter.reset());

  it.each([false, true])(
    'recordContent %s: one event a message, the level always, the message only when recording',
    async (recordContent) => {
      const registry = ToolRegistry.build({ tools: TOOLS, tracing: { recordContent } });
      const { context, memory } = session();
      // No listener of the caller's: the span alone listens.
      await registry.call('note', { note: 'card 4242 refunded' }, context, memory);
      const [span] = tracing.spans();
      expect(span.name).toBe('execute_tool note');
      expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
        ['tool.log', recordContent ? { 'log.level': 'notice', 'log.message': 'card 4242 refunded' } : { 'log.level': 'notice' }],
      ]);
    },
  );

  it('with a listener of the caller’s too, both get each message, and a listener that rejects does not stop the span’s', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    const logs: ToolLog[] = [];
    const { context, memory } = session();
    await registry.call('chatty', { count: 50 }, context, memory, { onLog: (log) => logs.push(log) });
    expect(logs).toHaveLength(50);
    expect(tracing.spans()[0].events).toHaveLength(50);
    tracing.exporter.reset();
    // An async listener that fails: typed as the plain listener an app might pass by mistake.
    const rejecting = (() => Promise.reject(new Error('listener down'))) as unknown as (log: ToolLog) => void;
    await registry.call('chatty', { count: 3 }, context, memory, { onLog: rejecting });
    expect(tracing.spans()[0].events).toHaveLength(3);
  });
});

describe('agent.stream', () => {
  it('yields each message as a tool-log event between the call and its result; run() is unchanged', async () => {
    const script = () =>
      new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'lines', arguments: { levels: ['debug', 'error'] } }] }, { text: 'Done.' }]);
    const agent = new Agent({ name: 'desk', model: script(), tools: TOOLS, store: new InMemoryStore() });
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('Go', { sessionId: 's-1', userId: 'u-1' })) events.push(event);
    const runId = events[0].runId;
    const kinds = events.map((e) => e.type);
    expect(kinds.slice(kinds.indexOf('tool-call'), kinds.indexOf('tool-result') + 1)).toEqual([
      'tool-call',
      'tool-log',
      'tool-log',
      'tool-result',
    ]);
    expect(events.filter((e) => e.type === 'tool-log')).toEqual([
      { type: 'tool-log', runId, toolCallId: 'c1', name: 'lines', level: 'debug', message: 'line 0', data: { i: 0 } },
      { type: 'tool-log', runId, toolCallId: 'c1', name: 'lines', level: 'error', message: 'line 1', data: { i: 1 } },
    ]);
    const quiet = new Agent({ name: 'desk', model: script(), tools: TOOLS, store: new InMemoryStore() });
    expect((await quiet.run('Go', { sessionId: 's-2', userId: 'u-1' })).output).toBe('Done.');
  });
});
