/**
 * The AI SDK's own chat client without React: `AbstractChat` (what `useChat` wraps) over
 * `DefaultChatTransport`, with its state in a plain array. What a `useChat` front end does, request
 * for request, against a toolwright chat endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from 'ai';
import type { ChatHandler } from '../../src/http';

class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

export class TestChat extends AbstractChat<UIMessage> {
  private finished: Array<() => void> = [];

  constructor(api: string, options: { id?: string; headers?: Record<string, string>; body?: object; fetch?: typeof fetch } = {}) {
    super({
      id: options.id,
      transport: new DefaultChatTransport({ api, headers: options.headers, body: options.body, fetch: options.fetch }),
      state: new ArrayChatState(),
      // The AI SDK 6 approval flow: once every approval of the last step is answered, send again.
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onFinish: () => this.finished.splice(0).forEach((resolve) => resolve()),
      onError: () => this.finished.splice(0).forEach((resolve) => resolve()),
    });
  }

  /** Resolves when the next response has finished (or failed). */
  nextResponse(): Promise<void> {
    return new Promise((resolve) => this.finished.push(resolve));
  }

  /** The last assistant message. */
  get reply(): UIMessage {
    const message = this.messages[this.messages.length - 1];
    if (message?.role !== 'assistant') throw new Error(`no assistant reply (last: ${message?.role})`);
    return message;
  }
}

/** A real node:http server around a handler's node door. */
export async function listen(handler: ChatHandler): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => void handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/chat`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
