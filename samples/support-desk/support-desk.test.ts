import { InMemoryStore, ScriptedModel, type SessionStore } from 'toolwright';
import { SqliteStore } from 'toolwright/stores';
import { formatExchange, runConversation, streamConversation, type Exchange } from './conversation';
import { AGENT_NAME, createSupportDesk, createTicketDesk } from './desk';
import { selectBillingModel, selectModel } from './model';
import { CONVERSATION, supportDeskModel } from './script';
import { CUSTOMER, seedShop } from './shop';
import { TicketSummary } from './ticket';

function demo(store: SessionStore = new InMemoryStore()) {
  const model = supportDeskModel();
  const shop = seedShop();
  return { model, shop, store, desk: createSupportDesk({ model, store, shop }) };
}

const exchange = (exchanges: Exchange[], text: RegExp) => exchanges.find((e) => text.test(e.user))!;

describe('support-desk demo, end to end', () => {
  it('looks an order up, refunds it through last_order_id after a corrected argument, refuses a stranger’s order', async () => {
    const { desk, shop, store, model } = demo();
    const exchanges = await runConversation(desk, 'desk-1', CONVERSATION);
    expect(exchanges.every((e) => e.result.status === 'completed')).toBe(true);

    const lookup = exchange(exchanges, /where is my order/i);
    expect(lookup.result.toolCalls).toEqual([expect.objectContaining({ name: 'order_lookup', status: 'ok' })]);
    expect(lookup.result.output).toBe('Order A-100: 59.90 USD, shipped.');

    const refund = exchange(exchanges, /refund/i).result;
    expect(refund.toolCalls.map((c) => [c.name, c.status, c.code])).toEqual([
      ['process_refund', 'error', 'INVALID_ARGUMENTS'],
      ['process_refund', 'ok', undefined],
    ]);
    // No order_id in the corrected call: the tool used the session's last_order_id.
    expect(JSON.parse(refund.toolCalls[1].arguments)).toEqual({ amount_cents: 2000, reason: 'Mug arrived broken' });
    expect(JSON.parse(refund.toolCalls[1].result)).toMatchObject({ status: 'success', order_id: 'A-100', amount_cents: 2000 });
    expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 2000, requestedBy: 'alice' })]);

    const other = exchange(exchanges, /A-200/).result;
    expect(JSON.parse(other.toolCalls[0].result)).toEqual({ status: 'blocked', reason: 'access_denied' });
    expect(other.output).toMatch(/not on your account/);
    expect(JSON.stringify(model.requests)).not.toContain('"userId":"bob"');

    const session = await store.loadSession({ sessionId: 'desk-1', tenantId: CUSTOMER.tenantId });
    expect(session!.state).toMatchObject({ last_order_id: 'A-100', user_id: 'alice' });
    // Every turn's tool results stay in the history the model sees next.
    const lastRequest = model.requests[model.requests.length - 1];
    expect(lastRequest.messages.filter((m) => m.role === 'tool').map((m) => (m as { name: string }).name)).toEqual([
      'order_lookup',
      'process_refund',
      'process_refund',
      'lookup_order',
      'remember_preference',
    ]);
    // The catalog offered the support tools only.
    expect(lastRequest.tools.map((t) => t.name)).not.toContain('file_processor');
  });

  it('remembers the customer across two runs of the demo on one SQLite database', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    try {
      const first = await runConversation(demo(store).desk, 'desk-run-1', CONVERSATION);
      expect(first[0].result.output).toBe('Hello Alice, nice to meet you! How can I help?');

      // A second run: new model, new shop, new agent, new session; only the store is shared.
      const second = await runConversation(demo(store).desk, 'desk-run-2', CONVERSATION);
      expect(second[0].result.output).toBe('Welcome back, Alice! I remember: prefers updates by email.');
      expect(JSON.parse(second[4].result.toolCalls[0].result).status).toBe('already_known');

      const memory = await store.loadMemory({ agentName: AGENT_NAME, ...CUSTOMER });
      expect(memory!.entries.map((e) => e.content)).toEqual(['Prefers updates by email']);
      // Another customer of the desk starts with an empty memory.
      expect(await store.loadMemory({ agentName: AGENT_NAME, userId: 'bob', tenantId: CUSTOMER.tenantId })).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('prints each tool call and its result readably', async () => {
    const { desk } = demo();
    const lines: string[] = [];
    await runConversation(desk, 'desk-print', CONVERSATION, (e) => lines.push(formatExchange(e)));
    const text = lines.join('\n');
    expect(text).toContain('alice › Where is my order A-100?');
    expect(text).toMatch(
      /⚙ process_refund\(\{"amount_cents":"20 dollars".*\n\s+✗ INVALID_ARGUMENTS: amount_cents must be an integer number/,
    );
    expect(text).toContain('desk  › Done: refund RF-1 of 20.00 USD for order A-100 is approved.');
  });

  it('streams the text desk: the text as it arrives, the same runs as runConversation', async () => {
    const chunks: string[] = [];
    const streamed = await streamConversation(demo().desk, 'desk-stream', CONVERSATION, (text) => chunks.push(text));
    const ran = await runConversation(demo().desk, 'desk-stream', CONVERSATION);
    const text = chunks.join('');
    expect(
      streamed.map((e) => [e.user, e.result.status, e.result.output, e.result.toolCalls.map((c) => [c.name, c.status, c.result])]),
    ).toEqual(ran.map((e) => [e.user, e.result.status, e.result.output, e.result.toolCalls.map((c) => [c.name, c.status, c.result])]));
    for (const e of ran) expect(text).toContain(`desk  › ${e.result.output}\n`);
    expect(text).toMatch(/⚙ process_refund\(\{"amount_cents":"20 dollars".*\n\s+✗ INVALID_ARGUMENTS/);
  });

  it('uses the embedded script unless the environment names a real model', () => {
    expect((selectModel({}) as ScriptedModel).name).toBe('scripted-support-desk');
    expect(selectModel({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3' }).name).toBe('openai:llama3');
    expect(selectModel({ ANTHROPIC_API_KEY: 'k' }).name).toBe('anthropic:claude-sonnet-4-6');
  });
});

describe('support-desk ticket desk (npm run demo): typed summaries and a billing sub-agent', () => {
  async function ticketDemo(store: SessionStore = new InMemoryStore()) {
    const model = supportDeskModel();
    const shop = seedShop();
    const billingModel = selectBillingModel(model) as ScriptedModel;
    const desk = await createTicketDesk({ model, billingModel, store, shop });
    return { model, billingModel, shop, store, ...desk };
  }

  it('answers every message with a TicketSummary; the refund goes through billing after a corrected amount', async () => {
    const { desk, close, shop, model, billingModel } = await ticketDemo();
    try {
      const exchanges = await runConversation(desk, 'ticket-1', CONVERSATION);

      expect(exchanges.every((e) => e.result.output instanceof TicketSummary)).toBe(true);
      expect(exchanges.map((e) => e.result.output)).toEqual([
        { reply: 'Hello Alice, nice to meet you! How can I help?', topic: 'greeting' },
        { reply: 'Order A-100: 59.90 USD, shipped.', topic: 'order_status', order_id: 'A-100' },
        {
          reply: 'Done: billing refunded 20.00 USD for order A-100 (refund RF-1).',
          topic: 'refund',
          order_id: 'A-100',
          refund_cents: 2000,
        },
        { reply: 'I am sorry, I cannot share anything about that order: it is not on your account.', topic: 'access_denied' },
        { reply: 'Noted: updates will go to you by email.', topic: 'preference' },
      ]);
      // The desk's model was offered billing, not process_refund; billing's model only process_refund.
      expect(model.requests[0].tools.map((t) => t.name)).toEqual(expect.arrayContaining(['billing', 'final_answer']));
      expect(model.requests[0].tools.map((t) => t.name)).not.toContain('process_refund');
      expect(billingModel.requests[0].tools.map((t) => t.name)).toEqual(['process_refund', 'final_answer']);

      const refund = exchanges[2].result;
      expect(refund.toolCalls.map((c) => [c.name, c.status, c.code])).toEqual([
        ['billing', 'error', 'INVALID_ARGUMENTS'],
        ['billing', 'ok', undefined],
      ]);
      // The sub-agent's answer is its validated RefundReceipt, which the desk's model read as the tool's result.
      expect(JSON.parse(refund.toolCalls[1].result)).toEqual({
        status: 'refunded',
        order_id: 'A-100',
        refund_id: 'RF-1',
        amount_cents: 2000,
        currency: 'USD',
        message: 'Refund approved',
      });
      // Billing ran once, as alice (the refund service saw her), in a session of its own under the desk's.
      expect(billingModel.requests).toHaveLength(2);
      expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 2000, requestedBy: 'alice' })]);
    } finally {
      await close();
    }
  });

  it('sends a summary that breaks the schema back to the desk model, which corrects it', async () => {
    const shop = seedShop();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'final_answer', arguments: { reply: '', topic: 'weather' } }] },
      { toolCalls: [{ name: 'final_answer', arguments: { reply: 'Hello!', topic: 'greeting' } }] },
    ]);
    const { desk, close } = await createTicketDesk({ model, store: new InMemoryStore(), shop });
    try {
      const result = await desk.run('Hi', { sessionId: 'ticket-2', ...CUSTOMER });
      expect(result.output).toEqual({ reply: 'Hello!', topic: 'greeting' });
      const correction = model.requests[1].messages.at(-1)!.content!;
      expect(correction).toContain('reply');
      expect(correction).toContain('topic');
    } finally {
      await close();
    }
  });

  it('streams the ticket desk (npm run demo): each reply as it arrives, then its ticket; the same runs as runConversation', async () => {
    const chunks: string[] = [];
    const streaming = await ticketDemo();
    const running = await ticketDemo();
    try {
      const streamed = await streamConversation(streaming.desk, 'ticket-stream', CONVERSATION, (text) => chunks.push(text));
      const ran = await runConversation(running.desk, 'ticket-stream', CONVERSATION);
      const text = chunks.join('');
      const shape = (e: Exchange<TicketSummary>) => [
        e.user,
        e.result.status,
        e.result.output,
        e.result.toolCalls.map((c) => [c.name, c.status]),
      ];
      expect(streamed.map(shape)).toEqual(ran.map(shape));
      for (const e of ran) expect(text).toContain(`desk  › ${e.result.output!.reply}\n      🎫 topic=${e.result.output!.topic}`);
      expect(text).toContain('🎫 topic=refund order=A-100 refund=20.00');
      expect(text).not.toContain('"reply"'); // the raw JSON is not shown
    } finally {
      await streaming.close();
      await running.close();
    }
  });

  it('gives billing its own script when the desk runs on the embedded one, and the real model otherwise', () => {
    expect((selectBillingModel(supportDeskModel()) as ScriptedModel).name).toBe('scripted-billing');
    const real = selectModel({ ANTHROPIC_API_KEY: 'k' });
    expect(selectBillingModel(real)).toBe(real);
  });
});
