/**
 * The chat sample end to end: the support desk behind POST /api/chat on a real server, driven by
 * the AI SDK's own chat client (what `useChat` runs in the browser).
 */
import type { Server } from 'node:http';
import { InMemoryStore } from 'toolwright';
import { supportDeskModel } from '../support-desk/script';
import { seedShop, type Shop } from '../support-desk/shop';
import { ChatClient } from './chat-client';
import { createChatDeskServer, listen } from './server';
import { printReply, replyLines } from './transcript';

let server: Server;
let url: string;
let shop: Shop;

beforeEach(async () => {
  shop = seedShop();
  server = createChatDeskServer({ model: supportDeskModel(), store: new InMemoryStore(), shop });
  url = await listen(server);
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const alice = (id: string) => new ChatClient(url, { id, headers: { authorization: 'Bearer alice-token' } });

async function askRefund(chat: ChatClient, dollars: number): Promise<void> {
  await chat.sendMessage({ text: 'Where is my order A-100?' });
  await chat.sendMessage({ text: `The mug in it arrived broken. Please refund ${dollars} dollars for that order.` });
  expect(chat.error).toBeUndefined();
}

describe('chat-desk sample (useChat → toolwright Agent)', () => {
  it('a refund over 50.00 waits for the customer to approve it in the chat, then runs once', async () => {
    const chat = alice('chat-approve');
    await askRefund(chat, 55);
    expect(chat.pendingApprovals).toEqual([
      expect.objectContaining({ type: 'tool-process_refund', input: { amount_cents: 5500, reason: 'Mug arrived broken' } }),
    ]);
    expect(chat.reply.metadata).toMatchObject({ status: 'paused' });
    expect(shop.refunds.refundsFor('A-100')).toEqual([]);

    await chat.decideAll(true);
    expect(chat.error).toBeUndefined();
    expect(chat.pendingApprovals).toEqual([]);
    expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 5500, requestedBy: 'alice' })]);
    expect(replyLines(chat.reply)).toContain('desk  › Done: refund RF-1 of 55.00 USD for order A-100 is approved.');
    expect(chat.reply.metadata).toMatchObject({ status: 'completed' });
  });

  it('denied: nothing is refunded and the desk says so', async () => {
    const chat = alice('chat-deny');
    await askRefund(chat, 55);
    await chat.decideAll(false, 'I changed my mind');
    expect(shop.refunds.refundsFor('A-100')).toEqual([]);
    const lines = replyLines(chat.reply);
    expect(lines).toContain('⚙ process_refund({"amount_cents":5500,"reason":"Mug arrived broken"}): denied');
    expect(lines[lines.length - 1]).toMatch(/^desk {2}› Sorry, the refund did not go through/);
  });

  it('a refund under the limit runs without asking', async () => {
    const chat = alice('chat-small');
    await askRefund(chat, 20);
    expect(chat.pendingApprovals).toEqual([]);
    expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 2000 })]);
  });

  it('the user comes from the token: none is 401, another customer on the chat id is 403, and the chat is left as it was', async () => {
    const chat = alice('chat-owned');
    await chat.sendMessage({ text: 'Where is my order A-100?' });

    const anonymous = new ChatClient(url, { id: 'chat-owned' });
    await anonymous.sendMessage({ text: 'Where is my order A-100?' });
    expect(anonymous.status).toBe('error');
    expect(JSON.parse(anonymous.error!.message)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });

    const bob = new ChatClient(url, { id: 'chat-owned', headers: { authorization: 'Bearer bob-token' } });
    await bob.sendMessage({ text: 'Where is my order A-100?' });
    expect(JSON.parse(bob.error!.message)).toMatchObject({ error: { code: 'SESSION_FORBIDDEN' } });

    await chat.sendMessage({ text: 'And what about order A-200?' });
    expect(replyLines(chat.reply)).toContain('desk  › I am sorry, I cannot share anything about that order: it is not on your account.');
  });

  it('prints a continued reply without repeating what was printed', async () => {
    const chat = alice('chat-print');
    await askRefund(chat, 55);
    const lines: string[] = [];
    printReply(chat, (line) => lines.push(line));
    await chat.decideAll(true);
    printReply(chat, (line) => lines.push(line));
    expect(lines.filter((line) => line.includes('INVALID_ARGUMENTS'))).toHaveLength(1);
    expect(lines.slice(-2)).toEqual([
      expect.stringMatching(/^⚙ process_refund\(\{"amount_cents":5500,.*\}\) → \{"status":"success"/),
      'desk  › Done: refund RF-1 of 55.00 USD for order A-100 is approved.',
    ]);
  });
});
