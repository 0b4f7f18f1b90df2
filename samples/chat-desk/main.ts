/**
 * npm run sample:chat — the support desk behind a `useChat` endpoint (POST /api/chat, the AI SDK's
 * UI message stream), talked to by the AI SDK's own chat client: alice asks about an order, asks
 * for a refund over 50.00, confirms it when the chat asks, and the refund runs.
 * `npm run sample:chat -- --serve` keeps the endpoint up (PORT, default 3000) for your front end.
 */
import '../support-desk/toolwright-alias';
import 'reflect-metadata';
import { InMemoryStore } from 'toolwright';
import { selectModel } from '../support-desk/model';
import { seedShop } from '../support-desk/shop';
import { ChatClient } from './chat-client';
import { createChatDeskServer, listen } from './server';
import { printReply } from './transcript';

async function main(): Promise<void> {
  const server = createChatDeskServer({ model: selectModel(), store: new InMemoryStore(), shop: seedShop() });
  if (process.argv.includes('--serve')) {
    const url = await listen(server, Number(process.env.PORT ?? 3000));
    console.log(`chat endpoint: POST ${url} (Authorization: Bearer alice-token)`);
    return;
  }
  const url = await listen(server);
  try {
    const chat = new ChatClient(url, { id: `chat-${process.pid}`, headers: { authorization: 'Bearer alice-token' } });
    for (const text of ['Where is my order A-100?', 'The mug in it arrived broken. Please refund 55 dollars for that order.']) {
      console.log(`alice › ${text}`);
      await chat.sendMessage({ text });
      printReply(chat, (line) => console.log(line));
      if (chat.pendingApprovals.length > 0) {
        console.log('alice › [Approve]');
        await chat.decideAll(true);
        printReply(chat, (line) => console.log(line));
      }
      if (chat.error) throw chat.error;
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
