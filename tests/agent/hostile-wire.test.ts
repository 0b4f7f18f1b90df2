/**
 * A hostile model at the wire: provider responses whose tool calls are broken in the ways real
 * servers break them (no function, a number for a name, an object or broken text for arguments,
 * repeated and missing ids, input that is not an object). Through OpenAIChatModel and
 * AnthropicModel against a loopback server speaking each wire format, the run goes on with a typed
 * error result per broken call (the well-formed ones run), never a TypeError failing the turn; the saved
 * history stays well-formed and the next run works.
 */
import { IsString, MaxLength } from 'class-validator';
import {
  Agent,
  AnthropicModel,
  InMemoryStore,
  OpenAIChatModel,
  Param,
  Tool,
  type RunResult,
  type Message,
  type ToolInterface,
} from 'toolwright';
import { json, useWireServer } from '../support/wire-server';

class EchoInput {
  @Param() @IsString() @MaxLength(100) text!: string;
}

@Tool({ name: 'echo', description: 'Echo the text.', input: EchoInput })
class EchoTool implements ToolInterface<EchoInput> {
  execute({ text }: EchoInput) {
    return { text };
  }
}

const wire = useWireServer('', (req, res) => json(500, { error: { message: 'no reply queued' } })(req, res));

const openai = (message: Record<string, unknown>, finish = 'tool_calls') =>
  json(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4.1',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
const anthropic = (content: unknown[], stop = 'tool_use') =>
  json(200, {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  });

type ToolMessage = Extract<Message, { role: 'tool' }>;

function wellFormed(history: readonly Message[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  history.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.toolCalls?.length) return;
    m.toolCalls.forEach((c, j) => {
      const answer = history[i + 1 + j] as ToolMessage | undefined;
      if (typeof c.id !== 'string' || !c.id || seen.has(c.id)) problems.push(`bad or repeated id ${JSON.stringify(c.id)}`);
      seen.add(c.id);
      if (typeof c.name !== 'string') problems.push(`name ${JSON.stringify(c.name)} is not a string`);
      if (typeof c.arguments !== 'string') problems.push(`arguments of ${c.id} are not text`);
      if (answer?.role !== 'tool' || answer.toolCallId !== c.id) problems.push(`${c.id} not answered in place`);
    });
  });
  return problems;
}

const cases: Array<[string, () => Agent['model'], () => void, () => void, string[]]> = [
  [
    'OpenAI Chat Completions',
    () => new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0 }),
    () =>
      wire.replies.push(
        openai({
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'echo', arguments: '{"text":' } },
            { id: 'a', type: 'function', function: { name: 'echo', arguments: { text: 'an object' } } },
            { id: '', type: 'function', function: { name: 'echo', arguments: '' } },
            { id: 'n', type: 'function', function: { name: 5, arguments: '{}' } },
            { id: 'f', type: 'function' },
            { id: 'g', type: 'function', function: null },
            { id: 'h', type: 'function', function: { arguments: '{}' } },
            { id: 'i', type: 'function', function: { name: 'echo', arguments: 7 } },
            { id: 'j', type: 'function', function: { name: 'echo', arguments: '{"text":"ok"}' } },
          ],
        }),
        openai({ content: 'done' }, 'stop'),
      ),
    () => wire.replies.push(openai({ content: 'fine' }, 'stop')),
    [
      'INVALID_JSON',
      'ok',
      'INVALID_ARGUMENTS',
      'TOOL_NOT_FOUND',
      'TOOL_NOT_FOUND',
      'TOOL_NOT_FOUND',
      'TOOL_NOT_FOUND',
      'INVALID_ARGUMENTS',
      'ok',
    ],
  ],
  [
    'Anthropic Messages',
    () => new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: wire.baseURL, maxRetries: 0 }),
    () =>
      wire.replies.push(
        anthropic([
          { type: 'tool_use', id: 't1', name: 'echo', input: 'not an object' },
          { type: 'tool_use', id: 't1', name: 'echo', input: [1, 2] },
          { type: 'tool_use', id: 't3', name: 'echo', input: null },
          { type: 'tool_use', name: 'echo', input: { text: 'no id' } },
          { type: 'tool_use', id: 't5', input: { text: 'no name' } },
          { type: 'tool_use', id: 't6', name: 7, input: {} },
          { type: 'tool_use', id: 't7', name: 'echo', input: { text: 'ok' } },
        ]),
        anthropic([{ type: 'text', text: 'done' }], 'end_turn'),
      ),
    () => wire.replies.push(anthropic([{ type: 'text', text: 'fine' }], 'end_turn')),
    ['INVALID_JSON', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', 'ok', 'TOOL_NOT_FOUND', 'TOOL_NOT_FOUND', 'ok'],
  ],
];

describe.each(cases)('a hostile model over the %s wire', (_label, makeModel, queueHostile, queueFine, codes) => {
  it('answers every broken tool call with a typed result (the good ones run); the history stays well-formed and the next run works', async () => {
    const store = new InMemoryStore();
    const who = { sessionId: 'wire-1', userId: 'u-1' };
    const agent = () => new Agent({ name: 'support', model: makeModel(), tools: [EchoTool], store, retryBudget: 100 });
    queueHostile();
    const outcome = await agent()
      .run('go', who)
      .then(
        (r) => r,
        (e: unknown) => e,
      );
    expect(outcome).not.toBeInstanceOf(Error);
    expect((outcome as RunResult).status).toBe('completed');
    const saved = (await store.loadSession({ sessionId: who.sessionId }))?.history ?? [];
    expect(wellFormed(saved)).toEqual([]);
    const results = saved.filter((m): m is ToolMessage => m.role === 'tool');
    expect(results.map((m) => (JSON.parse(m.content) as { code?: string; text?: string }).code ?? 'ok')).toEqual(codes);

    wire.replies = [];
    queueFine();
    const next = await agent().run('again', who);
    expect(next.status).toBe('completed');
    expect(wellFormed((await store.loadSession({ sessionId: who.sessionId }))!.history)).toEqual([]);
  });
});
