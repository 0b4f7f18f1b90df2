/**
 * `toolwright/ai-sdk-ui`: an Agent behind the Vercel AI SDK's `useChat` (its UI message stream
 * protocol). Needs nothing from the `ai` package on the server.
 */
export { createChatHandler, ChatRequestError } from './chat-handler';
export { ClientTooSlowError } from './client-too-slow.error';
export { toUIMessages } from './ui-messages';
export type { RestoredUIMessage, UIMessagePart, UITextPart, UIToolPart } from './ui-messages';
export type {
  ChatAgent,
  ChatHandler,
  ChatHandlerOptions,
  ChatMessage,
  ChatMessagePart,
  ChatRequestBody,
  ChatRequestInfo,
} from './chat-handler';
export {
  toUIMessageStream,
  toServerSentEvents,
  runResultEvents,
  defaultErrorText,
  approvalIdOf,
  UI_MESSAGE_STREAM_HEADERS,
} from './ui-message-stream';
export type {
  UIMessageChunk,
  UIMessageStreamOptions,
  UIFinishReason,
  RunMessageMetadata,
  ToolInputData,
  ToolProgressData,
} from './ui-message-stream';
