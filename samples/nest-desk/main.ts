/**
 * npm run sample:nest — the support desk as a NestJS app (Express): the sample tools as Nest
 * providers, the desk an injectable Agent, POST /api/chat (useChat) and POST /mcp as controllers
 * behind the app's guard. Alice chats with the AI SDK's chat client and approves a refund; bob,
 * over MCP with the official SDK client, may look orders up but is not offered refunds.
 * `npm run sample:nest -- --serve` keeps the app up (PORT, default 3000).
 */
import '../support-desk/toolwright-alias';
import 'reflect-metadata';
import * as path from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { selectModel } from '../support-desk/model';
import { RefundService } from '../tools';
import { nestDeskModule } from './app.module';
import { aliceChats, bobUsesMcp } from './walkthrough';

async function main(): Promise<void> {
  const model = selectModel();
  const file = path.join(process.env.TOOLWRIGHT_STATE_DIR ?? './.toolwright', 'nest-desk.db');
  const app: INestApplication = await NestFactory.create(nestDeskModule({ model, store: { sqlite: { path: file } } }), {
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  if (process.argv.includes('--serve')) {
    await app.listen(Number(process.env.PORT ?? 3000));
    const url = (await app.getUrl()).replace('[::1]', 'localhost');
    console.log(`nest desk: POST ${url}/api/chat and POST ${url}/mcp (Authorization: Bearer alice-token)`);
    return;
  }
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  console.log(`nest desk · model ${model.name} · store ${file} · ${base}/api/chat and ${base}/mcp\n`);
  try {
    await aliceChats(`${base}/api/chat`, (line) => console.log(line));
    console.log('');
    await bobUsesMcp(`${base}/mcp`, (line) => console.log(line));
    const refunds = app.get(RefundService).refundsFor('A-100');
    console.log(`\nrefunds of A-100: ${refunds.map((r) => `${r.id} ${r.amountCents} cents by ${r.requestedBy}`).join('; ') || '(none)'}`);
  } finally {
    await app.close(); // closes the store too
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
