/** GET ?id=<chat id>: the stored chat as UI messages, for a page that was reloaded. */
import type { Answer } from './chat-answer';
import type { Incoming } from './chat-incoming';
import type { ChatAgent, ChatHandlerOptions } from './chat-options';
import { requestInfo, resolveIdentity } from './chat-session';
import { toUIMessages, type RestoredUIMessage } from './ui-messages';

/** Served for the same user (and tenant) as the chat's POSTs; for an agent that has `loadConversation`. */
export async function restoreChat(agent: ChatAgent, options: ChatHandlerOptions, incoming: Incoming): Promise<Answer> {
  const chatId = new URL(incoming.url, 'http://chat.invalid').searchParams.get('id') ?? undefined;
  const info = requestInfo(incoming, 'GET', { id: chatId, messages: [] });
  const { userId, sessionId, tenantId } = await resolveIdentity(options, info);
  const conversation = await agent.loadConversation!({ sessionId, userId, tenantId });
  const messages: RestoredUIMessage[] = toUIMessages(conversation, sessionId);
  // Another user's chat answers as POST does (403 SESSION_FORBIDDEN); an unknown one is empty.
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, json: { id: sessionId, messages } };
}
