/**
 * The shapes of the AI SDK's UI message stream as toolwright writes it: the chunks, what a run's
 * `finish` carries, and the options of the conversion.
 */
import type { RunResult } from '../agent/agent';
import type { InputRequest } from '../session/elicitation';

export type UIFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** What toolwright puts in the UI message's `metadata` when a run ends. */
export interface RunMessageMetadata {
  runId: string;
  sessionId: string;
  status: RunResult['status'];
  turns: number;
  usage: RunResult['usage'];
}

/** A tool's progress (`context.reportProgress`), as the `data-tool-progress` part of its call. */
export interface ToolProgressData {
  toolCallId: string;
  name: string;
  progress: number;
  total?: number;
  message?: string;
}

/**
 * A call paused on the person's input (`context.elicit`): a `data-tool-input` part (id: the call's id)
 * beside the call's `input-available` part. The page shows `request` (a form's `requestedSchema`, or a
 * URL to open) and answers with `addToolOutput({ tool, toolCallId, output: { action: 'accept', content }
 * })` (or `{ action: 'decline' }` / `{ action: 'cancel' }`), sent like an approval response.
 */
export interface ToolInputData {
  toolCallId: string;
  name: string;
  request: InputRequest;
}

/**
 * The chunks toolwright writes: a subset of the AI SDK v6 `UIMessageChunk` union (its
 * `uiMessageChunkSchema`), field for field; the tests check each one against that schema.
 */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'data-tool-progress'; id: string; data: ToolProgressData }
  | { type: 'data-tool-input'; id: string; data: ToolInputData }
  | { type: 'finish-step' }
  | { type: 'finish'; finishReason: UIFinishReason; messageMetadata: RunMessageMetadata }
  | { type: 'error'; errorText: string };

export interface UIMessageStreamOptions {
  /**
   * The assistant message's id (`start.messageId`): give the client's own id to continue its
   * message. Default: the run's id (from `run-start`), the id a restored chat gives the message.
   */
  messageId?: string;
  /**
   * Tool calls the client already shows (a continued message): their results update those parts.
   * A result or approval for any other call not announced in this stream first adds its part.
   */
  announcedToolCalls?: Iterable<string>;
  /** The `errorText` a failed run shows. Default: "An error occurred (CODE)." — never a message or stack. */
  errorText?: (error: unknown) => string;
  /** Send tool progress as `data-tool-progress` parts (one per call, updated in place). Default true. */
  progress?: boolean;
}

/**
 * The approval id of a call: the tool call id itself, so an approval response read back from the
 * client names the call it decides and nothing else needs remembering between requests.
 */
export const approvalIdOf = (toolCallId: string): string => toolCallId;
