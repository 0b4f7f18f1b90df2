/**
 * End to end: a tool that asks the person for input (`context.elicit`) behind createChatHandler on
 * a real node:http server, driven by the AI SDK's own chat client: the request arrives as a
 * `data-tool-input` part beside the call's `input-available` part, survives a reload (`GET ?id=`),
 * and the answer goes back with `addToolOutput` + `sendMessage()`; the call runs again with it.
 */
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import { Agent, AgentContext, InMemoryStore, Param, ScriptedModel, Tool, type ToolInterface } from 'toolwright';
import type { ModelRequest } from '../../src/agent/models';
import type { UIMessage } from 'ai';
import { createChatHandler, type ChatHandlerOptions } from '../../src/ai-sdk-ui';
import { PAUSED_MESSAGE } from '../../src/ai-sdk-ui/chat-handler';
import { listen, restoreChat, TestChat } from '../support/ui-chat';

class NoInput {}

class Booking {
  @Param({ description: 'Name on the booking' }) @IsString() @MinLength(1) name!: string;
  @Param({ description: 'Seats' }) @IsInt() @Min(1) seats!: number;
}

let asked = 0;
const booked: string[] = [];
@Tool({ name: 'book', description: 'Books a table, asking the user for the details', input: NoInput })
class BookTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    asked++;
    const answer = await context.elicit('Who is the table for?', Booking);
    if (answer.action !== 'accept') return { booked: false, action: answer.action };
    booked.push(answer.content.name);
    return { booked: true, name: answer.content.name, seats: answer.content.seats };
  }
}

/** Books on "book", then says what the tool returned. */
const host = () =>
  new ScriptedModel((request: ModelRequest) => {
    const last = request.messages[request.messages.length - 1];
    if (last.role === 'user')
      return { text: 'One moment.', toolCalls: [{ id: `book-${request.messages.length}`, name: 'book', arguments: {} }] };
    return { text: last.role === 'tool' ? `Done: ${last.content}` : 'ok' };
  });

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  asked = 0;
  booked.length = 0;
});

async function start(options: Partial<ChatHandlerOptions> = {}): Promise<string> {
  const agent = new Agent({ name: 'host', model: host(), tools: [BookTool], store: new InMemoryStore() });
  const server = await listen(createChatHandler(agent, { userId: ({ headers }) => headers.get('x-user') ?? undefined, ...options }));
  close = server.close;
  return server.url;
}

type Part = UIMessage['parts'][number] & { state?: string; toolCallId?: string; output?: unknown; errorText?: string; data?: unknown };
const partOf = (message: UIMessage, type: string): Part | undefined => (message.parts as Part[]).find((p) => p.type === type);
const FORM = {
  mode: 'form',
  message: 'Who is the table for?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Name on the booking', minLength: 1 },
      seats: { type: 'integer', description: 'Seats', minimum: 1 },
    },
    required: ['name', 'seats'],
  },
};

describe('context.elicit behind useChat (AI SDK chat client, real server)', () => {
  it('streams the request, restores it on reload, and the answer sent with addToolOutput completes the call once', async () => {
    const url = await start();
    const headers = { 'x-user': 'alice' };
    const chat = new TestChat(url, { id: 'chat-ask-1', headers });
    await chat.sendMessage({ text: 'Book a table' });
    expect(chat.error).toBeUndefined();
    const paused = chat.reply;
    const call = partOf(paused, 'tool-book')!;
    expect(call).toMatchObject({ state: 'input-available' });
    expect(partOf(paused, 'data-tool-input')).toMatchObject({
      id: call.toolCallId,
      data: { toolCallId: call.toolCallId, name: 'book', request: FORM },
    });
    expect(paused.metadata).toMatchObject({ status: 'paused' });
    expect(asked).toBe(1);

    // A message sent meanwhile (another tab) is refused in words for the person; nothing runs.
    const other = new TestChat(url, { id: 'chat-ask-1', headers });
    await other.sendMessage({ text: 'Hello?' });
    expect(other.status).toBe('error');
    expect(JSON.parse(other.error!.message)).toEqual({ error: { code: 'RUN_PAUSED', message: PAUSED_MESSAGE } });
    expect(asked).toBe(1);

    // A reloaded page shows the same question, on the same message.
    const reloaded = await restoreChat(url, { id: 'chat-ask-1', headers });
    const again = reloaded.reply;
    expect(again.id).toBe(paused.id);
    expect(partOf(again, 'tool-book')).toMatchObject({ toolCallId: call.toolCallId, state: 'input-available' });
    expect(partOf(again, 'data-tool-input')).toMatchObject({ id: call.toolCallId, data: { name: 'book', request: FORM } });

    const continued = reloaded.nextResponse();
    await reloaded.addToolOutput({
      tool: 'book',
      toolCallId: call.toolCallId!,
      output: { action: 'accept', content: { name: 'Ada', seats: 2 } },
    });
    await reloaded.sendMessage();
    await continued;
    expect(reloaded.error).toBeUndefined();
    expect(booked).toEqual(['Ada']);
    expect(asked).toBe(2);
    expect(reloaded.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(reloaded.reply.id).toBe(paused.id);
    expect(partOf(reloaded.reply, 'tool-book')).toMatchObject({
      state: 'output-available',
      output: { booked: true, name: 'Ada', seats: 2 },
    });
    expect(reloaded.reply.metadata).toMatchObject({ status: 'completed' });

    // Answered once: sending the same answer again is refused (nothing waits), nothing runs.
    await reloaded.addToolOutput({
      tool: 'book',
      toolCallId: call.toolCallId!,
      output: { action: 'accept', content: { name: 'Eve', seats: 1 } },
    });
    await reloaded.sendMessage();
    expect(reloaded.status).toBe('error');
    expect(booked).toEqual(['Ada']);
  });

  it('an invalid answer reaches the tool as INVALID_INPUT; a declined one as the decline', async () => {
    const url = await start();
    const chat = new TestChat(url, { id: 'chat-ask-2', headers: { 'x-user': 'bob' } });
    await chat.sendMessage({ text: 'Book a table' });
    const id = partOf(chat.reply, 'tool-book')!.toolCallId!;
    const continued = chat.nextResponse();
    await chat.addToolOutput({ tool: 'book', toolCallId: id, output: { action: 'accept', content: { name: '', seats: 0 } } });
    await chat.sendMessage();
    await continued;
    expect(chat.error).toBeUndefined();
    const failed = partOf(chat.reply, 'tool-book')!;
    expect(failed.state).toBe('output-error');
    expect(failed.errorText).toContain('INVALID_INPUT');
    expect(booked).toEqual([]);

    await chat.sendMessage({ text: 'Book again' });
    const second = chat.reply.parts.filter((p) => p.type === 'tool-book') as Part[];
    const next = second[second.length - 1].toolCallId!;
    const declined = chat.nextResponse();
    await chat.addToolOutput({ tool: 'book', toolCallId: next, output: { action: 'decline' } });
    await chat.sendMessage();
    await declined;
    const last = chat.reply.parts.filter((p) => p.type === 'tool-book') as Part[];
    expect(last[last.length - 1]).toMatchObject({ state: 'output-available', output: { booked: false, action: 'decline' } });
  });

  it("a chat that may not approve (approver: () => null) still takes the user's own answer", async () => {
    const url = await start({ approver: () => null });
    const chat = new TestChat(url, { id: 'chat-ask-3', headers: { 'x-user': 'carol' } });
    await chat.sendMessage({ text: 'Book a table' });
    const id = partOf(chat.reply, 'tool-book')!.toolCallId!;
    const continued = chat.nextResponse();
    await chat.addToolOutput({ tool: 'book', toolCallId: id, output: { action: 'accept', content: { name: 'Cy', seats: 3 } } });
    await chat.sendMessage();
    await continued;
    expect(chat.error).toBeUndefined();
    expect(partOf(chat.reply, 'tool-book')).toMatchObject({ state: 'output-available', output: { booked: true, name: 'Cy', seats: 3 } });
    expect(booked).toEqual(['Cy']);
  });
});
