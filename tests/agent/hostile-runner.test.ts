/**
 * A hostile model through the Agent runner: one turn carrying every kind of broken tool call at once
 * (malformed JSON, repeated keys, unknown and prototype-named tools, repeated and empty ids, huge
 * arguments, hundreds of calls, tools that throw or hang). Each call gets exactly one typed error
 * result, the saved history stays well-formed (every call answered once, by its id), and the next
 * run on the same session works. In-memory and SQLite stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsString, MaxLength } from 'class-validator';
import {
  Agent,
  InMemoryStore,
  Param,
  ScriptedModel,
  SqliteStore,
  Tool,
  ToolExecutionError,
  ToolRegistry,
  type Message,
  type SessionStore,
  type ToolInterface,
} from 'toolwright';
import type { ScriptedToolCall } from '../../src/agent/models/scripted.model';

class EchoInput {
  @Param() @IsString() @MaxLength(100) text!: string;
}

@Tool({ name: 'echo', description: 'Echo the text.', input: EchoInput })
class EchoTool implements ToolInterface<EchoInput> {
  execute({ text }: EchoInput) {
    return { text };
  }
}

@Tool({ name: 'boom', description: 'Always throws.', input: EchoInput })
class BoomTool implements ToolInterface<EchoInput> {
  execute(): never {
    throw new TypeError('undefined is not a function');
  }
}

@Tool({ name: 'hang', description: 'Never answers.', input: EchoInput, timeoutMs: 200 })
class HangTool implements ToolInterface<EchoInput> {
  execute(): Promise<never> {
    return new Promise(() => undefined);
  }
}

@Tool({ name: 'reject', description: 'Rejects with a non-error.', input: EchoInput })
class RejectTool implements ToolInterface<EchoInput> {
  execute(): Promise<never> {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a hostile tool rejects with what is not an Error
    return Promise.reject(Object.create(null) as object);
  }
}

/** The hostile calls, each with the error code its result must carry (undefined: a success). */
const hostile: Array<[ScriptedToolCall, string | undefined]> = [
  [{ id: 'json', name: 'echo', arguments: '{"text": "a"' }, 'INVALID_JSON'],
  [{ id: 'dupkey', name: 'echo', arguments: '{"text":"a","text":"b"}' }, 'INVALID_JSON'],
  [{ id: 'string', name: 'echo', arguments: '"text"' }, 'INVALID_ARGUMENTS'],
  [{ id: 'null', name: 'echo', arguments: 'null' }, 'INVALID_ARGUMENTS'],
  [{ id: 'array', name: 'echo', arguments: '[1,2]' }, 'INVALID_ARGUMENTS'],
  [{ id: 'proto', name: 'echo', arguments: '{"text":"a","__proto__":{"x":1}}' }, 'INVALID_ARGUMENTS'],
  [{ id: 'deep', name: 'echo', arguments: `{"text":${'['.repeat(10_000)}${']'.repeat(10_000)}}` }, 'INVALID_ARGUMENTS'],
  [{ id: 'huge', name: 'echo', arguments: JSON.stringify({ text: 'x'.repeat(2_000_000) }) }, 'INVALID_ARGUMENTS'],
  [{ id: 'wide', name: 'echo', arguments: JSON.stringify({ text: Array.from({ length: 50_000 }, (_, i) => i) }) }, 'INVALID_ARGUMENTS'],
  [{ id: 'unknown', name: 'launch_missiles', arguments: {} }, 'TOOL_NOT_FOUND'],
  [{ id: 'protoname', name: '__proto__', arguments: {} }, 'TOOL_NOT_FOUND'],
  [{ id: 'ctorname', name: 'constructor', arguments: {} }, 'TOOL_NOT_FOUND'],
  [{ id: 'tostring', name: 'toString', arguments: {} }, 'TOOL_NOT_FOUND'],
  [{ id: 'emptyname', name: '', arguments: {} }, 'TOOL_NOT_FOUND'],
  [{ id: 'throws', name: 'boom', arguments: { text: 'a' } }, 'TOOL_FAILED'],
  [{ id: 'rejects', name: 'reject', arguments: { text: 'a' } }, 'TOOL_FAILED'],
  [{ id: 'hangs', name: 'hang', arguments: { text: 'a' } }, 'TOOL_TIMEOUT'],
  [{ id: 'same', name: 'echo', arguments: { text: 'first' } }, undefined],
  [{ id: 'same', name: 'echo', arguments: { text: 'second' } }, undefined],
  [{ id: '', name: 'echo', arguments: { text: 'empty id' } }, undefined],
  [{ id: '__proto__', name: 'echo', arguments: { text: 'proto id' } }, undefined],
  ...Array.from({ length: 300 }, (_, i): [ScriptedToolCall, undefined] => [
    { id: `many_${i}`, name: 'echo', arguments: { text: `${i}` } },
    undefined,
  ]),
];

type ToolMessage = Extract<Message, { role: 'tool' }>;

/** Every assistant tool call is answered by exactly one tool message with its id, right after it; ids are unique. */
function wellFormed(history: readonly Message[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const answers = history.slice(i + 1, i + 1 + m.toolCalls.length) as ToolMessage[];
    m.toolCalls.forEach((c, j) => {
      if (seen.has(c.id)) problems.push(`id ${JSON.stringify(c.id)} used twice`);
      seen.add(c.id);
      if (!c.id) problems.push(`call ${j} has an empty id`);
      if (answers[j]?.role !== 'tool' || answers[j].toolCallId !== c.id)
        problems.push(`call ${JSON.stringify(c.id)} not answered in place`);
      try {
        JSON.parse(answers[j]?.content ?? '');
      } catch {
        problems.push(`call ${JSON.stringify(c.id)}: result is not JSON`);
      }
    });
  }
  return problems;
}

const stores: Array<[string, () => { store: SessionStore; close: () => void }]> = [
  ['in-memory', () => ({ store: new InMemoryStore(), close: () => undefined })],
  [
    'SQLite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'tw-hostile-'));
      const store = new SqliteStore({ path: join(dir, 'agent.db') });
      return { store, close: () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  ],
];

describe.each(stores)('a hostile model through the runner (%s store)', (_label, make) => {
  it('gives every broken call one typed error result, keeps the history well-formed, and the next run works', async () => {
    const { store, close } = make();
    try {
      const who = { sessionId: 'hostile-1', userId: 'u-1' };
      const agent = (model: ScriptedModel) =>
        new Agent({
          name: 'support',
          model,
          tools: [EchoTool, BoomTool, HangTool, RejectTool],
          store,
          maxTurns: 4,
          retryBudget: 1000,
          errorPolicy: 'redact',
        });
      const model = new ScriptedModel([{ toolCalls: hostile.map(([c]) => c) }, { text: 'done' }]);
      const result = await agent(model).run('go', who);
      expect(result.status).toBe('completed');

      const saved = (await store.loadSession({ sessionId: who.sessionId }))!.history;
      expect(wellFormed(saved)).toEqual([]);
      const assistant = saved.find((m): m is Extract<Message, { role: 'assistant' }> => m.role === 'assistant' && !!m.toolCalls)!;
      expect(assistant.toolCalls).toHaveLength(hostile.length);
      const results = saved.filter((m): m is ToolMessage => m.role === 'tool');
      const codes = results.map((m) => (JSON.parse(m.content) as { code?: string }).code);
      expect(codes).toEqual(hostile.map(([, code]) => code));
      // What the model is shown stays small whatever it sent (bounded error answers).
      for (const m of results) expect(m.content.length).toBeLessThan(8_000);
      // The two calls sharing an id ran once each, under ids of their own.
      const same = results.filter((m) => m.toolCallId.startsWith('same'));
      expect(same.map((m) => JSON.parse(m.content) as object)).toEqual([{ text: 'first' }, { text: 'second' }]);
      // The model's next request saw the same history.
      expect(wellFormed(model.requests[1].messages)).toEqual([]);

      const next = await agent(
        new ScriptedModel([{ toolCalls: [{ id: 'after', name: 'echo', arguments: { text: 'ok' } }] }, { text: 'fine' }]),
      ).run('again', who);
      expect(next.status).toBe('completed');
      const history = (await store.loadSession({ sessionId: who.sessionId }))!.history;
      expect(wellFormed(history)).toEqual([]);
      expect(history.at(-1)).toMatchObject({ role: 'assistant', content: 'fine' });
    } finally {
      close();
    }
  }, 60_000);

  it('a run failed by a throwing tool (the default policy) still saves a well-formed history, and the next run works', async () => {
    const { store, close } = make();
    try {
      const who = { sessionId: 'hostile-2', userId: 'u-1' };
      const agent = (model: ScriptedModel) =>
        new Agent({ name: 'support', model, tools: [EchoTool, BoomTool, HangTool, RejectTool], store });
      const calls = [hostile[0][0], hostile[14][0], hostile[16][0], hostile[17][0], hostile[18][0], hostile[21][0]];
      await expect(agent(new ScriptedModel([{ toolCalls: calls }, { text: 'never' }])).run('go', who)).rejects.toMatchObject({
        code: expect.any(String),
      });
      const saved = (await store.loadSession({ sessionId: who.sessionId }))!.history;
      expect(wellFormed(saved)).toEqual([]);
      const next = await agent(new ScriptedModel([{ text: 'fine' }])).run('again', who);
      expect(next.status).toBe('completed');
      expect(wellFormed((await store.loadSession({ sessionId: who.sessionId }))!.history)).toEqual([]);
    } finally {
      close();
    }
  }, 60_000);

  it('streamed, the same hostile turn gives one tool-result event per call and the same saved history shape', async () => {
    const { store, close } = make();
    try {
      const who = { sessionId: 'hostile-3', userId: 'u-1' };
      const model = new ScriptedModel([{ toolCalls: hostile.map(([c]) => c) }, { text: 'done' }]);
      const agent = new Agent({
        name: 'support',
        model,
        tools: [EchoTool, BoomTool, HangTool, RejectTool],
        store,
        retryBudget: 1000,
        errorPolicy: 'redact',
      });
      const events = [];
      for await (const event of agent.stream('go', who)) events.push(event);
      const end = events.at(-1)!;
      expect(end.type).toBe('run-end');
      expect(events.filter((e) => e.type === 'tool-result')).toHaveLength(hostile.length);
      const saved = (await store.loadSession({ sessionId: who.sessionId }))!.history;
      expect(wellFormed(saved)).toEqual([]);
      const codes = saved.filter((m): m is ToolMessage => m.role === 'tool').map((m) => (JSON.parse(m.content) as { code?: string }).code);
      expect(codes).toEqual(hostile.map(([, code]) => code));
    } finally {
      close();
    }
  }, 60_000);
});

describe('a tool that throws what cannot become text', () => {
  @Tool({ name: 'weird', description: 'Throws a value whose toString throws.', input: EchoInput })
  class WeirdTool implements ToolInterface<EchoInput> {
    execute(): never {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a hostile tool throws what is not an Error
      throw {
        toString() {
          throw new Error('no text');
        },
      };
    }
  }
  const registry = ToolRegistry.build({ tools: [RejectTool, WeirdTool] });

  it.each(['reject', 'weird'])('%s: registry.call fails with TOOL_FAILED, never a TypeError from describing it', async (name) => {
    const error = await registry.call(name, { text: 'a' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as ToolExecutionError).toToolResult()).toBe(
      JSON.stringify({ status: 'error', code: 'TOOL_FAILED', message: `Tool "${name}" failed unexpectedly.` }),
    );
  });
});
