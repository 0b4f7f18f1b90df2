/**
 * A stored conversation as the AI SDK's `UIMessage`s, the way the live stream built them, so a
 * reloaded `useChat` page shows the chat again (`useChat({ messages })`): user text, per model
 * turn a `step-start`, its text and its tool parts in their states, the paused run's calls waiting
 * for approval or input, and each assistant message with the id and metadata its stream gave. Pure: no
 * I/O, nothing from the `ai` package.
 */
import { inputHash, unansweredInputs, type RunLogEntry, type StoredConversation, type StoredRun } from '../agent/run-state';
import type { Message, ToolCall } from '../session/message';
import { approvalIdOf, type RunMessageMetadata, type ToolInputData } from './ui-message-stream';

export interface UITextPart {
  type: 'text';
  text: string;
  state?: 'done';
}

/** A tool call's part (`tool-<name>`), in one of the states the AI SDK's `ToolUIPart` has. */
export type UIToolPart = { type: `tool-${string}`; toolCallId: string } & (
  | { state: 'input-available'; input: unknown }
  | { state: 'approval-requested'; input: unknown; approval: { id: string } }
  | { state: 'approval-responded'; input: unknown; approval: { id: string; approved: boolean; reason?: string } }
  | { state: 'output-available'; input: unknown; output: unknown }
  | { state: 'output-error'; input?: unknown; rawInput?: unknown; errorText: string }
  | { state: 'output-denied'; input: unknown; approval: { id: string; approved: false; reason?: string } }
);

export type UIMessagePart = { type: 'step-start' } | UITextPart | UIToolPart | { type: 'data-tool-input'; id: string; data: ToolInputData };

/** An AI SDK `UIMessage` (assignable to `UIMessage<RunMessageMetadata>`). */
export interface RestoredUIMessage {
  id: string;
  role: 'user' | 'assistant';
  metadata?: RunMessageMetadata;
  parts: UIMessagePart[];
}

/** The text a live stream shows for a call whose arguments were not JSON, before its result. */
const INVALID_ARGUMENTS = 'The model sent arguments that are not valid JSON.';
/** How the runner words a human's rejection (tool-runner.ts): the reason follows. */
const REJECTED_PREFIX = 'A human rejected this call: ';

/**
 * The chat's messages: one user message per stored user message, one assistant message per reply
 * (every model turn and tool result until the next user message, as one stream continued it).
 * An assistant message answering a run in the session's run log gets that run's id and metadata
 * (`RunMessageMetadata`), as its stream did; older ones (past the log's size) get an id from their
 * place and no metadata. Progress parts are not stored, so not restored.
 */
export function toUIMessages(conversation: StoredConversation, sessionId: string): RestoredUIMessage[] {
  const { history, pendingRun } = conversation;
  const runs = runsByUserMessage(history, conversation.runLog);
  const messages: RestoredUIMessage[] = [];
  const toolParts = new Map<string, UIToolPart>();
  let reply: RestoredUIMessage | undefined;
  let run: RunLogEntry | undefined;
  let place = 0;

  const assistant = (): RestoredUIMessage => {
    if (reply) return reply;
    reply = { id: run ? run.runId : `${sessionId}-assistant-${place}`, role: 'assistant', parts: [] };
    if (run && run.status !== 'failed') reply.metadata = metadataOf(run, sessionId);
    messages.push(reply);
    return reply;
  };
  const turn = (content: string | null, calls: readonly ToolCall[] | undefined): UIToolPart[] => {
    if (!content && !calls?.length) return [];
    const { parts } = assistant();
    parts.push({ type: 'step-start' });
    if (content) parts.push({ type: 'text', text: content, state: 'done' });
    const added = (calls ?? []).map(inputPart);
    for (const part of added) {
      parts.push(part);
      toolParts.set(part.toolCallId, part);
    }
    return added;
  };

  history.forEach((message, index) => {
    switch (message.role) {
      case 'user':
        run = runs.get(index);
        place = index;
        reply = undefined;
        messages.push({
          id: run ? `${run.runId}-user` : `${sessionId}-user-${index}`,
          role: 'user',
          parts: [{ type: 'text', text: message.content }],
        });
        break;
      case 'assistant':
        turn(message.content, message.toolCalls);
        break;
      case 'tool': {
        const part = toolParts.get(message.toolCallId);
        if (part) Object.assign(part, outcomeOf(part, message));
        break;
      }
      default:
        break;
    }
  });

  if (pendingRun) {
    // The paused turn is not in the history yet (the run adds it when it resumes); its message
    // has the id and metadata the pausing stream gave.
    const paused = assistant();
    paused.id = pendingRun.runId;
    paused.metadata = { runId: pendingRun.runId, sessionId, status: 'paused', turns: pendingRun.turns, usage: pendingRun.usage };
    const waiting = new Set(pendingRun.approvals.map((a) => a.toolCallId));
    for (const part of turn(pendingRun.assistant.content, pendingRun.assistant.toolCalls)) {
      if (waiting.has(part.toolCallId) && 'input' in part) Object.assign(part, approvalState(pendingRun, part.toolCallId));
    }
    // Calls asked for the person's input: their parts stay `input-available`, the request beside them (as streamed).
    for (const { toolCallId, name, request } of unansweredInputs(pendingRun))
      paused.parts.push({ type: 'data-tool-input', id: toolCallId, data: { toolCallId, name, request } });
  }
  return messages;
}

/** A paused call's approval, as its part shows it: requested, or decided (not run yet). */
function approvalState(pendingRun: StoredRun, toolCallId: string): Partial<UIToolPart> {
  const approval = { id: approvalIdOf(toolCallId) };
  const decision = Object.hasOwn(pendingRun.decisions, toolCallId) ? pendingRun.decisions[toolCallId] : undefined;
  if (decision === undefined) return { state: 'approval-requested', approval };
  return {
    state: 'approval-responded',
    approval: decision.approve ? { ...approval, approved: true } : { ...approval, approved: false, reason: decision.reason },
  };
}

/**
 * Which run answered which stored user message: the log's entries matched to user messages by
 * their input, newest first (a user message no logged run wrote — a tool's, or one past the log — has none).
 */
function runsByUserMessage(history: readonly Message[], log: readonly RunLogEntry[]): Map<number, RunLogEntry> {
  const runs = new Map<number, RunLogEntry>();
  let next = log.length - 1;
  for (let index = history.length - 1; index >= 0 && next >= 0; index--) {
    const message = history[index];
    if (message.role !== 'user' || inputHash(message.content) !== log[next].input) continue;
    runs.set(index, log[next--]);
  }
  return runs;
}

function metadataOf(run: RunLogEntry, sessionId: string): RunMessageMetadata {
  return { runId: run.runId, sessionId, status: run.status as RunMessageMetadata['status'], turns: run.turns, usage: run.usage };
}

/** A call as the live stream first shows it: its input (or, not JSON, its raw text as an error). */
function inputPart(call: ToolCall): UIToolPart {
  const type = `tool-${call.name}` as const;
  const parsed = parseJson(call.arguments);
  return parsed.ok
    ? { type, toolCallId: call.id, state: 'input-available', input: parsed.value }
    : { type, toolCallId: call.id, state: 'output-error', rawInput: call.arguments, errorText: INVALID_ARGUMENTS };
}

/** A call's result, as the live stream's output chunk left the part. */
function outcomeOf(part: UIToolPart, result: Extract<Message, { role: 'tool' }>): Partial<UIToolPart> {
  if (!result.isError) {
    const parsed = parseJson(result.content);
    return { state: 'output-available', output: parsed.ok ? parsed.value : result.content };
  }
  const parsed = parseJson(result.content);
  const error =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as { code?: unknown; message?: unknown }) : {};
  if (error.code === 'REJECTED' && 'input' in part) {
    const message = error.message;
    const reason = typeof message === 'string' && message.startsWith(REJECTED_PREFIX) ? message.slice(REJECTED_PREFIX.length) : undefined;
    const approval = { id: approvalIdOf(part.toolCallId), approved: false as const };
    return { state: 'output-denied', approval: reason === undefined ? approval : { ...approval, reason } };
  }
  return { state: 'output-error', errorText: result.content };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
