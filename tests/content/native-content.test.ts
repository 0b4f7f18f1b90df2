/**
 * A ToolContent result through the agent runner: the tool message keeps the parts beside the
 * text form, the session store keeps them, and each model gets the form it supports. Anthropic
 * (its real wire format, from a loopback server) gets text and images as tool_result blocks and
 * every other part described; OpenAI-compatible models, whose tool messages carry text only, get
 * the text form, which describes each part.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { Agent, AnthropicModel, OpenAIChatModel, SqliteStore, Tool, ToolContent, ToolRegistry, type ToolInterface } from '../../src';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { AgentContext, AgentMemory } from '../../src';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { json, useWireServer } from '../support/wire-server';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

class None {}

@Tool({ name: 'chart', description: 'Charts the sales', input: None })
class ChartTool implements ToolInterface {
  execute(): ToolContent {
    return ToolContent.of([
      ToolContent.text('Sales, last 30 days:'),
      ToolContent.image(PNG, 'image/png'),
      ToolContent.image(new Uint8Array([1, 2, 3]), 'image/tiff'),
      ToolContent.audio(new Uint8Array([0, 1, 2, 3]), 'audio/wav'),
    ]);
  }
}

const registry = ToolRegistry.build({ tools: [ChartTool] });
const wire = useWireServer('', json(500, { error: 'no reply queued' }));
const dir = mkdtempSync(join(tmpdir(), 'toolwright-native-content-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const anthropicReply = (content: unknown[], stop: string) =>
  json(200, {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  });

function anthropic() {
  return new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0 });
}

it('Anthropic gets text and images as tool_result blocks, the rest described, from a stored session too', async () => {
  const store = new SqliteStore({ path: join(dir, 'anthropic.db') });
  try {
    wire.replies.push(anthropicReply([{ type: 'tool_use', id: 'toolu_1', name: 'chart', input: {} }], 'tool_use'));
    wire.replies.push(anthropicReply([{ type: 'text', text: 'Sales are up.' }], 'end_turn'));
    const agent = new Agent({ name: 'analyst', model: anthropic(), tools: registry, store });
    const result = await agent.run('How are sales?', { sessionId: 's1', userId: 'u1' });
    expect(result.output).toBe('Sales are up.');
    const blocks = wire.received[1].body.messages.at(-1).content[0];
    expect(blocks).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(blocks.content[0]).toEqual({ type: 'text', text: 'Sales, last 30 days:' });
    expect(blocks.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } });
    // A TIFF is no image type Anthropic takes, and audio is none either: described, not dropped.
    expect(blocks.content[2]).toEqual({ type: 'text', text: expect.stringContaining('image/tiff') });
    expect(blocks.content[3]).toEqual({ type: 'text', text: expect.stringContaining('audio/wav') });

    // The next run of the session, from the store: the same blocks go to the model again.
    wire.replies.push(anthropicReply([{ type: 'text', text: 'Still up.' }], 'end_turn'));
    await new Agent({ name: 'analyst', model: anthropic(), tools: registry, store }).run('And now?', { sessionId: 's1', userId: 'u1' });
    const replayed = wire.received[2].body.messages.find(
      (m: { role: string; content: unknown }) => Array.isArray(m.content) && (m.content as { type: string }[])[0]?.type === 'tool_result',
    );
    expect(replayed.content[0]).toEqual(blocks);
  } finally {
    await store.close();
  }
});

it('an OpenAI-compatible model gets the text form, which names every part', async () => {
  const completion = (message: object, finish: string) =>
    json(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4.1',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  wire.replies.push(
    completion(
      { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'chart', arguments: '{}' } }] },
      'tool_calls',
    ),
  );
  wire.replies.push(completion({ content: 'Up.' }, 'stop'));
  const model = new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0 });
  await new Agent({ name: 'analyst', model, tools: registry, store: new SqliteStore({ path: ':memory:' }) }).run('Sales?', {
    sessionId: 's2',
  });
  const tool = wire.received[1].body.messages.find((m: { role: string }) => m.role === 'tool');
  expect(typeof tool.content).toBe('string');
  for (const named of ['Sales, last 30 days:', 'image/png', 'image/tiff', 'audio/wav']) expect(tool.content).toContain(named);
});

it('the AI SDK gets text, images and audio as content parts (toModelOutput), resources described', async () => {
  @Tool({ name: 'report', description: 'A report with a chart', input: None })
  class ReportTool implements ToolInterface {
    execute(): ToolContent {
      return ToolContent.of([
        ToolContent.text('Report'),
        ToolContent.image(PNG, 'image/png'),
        ToolContent.audio(new Uint8Array([0, 1]), 'audio/wav'),
        ToolContent.resourceLink({ uri: 'https://example.com/r/1', name: 'full report' }),
      ]);
    }
  }
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'report', input: '{}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
  const session = { context: new AgentContext({ sessionId: 's-ai' }), memory: new AgentMemory({ agentName: 'ai', userId: 'u' }) };
  const result = await generateText({
    model,
    tools: toAiSdkTools(ToolRegistry.build({ tools: [ReportTool] }), { session }),
    prompt: 'report',
    stopWhen: stepCountIs(2),
  });
  expect(result.text).toBe('done');
  const message = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool');
  const output = (message?.content[0] as { output: { type: string; value: unknown[] } }).output;
  expect(output.type).toBe('content');
  expect(output.value[0]).toEqual({ type: 'text', text: 'Report' });
  expect(output.value[1]).toMatchObject({ type: 'image-data', data: PNG.toString('base64'), mediaType: 'image/png' });
  expect(output.value[2]).toMatchObject({ type: 'file-data', data: 'AAE=', mediaType: 'audio/wav' });
  expect(output.value[3]).toEqual({ type: 'text', text: expect.stringContaining('https://example.com/r/1') });
});
