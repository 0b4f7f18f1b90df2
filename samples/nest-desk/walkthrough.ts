import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ChatClient } from '../chat-desk/chat-client';
import { printReply } from '../chat-desk/transcript';

/** What alice says in the chat: an order question, then a refund over 50.00 (which asks her to approve it). */
export const ALICE_SAYS: readonly string[] = [
  'Where is my order A-100?',
  'The mug in it arrived broken. Please refund 55 dollars for that order.',
];

/** Alice in the browser: `useChat` (the AI SDK's chat client) against the chat controller; she approves the refund. */
export async function aliceChats(url: string, write: (line: string) => void): Promise<ChatClient> {
  const chat = new ChatClient(url, { id: `nest-chat-${process.pid}-${Date.now()}`, headers: { authorization: 'Bearer alice-token' } });
  for (const text of ALICE_SAYS) {
    write(`alice › ${text}`);
    await chat.sendMessage({ text });
    printReply(chat, write);
    if (chat.pendingApprovals.length > 0) {
      write('alice › [Approve]');
      await chat.decideAll(true);
      printReply(chat, write);
    }
    if (chat.error) throw chat.error;
  }
  return chat;
}

export interface McpWalk {
  tools: string[];
  results: Record<string, unknown>;
}

/** Bob's MCP client (the official SDK's) against the MCP controller: what he is offered, two lookups, a refund he may not make. */
export async function bobUsesMcp(url: string, write: (line: string) => void): Promise<McpWalk> {
  const client = new Client({ name: 'nest-desk-sample', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer bob-token' } } }),
  );
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    write(`bob (MCP) › tools/list → ${tools.join(', ')}`);
    const results: Record<string, unknown> = {};
    for (const [name, args] of [
      ['order_lookup', { order_id: 'A-200' }],
      ['lookup_order', { orderId: 'A-100' }],
      ['process_refund', { order_id: 'A-200', reason: 'changed my mind' }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      results[name] = result.isError ? { isError: true, text } : JSON.parse(text);
      write(`bob (MCP) › ${name}(${JSON.stringify(args)}) → ${result.isError ? `error: ${text}` : text}`);
    }
    return { tools, results };
  } finally {
    await client.close();
  }
}
