/**
 * The request a `useChat` front end posts, checked before anything runs: its method, the body
 * `DefaultChatTransport` sends, and what its last message asks (a user's text or approval decisions).
 */
import type { IncomingMessage } from 'node:http';
import type { ApprovalDecision, InputDecision, ResumeDecision } from '../agent/agent';
import { ToolwrightError, type ErrorCode } from '../errors/errors';
import { approvalIdOf } from './ui-message-protocol';

/** A part of a UIMessage as the client sends it (only what the handler reads is typed). */
export interface ChatMessagePart {
  type: string;
  [key: string]: unknown;
}

export interface ChatMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: ChatMessagePart[];
}

/** The body `DefaultChatTransport` posts, plus whatever the app added (`body` option). */
export interface ChatRequestBody {
  /** The chat's id (the client's, not trusted for anything but naming the session). */
  id?: string;
  messages: ChatMessage[];
  trigger?: 'submit-message' | 'regenerate-message';
  messageId?: string;
  [key: string]: unknown;
}

/** What the resolvers see of a request. */
export interface ChatRequestInfo {
  headers: Headers;
  /** A GET (restoring a chat) has no body: `{ id: <the ?id= chat id>, messages: [] }`. */
  body: ChatRequestBody;
  /** 'POST' (a message or an approval) or 'GET' (restoring the chat's messages). */
  method: 'POST' | 'GET';
  /** The fetch-style handler's request. */
  request?: Request;
  /** The node:http handler's request (an app's auth middleware may have put its user on it). */
  incoming?: IncomingMessage;
}

/**
 * A request the endpoint refuses: answered with `status` and `{ error: { code, message } }`. The code
 * follows the status unless given: 401 `UNAUTHORIZED`, 403 `FORBIDDEN`, any other `INVALID_REQUEST`.
 */
export class ChatRequestError extends ToolwrightError {
  constructor(
    readonly status: number,
    message: string,
    code: ErrorCode = status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : 'INVALID_REQUEST',
  ) {
    super(code, message);
  }
}

/** Messages come by POST; `restores` when the endpoint also answers GET ?id= (the agent loads chats). */
export function requirePost(method: string | undefined, restores: boolean): void {
  if (method === 'POST') return;
  throw new ChatRequestError(
    405,
    restores
      ? 'Use POST to send the messages useChat sends, or GET ?id=<chat id> to restore a chat.'
      : 'Use POST: the chat endpoint takes the messages useChat sends.',
  );
}

/** The body, as JSON text or as a framework parsed it, checked to be what useChat sends. */
export function parseChatBody(raw: string | object): ChatRequestBody {
  let body: unknown = raw;
  if (typeof raw === 'string') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      throw new ChatRequestError(400, 'The request body is not valid JSON.');
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ChatRequestError(400, 'The request body must be a JSON object: { id, messages, trigger, messageId }.');
  const { messages, trigger } = body as Record<string, unknown>;
  if (!Array.isArray(messages) || messages.length === 0)
    throw new ChatRequestError(400, 'The request body has no "messages": send the chat\'s UIMessages (useChat does).');
  messages.forEach(checkMessage);
  if (trigger === 'regenerate-message')
    throw new ChatRequestError(
      400,
      'Regenerating a message is not supported: the conversation is stored on the server; send a new message.',
    );
  if (trigger !== undefined && trigger !== 'submit-message')
    throw new ChatRequestError(400, `Unknown trigger ${JSON.stringify(trigger)}: expected "submit-message".`);
  return body as ChatRequestBody;
}

function checkMessage(message: unknown, index: number): void {
  const m = message as Partial<ChatMessage> | null;
  if (typeof m !== 'object' || m === null || typeof m.id !== 'string' || typeof m.role !== 'string' || !Array.isArray(m.parts))
    throw new ChatRequestError(400, `messages[${index}] is not a UIMessage ({ id, role, parts: [] }).`);
  if (!m.parts.every((part: unknown) => typeof part === 'object' && part !== null && typeof (part as ChatMessagePart).type === 'string'))
    throw new ChatRequestError(400, `messages[${index}].parts: every part is an object with a "type".`);
}

/** The user's text: its text parts. Files are refused rather than silently dropped. */
export function userText(message: ChatMessage): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new ChatRequestError(400, 'A text part has no string "text".');
      texts.push(part.text);
    } else if (part.type === 'file') {
      throw new ChatRequestError(400, 'File parts are not supported by this agent: send text.');
    }
  }
  const text = texts.join('\n');
  if (text.trim() === '') throw new ChatRequestError(400, 'The last user message has no text.');
  return text;
}

export function isToolPart(part: ChatMessagePart): boolean {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && typeof part.toolCallId === 'string';
}

/**
 * The decisions of an assistant message's `approval-responded` tool parts, and the answers of its
 * asked calls (a `data-tool-input` part; the tool part's output set by `addToolOutput`), by tool call id.
 */
export function approvalResponses(message: ChatMessage): Record<string, ResumeDecision> {
  const decisions: Record<string, ResumeDecision> = {};
  const asked = new Set(message.parts.filter((p) => p.type === 'data-tool-input' && typeof p.id === 'string').map((p) => p.id));
  for (const part of message.parts) {
    if (!isToolPart(part)) continue;
    const toolCallId = part.toolCallId as string;
    const answer = part.state === 'output-available' && asked.has(toolCallId) ? inputAnswer(part.output) : undefined;
    if (part.state !== 'approval-responded' && !answer) continue;
    // defineProperty: a call id such as "__proto__" stays a key of its own.
    Object.defineProperty(decisions, toolCallId, {
      value: answer ?? approvalDecision(toolCallId, part.approval),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (Object.keys(decisions).length === 0)
    throw new ChatRequestError(
      400,
      "The last message is the assistant's but carries no approval response or input answer: send a user message.",
    );
  return decisions;
}

/**
 * An asked call's output as an answer: `{ action, content? }` only (the agent checks it further). A
 * call whose result the server sent since (its data part stays) has some other output: not an answer.
 */
function inputAnswer(output: unknown): InputDecision | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  const { action, content, ...rest } = output as { action?: unknown; content?: unknown };
  if (Object.keys(rest).length > 0 || (action !== 'accept' && action !== 'decline' && action !== 'cancel')) return undefined;
  return action === 'accept' ? { action, content } : { action };
}

function approvalDecision(toolCallId: string, value: unknown): ApprovalDecision {
  const approval = value as { id?: unknown; approved?: unknown; reason?: unknown; arguments?: unknown } | null | undefined;
  if (typeof approval !== 'object' || approval === null || typeof approval.approved !== 'boolean')
    throw new ChatRequestError(400, `The approval response for "${toolCallId}" has no boolean "approved".`);
  if (approval.id !== approvalIdOf(toolCallId))
    throw new ChatRequestError(
      400,
      `The approval response for "${toolCallId}" names approval ${JSON.stringify(approval.id)}, which this server did not ask for.`,
    );
  const reason = typeof approval.reason === 'string' && approval.reason.trim() !== '' ? approval.reason : 'The user denied this tool call.';
  if (!approval.approved) return { approve: false, reason };
  // The approver's edited arguments (the Agent validates them before deciding: INVALID_APPROVAL, 409).
  const edited = approval.arguments;
  if (edited === undefined) return { approve: true };
  if (typeof edited !== 'string' && (typeof edited !== 'object' || edited === null || Array.isArray(edited)))
    throw new ChatRequestError(400, `The approval response for "${toolCallId}" has "arguments" that are not an object (or its JSON).`);
  return { approve: true, arguments: edited as string | Record<string, unknown> };
}
