/**
 * What createChatHandler is given: the agent it serves and the app's options, with their defaults
 * and the checks made once, when the handler is created.
 */
import type { Approver, ResumeDecision, ResumeOptions, RunOptions, RunResult } from '../agent/agent';
import type { StoredConversation } from '../agent/run-state';
import type { AgentEvent } from '../agent/events';
import { ToolwrightConfigError } from '../errors/errors';
import type { ChatRequestInfo } from './chat-request';

/** What the handler needs of an Agent: `stream`, and a streaming or plain resume for approvals and input answers. */
export interface ChatAgent {
  stream(input: string, options: RunOptions): AsyncIterable<AgentEvent<unknown>>;
  resume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): Promise<RunResult>;
  /** When the agent has it, approvals stream too; otherwise `resume`'s result is sent when it is done. */
  streamResume?(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): AsyncIterable<AgentEvent<unknown>>;
  /** The stored chat, for `GET ?id=` (an Agent has it); without it the endpoint takes POST only. */
  loadConversation?(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation>;
}

type Resolver<T> = (info: ChatRequestInfo) => T | Promise<T>;

export interface ChatHandlerOptions {
  /**
   * The signed-in user, from the request (a verified cookie, token or the app's middleware); never
   * from the body. Return undefined for an anonymous chat; throw `ChatRequestError(401, …)` to refuse (code `UNAUTHORIZED`).
   * Sessions remember their user: another user's chat id answers 403.
   */
  userId: Resolver<string | undefined>;
  /** The session of this chat. Default: the chat id `useChat` sends (`body.id`). */
  sessionId?: Resolver<string>;
  tenantId?: Resolver<string | undefined>;
  /**
   * Who decides an approval sent from the chat, recorded with the decision. Default: the user.
   * Return null to refuse approvals from this request (403): for tools a reviewer, not the user, approves.
   * Answers to a tool's questions (`context.elicit`) are the user's own and are taken either way.
   */
  approver?: (
    info: ChatRequestInfo,
    userId: string | undefined,
  ) => string | Approver | null | undefined | Promise<string | Approver | null | undefined>;
  /** Largest accepted request body (useChat sends the whole conversation). Default 4 MiB. */
  maxBodyBytes?: number;
  /** The `errorText` the browser gets for a run that failed. Default: the error code only. */
  errorText?: (error: unknown) => string;
  /** Failures that are not the client's (answered 500, or a run that failed mid-stream). Default: `process.emitWarning`. */
  onError?: (error: unknown) => void;
  /** Send tool progress as `data-tool-progress` parts. Default true. */
  progress?: boolean;
  /**
   * How long a response waits for a client that stopped reading (a chunk it has not taken: node's
   * `write()` returned false and no 'drain' came, or the fetch body was not pulled). Past it the
   * response is given up (node: the socket is closed; fetch: the body errors) and the run is
   * cancelled with a `ClientTooSlowError` (`CLIENT_TOO_SLOW`) as its `RunAbortedError`'s cause.
   * The run is paced by the client meanwhile: one that never reads holds a few events, not the
   * answer. Time the run itself takes (a slow tool) does not count. Default 60 s.
   */
  writeTimeoutMs?: number;
}

/** The options the handler reads on every request, checked and with their defaults. */
export interface ChatSettings {
  maxBodyBytes: number;
  writeTimeoutMs: number;
  /** `onError`, or a process warning. */
  report: (error: unknown) => void;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_WRITE_TIMEOUT = 60_000;
/** setTimeout's largest delay: a longer one fires at once. */
const MAX_TIMEOUT = 2 ** 31 - 1;

/** Throws ToolwrightConfigError for options no request could be served with. */
export function chatSettings(options: ChatHandlerOptions): ChatSettings {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new ToolwrightConfigError(`createChatHandler: maxBodyBytes must be a positive integer, got ${String(options.maxBodyBytes)}.`);
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT;
  if (!Number.isSafeInteger(writeTimeoutMs) || writeTimeoutMs <= 0 || writeTimeoutMs > MAX_TIMEOUT)
    throw new ToolwrightConfigError(
      `createChatHandler: writeTimeoutMs must be a positive integer of at most ${MAX_TIMEOUT} ms, got ${String(options.writeTimeoutMs)}.`,
    );
  if (typeof options.userId !== 'function')
    throw new ToolwrightConfigError(
      'createChatHandler: pass userId, a function reading the signed-in user from the request (or () => undefined for anonymous chats).',
    );
  const report =
    options.onError ??
    ((error: unknown) =>
      process.emitWarning(`toolwright chat handler: ${error instanceof Error ? error.message : String(error)}`, 'ToolwrightChatWarning'));
  return { maxBodyBytes, writeTimeoutMs, report };
}
