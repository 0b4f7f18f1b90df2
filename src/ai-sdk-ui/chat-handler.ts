/**
 * The HTTP endpoint a `useChat` front end posts to (the AI SDK's `DefaultChatTransport`): reads
 * the request, runs (or resumes) the agent, answers with the run as a UI message stream; a GET
 * with the chat id answers the stored chat as UI messages, for a page that was reloaded.
 * One core, two doors: fetch-style (`Request` → `Response`: Next.js, Hono, Bun, Deno) and node:http
 * (also Express, whose `req.body` is used when a JSON body parser ran first).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorAnswer, type Answer } from './chat-answer';
import { fetchDoor, nodeDoor } from './chat-doors';
import { readChatBody, type Incoming } from './chat-incoming';
import { chatSettings, type ChatAgent, type ChatHandlerOptions } from './chat-options';
import { parseChatBody, requirePost } from './chat-request';
import { restoreChat } from './chat-restore';
import { runOrResume } from './chat-run';
import { requestInfo, resolveIdentity } from './chat-session';
import { streamAnswer } from './chat-stream';

export { PAUSED_MESSAGE, STORE_UNAVAILABLE_MESSAGE } from './chat-answer';
export type { ChatAgent, ChatHandlerOptions } from './chat-options';
export { ChatRequestError } from './chat-request';
export type { ChatMessage, ChatMessagePart, ChatRequestBody, ChatRequestInfo } from './chat-request';

export interface ChatHandler {
  /** Fetch-style: `export const POST = chat.fetch` (Next.js), `(c) => chat.fetch(c.req.raw)` (Hono). */
  fetch(request: Request): Promise<Response>;
  /** node:http: `http.createServer(chat.node)`, `app.post('/api/chat', chat.node)` (Express). */
  node(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * The endpoint of a `useChat` front end. A user message runs `agent.stream(text)`; an assistant
 * message carrying approval responses (`addToolApprovalResponse` + `sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithApprovalResponses`) decides the paused run's calls and
 * continues that message. The session's history lives in the agent's store: of the messages the
 * client sends only the last one is read.
 */
export function createChatHandler(agent: ChatAgent, options: ChatHandlerOptions): ChatHandler {
  const settings = chatSettings(options);

  async function answer(incoming: Incoming): Promise<Answer> {
    const restores = !!agent.loadConversation;
    try {
      return incoming.method === 'GET' && restores ? await restoreChat(agent, options, incoming) : await post(incoming, restores);
    } catch (error) {
      return errorAnswer(error, { allow: restores ? 'GET, POST' : 'POST', report: settings.report });
    }
  }

  /** A message, or approval decisions: answered with the run. */
  async function post(incoming: Incoming, restores: boolean): Promise<Answer> {
    requirePost(incoming.method, restores);
    const body = parseChatBody(await readChatBody(incoming, settings.maxBodyBytes));
    const info = requestInfo(incoming, 'POST', body);
    const identity = await resolveIdentity(options, info);
    const run = await runOrResume(agent, options, info, identity, incoming.signal);
    return streamAnswer(run, options, settings.report);
  }

  return { fetch: fetchDoor(answer, settings), node: nodeDoor(answer, settings) };
}
