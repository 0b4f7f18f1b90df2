/**
 * The AI SDK's own chat client without React: `AbstractChat` (what `useChat` wraps) over
 * `DefaultChatTransport`, with its state in a plain array. What a `useChat` front end does, request
 * for request, against a toolwright chat endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatHandler } from '../../src/ai-sdk-ui';

/** The sample's chat client (samples/chat-desk/chat-client.ts): one copy of what `useChat` does. */
export { ChatClient as TestChat, restoreChat } from '../../samples/chat-desk/chat-client';

/** A real node:http server around a handler's node door. */
export async function listen(handler: ChatHandler): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => void handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/chat`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
