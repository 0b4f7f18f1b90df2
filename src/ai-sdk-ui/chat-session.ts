/** Whose chat a request is: the user, session and tenant by the app's resolvers (the same for GET and POST). */
import type { Incoming } from './chat-incoming';
import type { ChatHandlerOptions } from './chat-options';
import { ChatRequestError, type ChatRequestBody, type ChatRequestInfo } from './chat-request';

export interface ChatIdentity {
  userId: string | undefined;
  sessionId: string;
  tenantId: string | undefined;
}

/** What the resolvers are shown of the request. */
export function requestInfo(incoming: Incoming, method: ChatRequestInfo['method'], body: ChatRequestBody): ChatRequestInfo {
  return { headers: incoming.headers, body, method, request: incoming.request, incoming: incoming.incoming };
}

export async function resolveIdentity(options: ChatHandlerOptions, info: ChatRequestInfo): Promise<ChatIdentity> {
  const userId = await options.userId(info);
  const sessionId = options.sessionId ? await options.sessionId(info) : info.body.id;
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new ChatRequestError(
      400,
      info.method === 'GET'
        ? 'Name the chat to restore: GET ?id=<chat id> (or pass a sessionId resolver).'
        : 'The body has no chat id ("id"): it names the session. useChat sends it; or pass a sessionId resolver.',
    );
  const tenantId = options.tenantId ? await options.tenantId(info) : undefined;
  return { userId, sessionId, tenantId };
}
