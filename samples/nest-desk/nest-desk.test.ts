/**
 * The Nest sample end to end (what `npm run sample:nest` prints): the app on Express, alice through
 * the AI SDK's chat client, bob through the official MCP client, each as the guard made them.
 * NestJS 12 is ESM-only: jest runs this on Node >= 24.9 with --experimental-vm-modules (.ci/run).
 */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InMemoryStore } from 'toolwright';
import { supportDeskModel } from '../support-desk/script';
import { RefundService } from '../tools';
import { nestDeskModule } from './app.module';
import { aliceChats, bobUsesMcp } from './walkthrough';

let app: INestApplication;
let base: string;
let store: InMemoryStore;

beforeEach(async () => {
  store = new InMemoryStore();
  app = await NestFactory.create(nestDeskModule({ model: supportDeskModel(), store }), { logger: false });
  await app.listen(0, '127.0.0.1');
  base = await app.getUrl();
});

afterEach(async () => {
  await app.close();
});

describe('nest-desk sample', () => {
  it('alice: the chat looks her order up, asks her to approve the refund over 50.00, and it runs once, for her', async () => {
    const lines: string[] = [];
    const chat = await aliceChats(`${base}/api/chat`, (line) => lines.push(line));
    expect(lines).toContain('desk  › Order A-100: 59.90 USD, shipped.');
    expect(lines).toContain('⚙ process_refund({"amount_cents":5500,"reason":"Mug arrived broken"}): waiting for your approval');
    expect(lines).toContain('desk  › Done: refund RF-1 of 55.00 USD for order A-100 is approved.');
    expect(chat.reply.metadata).toMatchObject({ status: 'completed' });
    expect(app.get(RefundService).refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 5500, requestedBy: 'alice' })]);
  });

  it("bob over MCP: his own order, not alice's, and no refund tool (authorize sees the guard's user)", async () => {
    const walk = await bobUsesMcp(`${base}/mcp`, () => undefined);
    expect(walk.tools.sort()).toEqual(['lookup_order', 'order_lookup', 'remember_preference', 'user_orders']);
    expect(walk.results.order_lookup).toMatchObject({ status: 'success', order: { id: 'A-200' } });
    expect(walk.results.lookup_order).toEqual({ status: 'blocked', reason: 'access_denied' });
    expect(walk.results.process_refund).toMatchObject({ isError: true, text: expect.stringContaining('TOOL_NOT_FOUND') });
    expect(app.get(RefundService).refundsFor('A-200')).toEqual([]);
  });

  it('no token: both endpoints answer 401 before any tool runs', async () => {
    for (const path of ['/api/chat', '/mcp']) {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
    }
  });

  it('closing the app closes the store it was given', async () => {
    const close = jest.spyOn(store, 'close');
    await app.close();
    expect(close).toHaveBeenCalledTimes(1);
    app = await NestFactory.create(nestDeskModule({ model: supportDeskModel(), store: new InMemoryStore() }), { logger: false });
  });
});
