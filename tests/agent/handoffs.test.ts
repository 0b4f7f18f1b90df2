/**
 * Handoffs: `handoffs: [billing]` gives the desk's model a `transfer_to_billing` tool; calling it
 * moves the conversation (same session, same history) to billing, whose instructions and tools
 * take over; the session records the holder, so a next run (from a new Agent instance, over a new
 * store connection) starts with billing; billing hands back. On a real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IsString, MinLength } from 'class-validator';
import { Agent, Param, type AgentEvent, ScriptedModel, SqliteStore, Tool, type Message, type ToolInterface } from '../../src';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

const ran: string[] = [];
@Tool({ name: 'invoice', description: 'Look up an invoice', input: OrderInput })
class InvoiceTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    ran.push(`invoice ${order_id}`);
    return { order_id, total_cents: 4200 };
  }
}

@Tool({ name: 'track', description: 'Track a parcel', input: OrderInput })
class TrackTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    ran.push(`track ${order_id}`);
    return { order_id, status: 'in transit' };
  }
}

@Tool({ name: 'refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    ran.push(`refund ${order_id}`);
    return { refunded: order_id };
  }
}

let dir: string;
const stores: SqliteStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'handoffs-'));
  ran.length = 0;
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

type Script = ConstructorParameters<typeof ScriptedModel>[0];
/** One "process": a desk (tracking) and billing (invoices) that hand to each other, on their own store connection. */
function agents(deskScript: Script, billingScript: Script) {
  const store = new SqliteStore({ path: path.join(dir, 'state.db') });
  stores.push(store);
  const deskModel = new ScriptedModel(deskScript);
  const billingModel = new ScriptedModel(billingScript);
  const billing: Agent = new Agent({
    name: 'billing',
    description: 'Invoices and refunds',
    instructions: 'You are billing.',
    model: billingModel,
    tools: [InvoiceTool, RefundTool],
    store,
    handoffs: () => [desk],
  });
  const desk: Agent = new Agent({
    name: 'desk',
    description: 'Front desk',
    instructions: 'You are the desk.',
    model: deskModel,
    tools: [TrackTool],
    store,
    handoffs: [billing],
  });
  return { desk, billing, deskModel, billingModel, store };
}

const roles = (history: readonly Message[]) => history.map((m) => (m.role === 'tool' ? `tool:${m.name}` : m.role));

describe('handoffs', () => {
  it('hands the conversation to billing and back; the holder is saved and the next run starts with it', async () => {
    const session = { sessionId: 'chat-h1', userId: 'alice' };
    const first = agents(
      [{ text: 'Billing can help.', toolCalls: [{ id: 'h1', name: 'transfer_to_billing', arguments: {} }] }],
      [{ toolCalls: [{ id: 'i1', name: 'invoice', arguments: { order_id: 'A-1' } }] }, { text: 'Your invoice is 42.00.' }],
    );

    const result = await first.desk.run('What is my invoice for A-1?', session);

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Your invoice is 42.00.');
    expect(result.handoffs).toEqual(['billing']);
    expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['transfer_to_billing', 'ok'],
      ['invoice', 'ok'],
    ]);
    // The desk's model was offered the transfer; billing's model got the history, its own instructions and tools.
    expect(first.deskModel.requests[0].tools.map((t) => t.name)).toEqual(['track', 'transfer_to_billing']);
    expect(first.deskModel.requests[0].tools[1].description).toContain('Invoices and refunds');
    expect(first.billingModel.requests[0].instructions).toBe('You are billing.');
    expect(first.billingModel.requests[0].tools.map((t) => t.name)).toEqual(['invoice', 'refund', 'transfer_to_desk']);
    expect(roles(first.billingModel.requests[0].messages)).toEqual(['user', 'assistant', 'tool:transfer_to_billing']);
    expect(ran).toEqual(['invoice A-1']);

    const saved = (await first.store.loadSession({ sessionId: 'chat-h1' }))!;
    expect(saved.state['toolwright:holder']).toBe('billing');
    expect(roles(saved.history)).toEqual(['user', 'assistant', 'tool:transfer_to_billing', 'assistant', 'tool:invoice', 'assistant']);

    // Another process: a new desk instance; the next message goes to billing, which hands back to the desk.
    const second = agents(
      [(request) => ({ text: `Desk here; I see ${request.messages.length} messages.` })],
      [{ toolCalls: [{ id: 'h2', name: 'transfer_to_desk', arguments: {} }] }],
    );
    const next = await second.desk.run('Where is my parcel?', session);

    expect(second.billingModel.requests).toHaveLength(1);
    expect(roles(second.billingModel.requests[0].messages).at(-1)).toBe('user');
    expect(next.handoffs).toEqual(['desk']);
    expect(next.output).toBe('Desk here; I see 9 messages.');
    expect(second.deskModel.requests[0].instructions).toBe('You are the desk.');
    expect((await second.store.loadSession({ sessionId: 'chat-h1' }))!.state['toolwright:holder']).toBe('desk');

    // Held by the desk again: the next run is the desk's alone.
    const third = agents([{ text: 'Desk again.' }], []);
    expect((await third.desk.run('Thanks', session)).output).toBe('Desk again.');
    expect(third.billingModel.requests).toHaveLength(0);
  });

  it('a transfer in a response with other calls: they are not run, and the receiving agent sees why', async () => {
    const session = { sessionId: 'chat-h2' };
    const { desk, billingModel } = agents(
      [
        {
          toolCalls: [
            { id: 't1', name: 'track', arguments: { order_id: 'A-1' } },
            { id: 'h1', name: 'transfer_to_billing', arguments: {} },
          ],
        },
      ],
      [{ text: 'Billing here.' }],
    );

    const result = await desk.run('Track A-1 and bill me', session);

    expect(result.output).toBe('Billing here.');
    expect(ran).toEqual([]);
    const seen = billingModel.requests[0].messages.filter((m) => m.role === 'tool');
    expect(seen.map((m) => [m.name, m.role === 'tool' && m.isError === true])).toEqual([
      ['track', true],
      ['transfer_to_billing', false],
    ]);
  });

  it('a handed-off run that pauses: the desk lists the holder’s approval, and approving it resumes the holder, once', async () => {
    const session = { sessionId: 'chat-h3', userId: 'alice' };
    const first = agents(
      [{ toolCalls: [{ id: 'h1', name: 'transfer_to_billing', arguments: {} }] }],
      [{ toolCalls: [{ id: 'r1', name: 'refund', arguments: { order_id: 'A-1' } }] }],
    );
    const paused = await first.desk.run('Refund A-1', session);
    expect(paused.status).toBe('paused');
    expect(paused.approvals.map((a) => a.toolCallId)).toEqual(['r1']);

    const second = agents([], [{ text: 'Refunded A-1.' }]);
    expect((await second.desk.pendingApprovals(session)).map((a) => a.name)).toEqual(['refund']);
    const done = await second.desk.approve(session, 'r1');

    expect(done.status).toBe('completed');
    expect(done.output).toBe('Refunded A-1.');
    expect(ran).toEqual(['refund A-1']);
    expect(second.deskModel.requests).toHaveLength(0);
  });
  it('a streamed turn follows the transfer: billing’s events after it, one run-end with the joined result, and the next stream starts with billing', async () => {
    const session = { sessionId: 'chat-s1', userId: 'alice' };
    const { desk, deskModel, billingModel } = agents(
      [{ text: 'Let me get billing.', toolCalls: [{ id: 'h1', name: 'transfer_to_billing', arguments: {} }] }],
      [
        { toolCalls: [{ id: 'i1', name: 'invoice', arguments: { order_id: 'A-1' } }] },
        { text: 'Invoice A-1 totals 42.00.' },
        { text: 'Still billing here.' },
      ],
    );
    const events: AgentEvent[] = [];
    for await (const event of desk.stream('What is on invoice A-1?', session)) events.push(event);

    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'run-start')).toHaveLength(1);
    expect(types.filter((t) => t === 'run-end')).toHaveLength(1);
    expect(types[0]).toBe('run-start');
    expect(types.at(-1)).toBe('run-end');
    const tools = events.flatMap((e) =>
      e.type === 'tool-call' ? [`call:${e.name}`] : e.type === 'tool-result' ? [`result:${e.record.name}`] : [],
    );
    expect(tools).toEqual(['call:transfer_to_billing', 'result:transfer_to_billing', 'call:invoice', 'result:invoice']);
    const transferred = events.findIndex((e) => e.type === 'tool-result' && e.record.name === 'transfer_to_billing');
    const deltas = (from: number, to: number) => events.slice(from, to).flatMap((e) => (e.type === 'text-delta' ? [e.delta] : []));
    expect(deltas(0, transferred).join('')).toBe('Let me get billing.');
    expect(deltas(transferred, events.length).join('')).toBe('Invoice A-1 totals 42.00.');
    const end = events.at(-1)!;
    if (end.type !== 'run-end') throw new Error('no run-end');
    expect(end.result.handoffs).toEqual(['billing']);
    expect(end.result.output).toBe('Invoice A-1 totals 42.00.');
    expect(end.result.toolCalls.map((c) => c.name)).toEqual(['transfer_to_billing', 'invoice']);
    expect(ran).toEqual(['invoice A-1']);
    expect(billingModel.requests[0].instructions).toBe('You are billing.');

    const next: AgentEvent[] = [];
    for await (const event of desk.stream('Thanks', session)) next.push(event);
    const last = next.at(-1)!;
    expect(last.type === 'run-end' && last.result.output).toBe('Still billing here.');
    expect(deskModel.requests).toHaveLength(1);
    expect(billingModel.requests).toHaveLength(3);
  });

  it('streamResume of a pause held by the receiving agent resumes the holder, as one stream', async () => {
    const session = { sessionId: 'chat-s2', userId: 'alice' };
    const first = agents(
      [{ toolCalls: [{ id: 'h1', name: 'transfer_to_billing', arguments: {} }] }],
      [{ toolCalls: [{ id: 'r1', name: 'refund', arguments: { order_id: 'A-1' } }] }],
    );
    const paused: AgentEvent[] = [];
    for await (const event of first.desk.stream('Refund A-1', session)) paused.push(event);
    expect(paused.filter((e) => e.type === 'approval-required')).toHaveLength(1);
    const pausedEnd = paused.at(-1)!;
    expect(pausedEnd.type === 'run-end' && pausedEnd.result.status).toBe('paused');
    expect(ran).toEqual([]);

    const second = agents([], [{ text: 'Refunded A-1.' }]);
    const events: AgentEvent[] = [];
    for await (const event of second.desk.streamResume(session, { r1: { approve: true } })) events.push(event);
    expect(events.filter((e) => e.type === 'run-start' || e.type === 'run-end').map((e) => e.type)).toEqual(['run-start', 'run-end']);
    const end = events.at(-1)!;
    if (end.type !== 'run-end') throw new Error('no run-end');
    expect(end.result.status).toBe('completed');
    expect(end.result.output).toBe('Refunded A-1.');
    expect(events.flatMap((e) => (e.type === 'tool-result' ? [e.record.name] : []))).toEqual(['refund']);
    expect(ran).toEqual(['refund A-1']);
    expect(second.deskModel.requests).toHaveLength(0);
  });
  it('leaving a streamed turn after the transfer cancels the receiving agent’s run and waits for it; the session stays usable', async () => {
    const session = { sessionId: 'chat-s3', userId: 'alice' };
    const { desk, billingModel } = agents(
      [{ toolCalls: [{ id: 'h1', name: 'transfer_to_billing', arguments: {} }] }],
      [{ text: 'Looking it up now.', toolCalls: [{ id: 'i1', name: 'invoice', arguments: { order_id: 'A-1' } }] }, { text: 'Back again.' }],
    );
    const seen: string[] = [];
    for await (const event of desk.stream('Invoice A-1?', session)) {
      seen.push(event.type);
      if (event.type === 'text-delta') break;
    }
    expect(seen.filter((t) => t === 'run-end')).toHaveLength(0);
    expect(ran).toEqual([]);
    const next = await desk.run('Hello?', session);
    expect(next.output).toBe('Back again.');
    expect(billingModel.requests).toHaveLength(2);
  });
});
