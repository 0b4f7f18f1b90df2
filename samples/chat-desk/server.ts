import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Model, SessionStore } from 'toolwright';
import { ChatRequestError, createChatHandler, type ChatRequestInfo } from 'toolwright/ai-sdk-ui';
import { RefundProcessorTool } from '../tools';
import { createSupportDesk, DESK_TOOLS } from '../support-desk/desk';
import type { Shop } from '../support-desk/shop';
import { ConfirmedRefundTool } from './refund-confirmation.tool';

/** Who a bearer token is. A real app verifies a session cookie or a JWT here. */
export interface Customer {
  userId: string;
  tenantId: string;
}

export const DEMO_TOKENS: Readonly<Record<string, Customer>> = {
  'alice-token': { userId: 'alice', tenantId: 'acme' },
  'bob-token': { userId: 'bob', tenantId: 'acme' },
};

export interface ChatDeskOptions {
  model: Model;
  store: SessionStore;
  shop: Shop;
  tokens?: Readonly<Record<string, Customer>>;
}

/**
 * The support desk behind a `useChat` front end: `POST /api/chat` serves each run as the AI SDK's
 * UI message stream. The user and tenant come from the request's token, never from the body, and
 * a chat (a session) stays its first user's: another user's token on its id is answered 403.
 */
export function createChatDeskServer(options: ChatDeskOptions): Server {
  const tokens = options.tokens ?? DEMO_TOKENS;
  const customer = ({ headers }: ChatRequestInfo): Customer => {
    const token = /^Bearer (.+)$/.exec(headers.get('authorization') ?? '')?.[1];
    const found = token === undefined ? undefined : tokens[token];
    if (!found) throw new ChatRequestError(401, 'Sign in first (Authorization: Bearer <token>).');
    return found;
  };
  const desk = createSupportDesk({
    model: options.model,
    store: options.store,
    shop: options.shop,
    tools: [...DESK_TOOLS.filter((tool) => tool !== RefundProcessorTool), ConfirmedRefundTool],
  });
  const chat = createChatHandler(desk, {
    userId: (info) => customer(info).userId,
    tenantId: (info) => customer(info).tenantId,
  });
  return createServer((req, res) => {
    if (req.url === '/api/chat') return void chat.node(req, res);
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'POST /api/chat' } }));
  });
}

/** Listens on 127.0.0.1 (port 0: any free one) and gives the chat endpoint's URL. */
export async function listen(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
}
