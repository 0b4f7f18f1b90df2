/**
 * A sub-agent's approval through the useChat endpoint: the call inside the agent tool's child run
 * is shown as an approval request of the chat's message (not lost, not approved by itself), and
 * the person's approval resumes the child at that call: the refund runs once.
 */
import { IsString, MinLength } from 'class-validator';
import { Agent, InMemoryStore, Param, ScriptedModel, Tool, ToolRegistry, type ToolInterface } from 'toolwright';
import type { Message } from '../../src/session/message';
import { createChatHandler } from '../../src/ai-sdk-ui';
import { listen, TestChat } from '../support/ui-chat';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

const refunded: string[] = [];
@Tool({ name: 'process_refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    refunded.push(order_id);
    return { status: 'success', refund_id: `R-${order_id}` };
  }
}

const lastTool = (messages: readonly Message[]) => [...messages].reverse().find((m) => m.role === 'tool')!;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  refunded.length = 0;
});

async function start(): Promise<string> {
  const store = new InMemoryStore();
  const billing = new Agent({
    name: 'billing',
    model: new ScriptedModel([
      { toolCalls: [{ id: 'r1', name: 'process_refund', arguments: { order_id: 'A-1' } }] },
      (request) => ({ text: `billing: ${lastTool(request.messages).content}` }),
    ]),
    tools: [RefundTool],
    store,
  });
  const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })] });
  const model = new ScriptedModel([
    { text: 'Asking billing.', toolCalls: [{ id: 'p1', name: 'billing_agent', arguments: { input: 'Refund A-1' } }] },
    (request) => ({ text: `Done: ${lastTool(request.messages).content}` }),
  ]);
  const agent = new Agent({ name: 'desk', model, tools: registry, store });
  const server = await listen(createChatHandler(agent, { userId: ({ headers }) => headers.get('x-user') ?? undefined }));
  close = server.close;
  return server.url;
}

describe('a sub-agent’s approval behind useChat', () => {
  it('is asked in the chat’s message, with the child’s tool; approving runs the refund once and completes the message', async () => {
    const url = await start();
    const chat = new TestChat(url, { id: 'chat-sub-1', headers: { 'x-user': 'alice' } });
    await chat.sendMessage({ text: 'Please refund A-1' });
    expect(chat.error).toBeUndefined();

    const paused = chat.reply;
    expect(paused.metadata).toMatchObject({ status: 'paused' });
    const asked = paused.parts.find((p) => p.type === 'tool-process_refund') as {
      state: string;
      toolCallId: string;
      approval: { id: string };
    };
    expect(asked).toMatchObject({ state: 'approval-requested', toolCallId: 'p1/r1', input: { order_id: 'A-1' } });
    expect(refunded).toEqual([]);

    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
    await continued;

    expect(chat.error).toBeUndefined();
    expect(refunded).toEqual(['A-1']);
    expect(chat.reply.metadata).toMatchObject({ status: 'completed' });
    expect(chat.reply.parts.find((p) => p.type === 'tool-billing_agent')).toMatchObject({ state: 'output-available' });
    const text = chat.reply.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ');
    expect(text).toContain('R-A-1');
  });
});
