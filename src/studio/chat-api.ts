/**
 * The Chat page's API: the agent's useChat endpoint (`createChatHandler`), mounted as
 * `POST /api/chat` (a message, or approval decisions) and `GET /api/chat?id=` (a reloaded page's
 * chat). The same handler every useChat app mounts, so runs, approvals and their policies take the
 * same path; only who is asking differs: the studio's identity (the page's header controls), never the body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChatRequestError, createChatHandler, type ChatRequestInfo } from '../ai-sdk-ui/chat-handler';
import { ToolwrightError } from '../errors/errors';
import type { StudioContext, StudioIdentity, StudioPageApi, StudioRoute } from './routes';

/** What the routes answer when the studio was given a registry: there is no agent to talk to. */
export const NO_AGENT_MESSAGE =
  'The studio was started with a registry only: there is no agent to chat with. Start it with an Agent ' +
  '(createStudio(agent), or a --module that exports `agent`).';

export function chatPage(context: StudioContext): StudioPageApi {
  const agent = context.agent;
  if (!agent) {
    const refuse = async (): Promise<never> => {
      throw new ToolwrightError('INVALID_REQUEST', NO_AGENT_MESSAGE);
    };
    return {
      routes: [
        { method: 'POST', path: '/api/chat', handle: refuse },
        { method: 'GET', path: '/api/chat', handle: refuse },
      ],
    };
  }
  // The identity the guard read from the request's headers, for the handler's resolvers.
  const identities = new WeakMap<IncomingMessage, StudioIdentity>();
  const identityOf = (info: ChatRequestInfo): StudioIdentity => {
    const identity = info.incoming && identities.get(info.incoming);
    // Unreachable through the routes below (they set it first): refuse rather than guess a user.
    if (!identity) throw new ChatRequestError(401, 'The studio could not tell who is asking.');
    return identity;
  };
  const chat = createChatHandler(agent, {
    userId: (info) => identityOf(info).userId,
    tenantId: (info) => identityOf(info).tenantId,
    onError: context.report,
    // The developer at the page may see what failed (the default shows the code only, for end users).
    errorText: (error) => (error instanceof ToolwrightError ? `${error.code}: ${error.message}` : 'An error occurred; see the terminal.'),
  });
  const node = async (req: IncomingMessage, res: ServerResponse, identity: StudioIdentity): Promise<void> => {
    identities.set(req, identity);
    await chat.node(req, res);
  };
  const routes: StudioRoute[] = [
    { method: 'POST', path: '/api/chat', node },
    { method: 'GET', path: '/api/chat', node },
  ];
  return { routes };
}
