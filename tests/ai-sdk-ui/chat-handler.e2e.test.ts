/**
 * End to end: a real Agent (ScriptedModel, InMemoryStore, an approval-gated tool) behind
 * createChatHandler on a real node:http server, driven by the AI SDK's own chat client the way a
 * `useChat` front end drives it: send, see the approval request, approve or deny, see the result.
 */
import { IsString, MinLength } from 'class-validator';
import { Agent, AgentContext, InMemoryStore, Param, ScriptedModel, Tool, type ScriptedStep, type ToolInterface } from 'toolwright';
import { type ModelRequest } from '../../src/agent/models';
import type { UIMessage } from 'ai';
import { createChatHandler } from '../../src/ai-sdk-ui';
import { listen, TestChat } from '../support/ui-chat';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
class LookupTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput, context: AgentContext) {
    context.reportProgress(1, 1, 'found');
    return { order_id, total: 40 };
  }
}

const refunded: string[] = [];
@Tool({ name: 'process_refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    refunded.push(order_id);
    return { status: 'success', refund_id: `R-${order_id}` };
  }
}

/** Runs until the run is cancelled, and records that it saw the cancellation. */
const cancelled: string[] = [];
@Tool({ name: 'slow_report', description: 'Builds a long report', input: OrderInput })
class SlowReportTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput, context: AgentContext) {
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener('abort', () => {
        cancelled.push(order_id);
        reject(new Error('cancelled'));
      });
    });
  }
}

/** The desk's model: look the order up, ask to refund it, then say what happened. */
function desk(): ScriptedModel {
  let n = 0;
  return new ScriptedModel((request: ModelRequest): ScriptedStep => {
    const last = request.messages[request.messages.length - 1];
    n++;
    if (last.role === 'user') {
      const report = /report (\S+)/.exec(last.content)?.[1];
      if (report) return { toolCalls: [{ id: `report-${n}`, name: 'slow_report', arguments: { order_id: report } }] };
      const order = /refund (\S+)/.exec(last.content)?.[1];
      if (!order) return { text: `I see ${request.messages.length} messages.` };
      return { text: 'Let me check.', toolCalls: [{ id: `look-${n}`, name: 'lookup_order', arguments: { order_id: order } }] };
    }
    if (last.role === 'tool' && last.name === 'lookup_order') {
      const { order_id } = JSON.parse(last.content) as { order_id: string };
      return { toolCalls: [{ id: `pay-${n}`, name: 'process_refund', arguments: { order_id } }] };
    }
    if (last.role === 'tool') return { text: last.isError ? `Not refunded: ${last.content}` : `Refunded: ${last.content}` };
    return { text: 'ok' };
  });
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  refunded.length = 0;
  cancelled.length = 0;
});

async function start(): Promise<string> {
  const agent = new Agent({ name: 'desk', model: desk(), tools: [LookupTool, RefundTool, SlowReportTool], store: new InMemoryStore() });
  const server = await listen(createChatHandler(agent, { userId: ({ headers }) => headers.get('x-user') ?? undefined }));
  close = server.close;
  return server.url;
}

const texts = (parts: UIMessage['parts']) => parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));

describe('a toolwright Agent behind useChat (AI SDK chat client, real server)', () => {
  it('text, a tool with progress, an approval, approve: the refund runs once and the same message continues; the next message sees the history', async () => {
    const url = await start();
    const chat = new TestChat(url, { id: 'chat-e2e-1', headers: { 'x-user': 'alice' } });
    await chat.sendMessage({ text: 'Please refund A-1' });
    expect(chat.error).toBeUndefined();

    const paused = chat.reply;
    expect(texts(paused.parts)).toEqual(['Let me check.']);
    expect(paused.parts.find((p) => p.type === 'tool-lookup_order')).toMatchObject({
      state: 'output-available',
      input: { order_id: 'A-1' },
      output: { order_id: 'A-1', total: 40 },
    });
    expect(paused.parts.find((p) => p.type === 'data-tool-progress')).toMatchObject({
      data: { name: 'lookup_order', progress: 1, total: 1, message: 'found' },
    });
    const asked = paused.parts.find((p) => p.type === 'tool-process_refund') as {
      state: string;
      toolCallId: string;
      approval: { id: string };
    };
    expect(asked).toMatchObject({ state: 'approval-requested', input: { order_id: 'A-1' } });
    expect(paused.metadata).toMatchObject({ status: 'paused', sessionId: 'chat-e2e-1' });
    expect(refunded).toEqual([]);

    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
    await continued;
    expect(chat.error).toBeUndefined();
    expect(refunded).toEqual(['A-1']);
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(chat.reply.id).toBe(paused.id);
    expect(chat.reply.parts.filter((p) => p.type === 'tool-process_refund')).toEqual([
      expect.objectContaining({
        state: 'output-available',
        output: { status: 'success', refund_id: 'R-A-1' },
        approval: expect.objectContaining({ approved: true }),
      }),
    ]);
    expect(texts(chat.reply.parts)).toEqual(['Let me check.', `Refunded: ${JSON.stringify({ status: 'success', refund_id: 'R-A-1' })}`]);
    expect(chat.reply.metadata).toMatchObject({ status: 'completed', turns: 3 });

    // The history lives in the session: user, assistant+call, result, assistant+call, result, answer, user.
    await chat.sendMessage({ text: 'How many?' });
    expect(texts(chat.reply.parts)).toEqual(['I see 7 messages.']);

    // Another user cannot take the chat over by its id.
    const mallory = new TestChat(url, { id: 'chat-e2e-1', headers: { 'x-user': 'mallory' } });
    await mallory.sendMessage({ text: 'How many?' });
    expect(mallory.status).toBe('error');
    expect(JSON.parse(mallory.error!.message).error.code).toBe('SESSION_FORBIDDEN');
  });

  it('deny: the refund never runs, the part shows output-denied, the model sees the reason', async () => {
    const url = await start();
    const chat = new TestChat(url, { id: 'chat-e2e-2', headers: { 'x-user': 'bob' } });
    await chat.sendMessage({ text: 'refund B-2' });
    const asked = chat.reply.parts.find((p) => p.type === 'tool-process_refund') as { approval: { id: string } };
    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: asked.approval.id, approved: false, reason: 'Over the limit' });
    await continued;

    expect(refunded).toEqual([]);
    expect(chat.reply.parts.find((p) => p.type === 'tool-process_refund')).toMatchObject({
      state: 'output-denied',
      approval: { approved: false, reason: 'Over the limit' },
    });
    const [, answer] = texts(chat.reply.parts);
    expect(answer).toMatch(/^Not refunded: /);
    expect(answer).toContain('Over the limit');

    // Answering the same approval again: it was already decided (409), nothing runs twice.
    const replay = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'bob' },
      body: JSON.stringify({
        id: 'chat-e2e-2',
        trigger: 'submit-message',
        messages: [chat.messages[0], replayOf(chat.reply, asked.approval.id)],
      }),
    });
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('APPROVAL_ALREADY_DECIDED');
  });
});

describe('stopping a run from the chat', () => {
  it('stop() cancels the running tool (its signal fires) and the session stays usable', async () => {
    const url = await start();
    const chat = new TestChat(url, { id: 'chat-e2e-3', headers: { 'x-user': 'carol' } });
    const sending = chat.sendMessage({ text: 'report C-3' });
    await until(() => chat.messages.some((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'tool-slow_report')));
    await chat.stop();
    await sending;
    await until(() => cancelled.length > 0);
    expect(cancelled).toEqual(['C-3']);

    // The next message runs on a well-formed session: user, assistant + call, the cancelled call's result, user.
    await chat.sendMessage({ text: 'How many?' });
    expect(chat.error).toBeUndefined();
    expect(texts(chat.reply.parts)).toEqual(['I see 4 messages.']);
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The assistant message as it was when the approval was answered (approved this time). */
function replayOf(message: UIMessage, approvalId: string): object {
  return {
    ...message,
    parts: message.parts.map((p) =>
      p.type === 'tool-process_refund'
        ? { ...p, state: 'approval-responded', approval: { id: approvalId, approved: true }, output: undefined }
        : p,
    ),
  };
}
