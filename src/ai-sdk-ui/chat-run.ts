/**
 * The run a request starts: the agent's stream of a user's text, or the paused run resumed with
 * the approval decisions an assistant message carries.
 */
import type { ResumeOptions, RunOptions } from '../agent/agent';
import type { AgentEvent } from '../agent/events';
import type { ChatAgent, ChatHandlerOptions } from './chat-options';
import { approvalResponses, ChatRequestError, isToolPart, userText, type ChatMessage, type ChatRequestInfo } from './chat-request';
import type { ChatIdentity } from './chat-session';
import { runResultEvents } from './ui-message-stream';

export interface ChatRun {
  events: AsyncIterable<AgentEvent<unknown>>;
  /** Stops the run: the client went away, or its answer was given up. */
  controller: AbortController;
  /** The client's assistant message the answer continues, when the run was resumed. */
  messageId?: string;
  /** The tool calls that message shows already. */
  announced: string[];
}

/** Of the messages the client sends only the last is read: the session's history is in the agent's store. */
export async function runOrResume(
  agent: ChatAgent,
  options: ChatHandlerOptions,
  info: ChatRequestInfo,
  { userId, sessionId, tenantId }: ChatIdentity,
  signal: AbortSignal | undefined,
): Promise<ChatRun> {
  // The run stops when the client goes away (useChat's stop(), a closed tab).
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  const run: RunOptions = { sessionId, userId, tenantId, signal: controller.signal };

  const last = info.body.messages[info.body.messages.length - 1];
  if (last.role === 'user') return { events: agent.stream(userText(last), run), controller, announced: [] };
  if (last.role === 'assistant') return resume(agent, options, info, last, run, controller);
  throw new ChatRequestError(
    400,
    `The last message must be the user's (or an assistant message with approval responses), not "${last.role}".`,
  );
}

async function resume(
  agent: ChatAgent,
  options: ChatHandlerOptions,
  info: ChatRequestInfo,
  last: ChatMessage,
  run: RunOptions,
  controller: AbortController,
): Promise<ChatRun> {
  const decisions = approvalResponses(last);
  const approver = options.approver ? await options.approver(info, run.userId) : run.userId;
  // An input's answer is the person's own (their form, their page): only approvals need an approver.
  const approving = Object.values(decisions).some((d) => 'approve' in d);
  if (approver === null && approving) throw new ChatRequestError(403, 'Approvals are not decided from this chat.');
  const resumeOptions: ResumeOptions = approver == null ? run : { ...run, approver };
  const events = agent.streamResume
    ? agent.streamResume(resumeOptions, decisions)
    : runResultEvents(agent.resume(resumeOptions, decisions));
  // The results continue the client's own assistant message, whose tool parts are already shown.
  const announced = last.parts.filter(isToolPart).map((part) => part.toolCallId as string);
  return { events, controller, messageId: last.id, announced };
}
