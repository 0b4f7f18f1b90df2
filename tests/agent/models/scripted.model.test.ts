import { ModelError, ToolwrightError } from '../../../src/errors/errors';
import { ScriptedModel } from '../../../src/agent/models/scripted.model';
import fc from 'fast-check';
import type { ModelRequest, ModelStreamPart } from '../../../src/agent/model';
import type { Message } from '../../../src/session/message';
import type { ToolDefinition } from '../../../src/metadata/json-schema';

const tool: ToolDefinition = {
  name: 'get_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};

function request(messages: Message[] = [{ role: 'user', content: 'Where is A-1?' }]): ModelRequest {
  return { instructions: 'Be brief.', messages, tools: [tool] };
}

describe('ScriptedModel', () => {
  it('plays text and tool-call steps in order, serializing object arguments', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-1' } }] }, { text: 'A-1 has shipped.' }]);

    const first = await model.generate(request());
    const second = await model.generate(request());

    expect(first.content).toBeNull();
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'get_order', arguments: '{"order_id":"A-1"}' }]);
    expect(first.finishReason).toBe('tool_calls');
    expect(second.content).toBe('A-1 has shipped.');
    expect(second.toolCalls).toEqual([]);
    expect(second.finishReason).toBe('stop');
  });

  it('numbers generated ids across turns and keeps explicit ids and string arguments as written', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'get_order', arguments: { order_id: 'A-1' } },
          { name: 'get_order', arguments: { order_id: 'A-2' } },
        ],
      },
      { text: 'Also checking.', toolCalls: [{ name: 'get_order', arguments: '{"order_id":', id: 'mine' }, { name: 'get_order' }] },
    ]);

    const first = await model.generate(request());
    const second = await model.generate(request());

    expect(first.toolCalls.map((c) => c.id)).toEqual(['call_1', 'call_2']);
    expect(second.content).toBe('Also checking.');
    expect(second.toolCalls).toEqual([
      { id: 'mine', name: 'get_order', arguments: '{"order_id":' },
      { id: 'call_3', name: 'get_order', arguments: '{}' },
    ]);
  });

  it('lets a function step read the conversation, e.g. correct a call after an error result', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'get_order', arguments: { order_id: 1 } }] },
      (req) => {
        const last = req.messages[req.messages.length - 1];
        const failed = last.role === 'tool' && JSON.parse(last.content).code === 'INVALID_ARGUMENTS';
        return failed ? { toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-1' } }] } : { text: 'unexpected' };
      },
    ]);

    const first = await model.generate(request());
    const history: Message[] = [
      { role: 'user', content: 'Where is A-1?' },
      { role: 'assistant', content: null, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: '{"status":"error","code":"INVALID_ARGUMENTS"}', isError: true },
    ];
    const second = await model.generate(request(history));

    expect(second.toolCalls).toEqual([{ id: 'call_2', name: 'get_order', arguments: '{"order_id":"A-1"}' }]);
  });

  it('accepts the whole script as one function of the request and turn', async () => {
    const model = new ScriptedModel((req, turn) => (turn < 2 ? { text: `turn ${turn}: ${req.messages.length} message(s)` } : undefined));

    expect((await model.generate(request())).content).toBe('turn 0: 1 message(s)');
    expect((await model.generate(request())).content).toBe('turn 1: 1 message(s)');
    await expect(model.generate(request())).rejects.toThrow(/script exhausted: request #3/);
  });

  it('records every request as it was at call time', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }]);
    const messages: Message[] = [{ role: 'user', content: 'first' }];

    await model.generate(request(messages));
    messages.push({ role: 'assistant', content: 'one' }, { role: 'user', content: 'second' });
    await model.generate(request(messages));

    expect(model.requests).toHaveLength(2);
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: 'first' }]);
    expect(model.requests[1].messages).toHaveLength(3);
    expect(model.requests[0].instructions).toBe('Be brief.');
    expect(model.requests[0].tools).toEqual([tool]);
    expect(model.remaining).toBe(0);
  });

  it('throws a ModelError naming the step count when the script runs out', async () => {
    const model = new ScriptedModel([{ text: 'only' }]);
    await model.generate(request());

    const error = await model.generate(request()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toBeInstanceOf(ToolwrightError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect((error as ModelError).provider).toBe('scripted');
    expect((error as ModelError).message).toContain('request #2 arrived but the script has only 1 step(s)');
  });

  it('throws the error of an error step, so runner failure paths can be scripted', async () => {
    const outage = new ModelError('scripted', 'rate limited', 429, true);
    const model = new ScriptedModel([{ error: outage }, { text: 'recovered' }]);

    await expect(model.generate(request())).rejects.toBe(outage);
    expect((await model.generate(request())).content).toBe('recovered');
  });

  it('reports rough, non-zero usage that grows with the input', async () => {
    const model = new ScriptedModel([{ text: 'ok' }, { text: 'ok' }]);

    const small = await model.generate(request([{ role: 'user', content: 'hi' }]));
    const large = await model.generate(request([{ role: 'user', content: 'hi '.repeat(400) }]));

    expect(small.usage!.inputTokens).toBeGreaterThan(0);
    expect(small.usage!.outputTokens).toBeGreaterThan(0);
    expect(large.usage!.inputTokens).toBeGreaterThan(small.usage!.inputTokens + 250);
  });

  it('refuses an already aborted request', async () => {
    const model = new ScriptedModel([{ text: 'never' }]);
    const controller = new AbortController();
    controller.abort();

    await expect(model.generate({ ...request(), signal: controller.signal })).rejects.toThrow(/aborted/);
  });
});

describe('ScriptedModel records requests without copying the history each turn', () => {
  it('each recorded request shows the messages its turn saw, though the history array kept growing', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const history: Message[] = [{ role: 'user', content: 'one' }];
    await model.generate({ instructions: undefined, messages: history, tools: [tool] });
    history.push({ role: 'assistant', content: 'a' }, { role: 'user', content: 'two' });
    await model.generate({ instructions: undefined, messages: history, tools: [tool] });
    history.push({ role: 'assistant', content: 'b' });
    expect(model.requests[0].messages.map((m) => m.content)).toEqual(['one']);
    expect(model.requests[1].messages.map((m) => m.content)).toEqual(['one', 'a', 'two']);
    expect(JSON.parse(JSON.stringify(model.requests))[1].messages).toHaveLength(3);
  });

  it('keeps only the last keepRequests requests, and still counts every turn', async () => {
    const model = new ScriptedModel(() => ({ text: 'ok' }), { keepRequests: 3 });
    for (let i = 0; i < 10; i++)
      await model.generate({ instructions: undefined, messages: [{ role: 'user', content: `m${i}` }], tools: [] });
    expect(model.requests.map((r) => r.messages[0].content)).toEqual(['m7', 'm8', 'm9']);
    const listed = new ScriptedModel([{ text: 'a' }, { text: 'b' }], { keepRequests: 1 });
    await listed.generate({ instructions: undefined, messages: [], tools: [] });
    expect(listed.remaining).toBe(1);
  });
});

describe('ScriptedModel.stream', () => {
  async function read(model: ScriptedModel, req: ModelRequest = request()) {
    const parts: ModelStreamPart[] = [];
    try {
      for await (const part of model.stream(req)) parts.push(part);
      return { parts };
    } catch (error) {
      return { parts, error };
    }
  }

  it("streams text word by word, then complete tool calls, then finish = generate's response, for any script (property)", async () => {
    const step = fc.record(
      {
        text: fc.string({ unit: 'grapheme' }),
        toolCalls: fc.array(
          fc.record(
            { name: fc.constant('get_order'), arguments: fc.dictionary(fc.string(), fc.jsonValue()), id: fc.string({ minLength: 1 }) },
            { requiredKeys: ['name'] },
          ),
          { maxLength: 3 },
        ),
        finishReason: fc.string(),
      },
      { requiredKeys: ['text'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        // Twins: one generates, one streams, through the same turns (generated call ids included).
        const generating = new ScriptedModel(steps);
        const streaming = new ScriptedModel(steps);
        for (const _ of steps) {
          const generated = await generating.generate(request());
          const { parts, error } = await read(streaming);
          expect(error).toBeUndefined();
          expect(parts.at(-1)).toEqual({ type: 'finish', response: generated });
          const deltas = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []));
          expect(deltas.join('')).toBe(generated.content ?? '');
          expect(deltas.every((d) => d !== '')).toBe(true);
          expect(parts.flatMap((p) => (p.type === 'tool-call' ? [p.toolCall] : []))).toEqual(generated.toolCalls);
        }
        expect(streaming.requests).toHaveLength(steps.length);
      }),
      { numRuns: 100 },
    );
  });

  it('streams text in several chunks', async () => {
    const { parts } = await read(new ScriptedModel([{ text: 'A-1 has shipped today.' }]));

    expect(parts.slice(0, -1)).toEqual(['A-1 ', 'has ', 'shipped ', 'today.'].map((delta) => ({ type: 'text-delta', delta })));
  });

  it('an error step with text streams the text, then throws its error: a stream cut in the middle', async () => {
    const cut = new ModelError('scripted', 'connection lost mid-stream', undefined, true);
    const model = new ScriptedModel([{ text: 'Let me check', error: cut }, { text: 'ok' }]);

    const { parts, error } = await read(model);

    expect(parts).toEqual([
      { type: 'text-delta', delta: 'Let ' },
      { type: 'text-delta', delta: 'me ' },
      { type: 'text-delta', delta: 'check' },
    ]);
    expect(error).toBe(cut);
    await expect(new ScriptedModel([{ text: 'Let me check', error: cut }]).generate(request())).rejects.toBe(cut);
  });

  it('the request signal stops the stream between chunks', async () => {
    const controller = new AbortController();
    const parts: ModelStreamPart[] = [];
    const stream = new ScriptedModel([{ text: 'one two three four' }]).stream({ ...request(), signal: controller.signal });

    const error = await (async () => {
      for await (const part of stream) {
        parts.push(part);
        controller.abort();
      }
    })().catch((e: unknown) => e);

    expect(parts).toEqual([{ type: 'text-delta', delta: 'one ' }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('aborted');
  });

  it('chunkDelayMs paces the chunks, and the request signal cuts the pause short', async () => {
    const paced = new ScriptedModel([{ text: 'one two' }, { text: 'three four' }], { chunkDelayMs: 30_000 });
    const controller = new AbortController();
    const stream = paced.stream({ ...request(), signal: controller.signal });

    const first = stream.next();
    controller.abort();

    await expect(first).rejects.toThrow(/aborted/);
    const unpaced = await read(new ScriptedModel([{ text: 'one two' }], { chunkDelayMs: 1 }));
    expect(unpaced.parts.slice(0, -1)).toEqual([
      { type: 'text-delta', delta: 'one ' },
      { type: 'text-delta', delta: 'two' },
    ]);
  });

  it('an exhausted script throws from the stream as from generate', async () => {
    const { parts, error } = await read(new ScriptedModel([]));

    expect(parts).toEqual([]);
    expect((error as ModelError).message).toContain('script exhausted');
  });
});
