/**
 * A reloaded `useChat` page, end to end: a real Agent behind createChatHandler on a real node:http
 * server, driven by the AI SDK's own chat client. Chat, pause on an approval, "reload" (a new
 * client started from `GET ?id=`), approve from the restored page: the tool runs once and the
 * same message continues. Another user cannot restore the chat; a store that is down answers a
 * typed 503; a message sent while the approval waits gets words for a person, not a developer.
 */
import { IsString, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  Param,
  ScriptedModel,
  StoreUnavailableError,
  Tool,
  type ScriptedStep,
  type ToolInterface,
} from 'toolwright';
import { type ModelRequest } from '../../src/agent/models';
import type { UIMessage } from 'ai';
import { createChatHandler } from '../../src/ai-sdk-ui';
import { PAUSED_MESSAGE } from '../../src/ai-sdk-ui/chat-handler';
import { listen, restoreChat, TestChat } from '../support/ui-chat';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
class LookupTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput, context: AgentContext) {
    context.reportProgress(1, 1, 'found');
    if (order_id === 'GONE') throw new Error('no such order');
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

/** Look the order up, ask to refund it, then say what happened; other text is answered plainly. */
function desk(): ScriptedModel {
  let n = 0;
  return new ScriptedModel((request: ModelRequest): ScriptedStep => {
    const last = request.messages[request.messages.length - 1];
    n++;
    if (last.role === 'user') {
      const order = /refund (\S+)/.exec(last.content)?.[1];
      if (!order) return { text: `I see ${request.messages.length} messages.` };
      return {
        text: 'Let me check.',
        toolCalls: [
          { id: `look-${n}`, name: 'lookup_order', arguments: { order_id: order } },
          { id: `gone-${n}`, name: 'lookup_order', arguments: { order_id: 'GONE' } },
        ],
      };
    }
    if (last.role === 'tool' && last.name === 'lookup_order') {
      const found = request.messages.find((m) => m.role === 'tool' && !m.isError && m.name === 'lookup_order');
      const { order_id } = JSON.parse(found!.role === 'tool' ? found!.content : '{}') as { order_id: string };
      return { toolCalls: [{ id: `pay-${n}`, name: 'process_refund', arguments: { order_id } }] };
    }
    if (last.role === 'tool') return { text: last.isError ? `Not refunded: ${last.content}` : `Refunded: ${last.content}` };
    return { text: 'ok' };
  });
}

/** An in-memory store that can be taken down. */
class FlakyStore extends InMemoryStore {
  down = false;
  override loadSession(...args: Parameters<InMemoryStore['loadSession']>) {
    if (this.down) return Promise.reject(new StoreUnavailableError('test', new Error('connect ECONNREFUSED 127.0.0.1:6379')));
    return super.loadSession(...args);
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  refunded.length = 0;
});

async function start(store = new FlakyStore()): Promise<string> {
  const agent = new Agent({ name: 'desk', model: desk(), tools: [LookupTool, RefundTool], store, errorPolicy: 'redact' });
  const server = await listen(
    createChatHandler(agent, {
      userId: ({ headers }) => headers.get('x-user') ?? undefined,
      tenantId: ({ headers }) => headers.get('x-tenant') ?? undefined,
    }),
  );
  close = server.close;
  return server.url;
}

const texts = (message: UIMessage) => message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
/** What the store keeps of a message: everything but tool progress (not stored) and the client's own approval record of a call that ran. */
const kept = (message: UIMessage) => ({
  ...message,
  parts: message.parts
    .filter((p) => p.type !== 'data-tool-progress')
    .map((p) => ('approval' in p && p.state === 'output-available' ? { ...p, approval: undefined } : p)),
});
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

async function getChat(url: string, id: string, headers: Record<string, string>) {
  const response = await fetch(`${url}?id=${encodeURIComponent(id)}`, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('a reloaded useChat page restores the chat (GET ?id=) and goes on from it', () => {
  it('paused on an approval: the restored page shows the same message, approves, the refund runs once and the reply continues', async () => {
    const url = await start();
    const alice = { 'x-user': 'alice' };
    const live = new TestChat(url, { id: 'chat-r-1', headers: alice });
    await live.sendMessage({ text: 'Please refund A-1' });
    expect(live.error).toBeUndefined();
    const paused = live.reply;
    expect(paused.metadata).toMatchObject({ status: 'paused', sessionId: 'chat-r-1' });

    // "Reload": a new page, its messages from the endpoint.
    const page = await restoreChat(url, { id: 'chat-r-1', headers: alice });
    expect(page.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(texts(page.messages[0])).toEqual(['Please refund A-1']);
    const restored = page.reply;
    // The id and metadata the live stream gave, and every part it showed but progress.
    expect(restored.id).toBe(paused.id);
    expect(restored.metadata).toEqual(paused.metadata);
    expect(restored).toEqual(json(kept(paused)));
    expect(restored.parts.filter((p) => p.type === 'tool-lookup_order').map((p) => (p as { state: string }).state)).toEqual([
      'output-available',
      'output-error',
    ]);
    const [asked] = page.pendingApprovals;
    expect(asked).toMatchObject({ type: 'tool-process_refund', state: 'approval-requested', input: { order_id: 'A-1' } });
    expect(refunded).toEqual([]);

    await page.decideAll(true);
    expect(page.error).toBeUndefined();
    expect(refunded).toEqual(['A-1']);
    expect(page.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(page.reply.id).toBe(paused.id);
    expect(page.reply.parts.find((p) => p.type === 'tool-process_refund')).toMatchObject({
      state: 'output-available',
      output: { status: 'success', refund_id: 'R-A-1' },
    });
    expect(texts(page.reply)).toEqual(['Let me check.', `Refunded: ${JSON.stringify({ status: 'success', refund_id: 'R-A-1' })}`]);
    expect(page.reply.metadata).toMatchObject({ status: 'completed', turns: 3, runId: (paused.metadata as { runId: string }).runId });

    // Reloaded again after the answer, and after a second message: what each stream showed, ids and metadata included.
    await page.sendMessage({ text: 'How many?' });
    expect(texts(page.reply)).toEqual(['I see 8 messages.']);
    const again = await restoreChat(url, { id: 'chat-r-1', headers: alice });
    expect(again.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(again.messages[1]).toEqual(json(kept(page.messages[1])));
    expect(again.messages[3]).toEqual(json(kept(page.messages[3])));
    expect(texts(again.messages[2])).toEqual(['How many?']);
    expect(new Set(again.messages.map((m) => m.id)).size).toBe(4);
    // Restoring twice gives the same ids (a page's keys stay).
    expect((await restoreChat(url, { id: 'chat-r-1', headers: alice })).messages).toEqual(again.messages);
    expect(refunded).toEqual(['A-1']);
  });

  it('a denial from the restored page: output-denied with the reason, nothing runs', async () => {
    const url = await start();
    const bob = { 'x-user': 'bob' };
    await new TestChat(url, { id: 'chat-r-2', headers: bob }).sendMessage({ text: 'refund B-2' });
    const page = await restoreChat(url, { id: 'chat-r-2', headers: bob });
    await page.decideAll(false, 'Over the limit');
    expect(refunded).toEqual([]);
    const denied = { type: 'tool-process_refund', state: 'output-denied', approval: { approved: false, reason: 'Over the limit' } };
    expect(page.reply.parts.find((p) => p.type === 'tool-process_refund')).toMatchObject(denied);
    const again = await restoreChat(url, { id: 'chat-r-2', headers: bob });
    expect(again.reply.parts.find((p) => p.type === 'tool-process_refund')).toMatchObject(denied);
    expect(again.reply).toEqual(json(kept(page.reply)));
  });

  it('a message sent while the approval waits: 409 RUN_PAUSED in words for the person, nothing runs, the approval still works after a reload', async () => {
    const url = await start();
    const carol = { 'x-user': 'carol' };
    const live = new TestChat(url, { id: 'chat-r-3', headers: carol });
    await live.sendMessage({ text: 'refund C-3' });
    await live.sendMessage({ text: 'Hello?' });
    expect(live.status).toBe('error');
    const { error } = JSON.parse(live.error!.message) as { error: { code: string; message: string } };
    expect(error).toEqual({ code: 'RUN_PAUSED', message: PAUSED_MESSAGE });
    expect(error.message).not.toMatch(/resume|agent|RUN_PAUSED/);

    const page = await restoreChat(url, { id: 'chat-r-3', headers: carol });
    expect(page.messages.map((m) => m.role)).toEqual(['user', 'assistant']); // "Hello?" was not run
    await page.decideAll(true);
    expect(refunded).toEqual(['C-3']);
    expect(texts(page.reply)).toEqual(['Let me check.', `Refunded: ${JSON.stringify({ status: 'success', refund_id: 'R-C-3' })}`]);
  });
});

describe('restoring is refused as sending is', () => {
  it("another user's (or an anonymous) GET of the chat gets what their POST gets: 403 SESSION_FORBIDDEN, no messages", async () => {
    const url = await start();
    await new TestChat(url, { id: 'chat-r-4', headers: { 'x-user': 'alice' } }).sendMessage({ text: 'refund D-4' });
    // Another tenant's chat of that id does not exist: empty, nothing of alice's.
    expect(await getChat(url, 'chat-r-4', { 'x-user': 'alice', 'x-tenant': 'other' })).toMatchObject({
      status: 200,
      body: { id: 'chat-r-4', messages: [] },
    });
    for (const headers of [{ 'x-user': 'mallory' }, {} as Record<string, string>]) {
      const post = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: 'chat-r-4', messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
      });
      const get = await getChat(url, 'chat-r-4', headers);
      expect(get.status).toBe(post.status);
      expect(get.body).toEqual(await post.json());
      expect(get.body).toMatchObject({ error: { code: 'SESSION_FORBIDDEN' } });
    }
    // Nothing of alice's chat ran or changed.
    expect(refunded).toEqual([]);
    const page = await restoreChat(url, { id: 'chat-r-4', headers: { 'x-user': 'alice' } });
    expect(page.pendingApprovals).toHaveLength(1);
  });

  it('a chat that does not exist restores empty; no id is 400; a store that is down is 503 STORE_UNAVAILABLE with Retry-After and no backend text', async () => {
    const store = new FlakyStore();
    const url = await start(store);
    expect(await getChat(url, 'never-used', { 'x-user': 'alice' })).toMatchObject({
      status: 200,
      body: { id: 'never-used', messages: [] },
    });
    const missing = await fetch(url, { headers: { 'x-user': 'alice' } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('?id=');

    store.down = true;
    const down = await getChat(url, 'never-used', { 'x-user': 'alice' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.body).toMatchObject({ error: { code: 'STORE_UNAVAILABLE' } });
    expect(JSON.stringify(down.body)).not.toMatch(/ECONNREFUSED|6379/);
    store.down = false;
    expect((await getChat(url, 'never-used', { 'x-user': 'alice' })).status).toBe(200);
  });
});
