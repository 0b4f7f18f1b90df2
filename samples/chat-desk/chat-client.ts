/**
 * What `useChat` does in a browser, without React: the AI SDK's own `AbstractChat` (the class
 * `useChat` wraps) over `DefaultChatTransport`, its state in a plain array. In a React app you
 * write `useChat({ transport: new DefaultChatTransport({ api: '/api/chat' }), sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithApprovalResponses })` and get the same requests.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from 'ai';

class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
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

export interface ChatClientOptions {
  /** The chat's id: the endpoint's session. */
  id?: string;
  /** Sent with every request: how the server knows the user (here a bearer token). */
  headers?: Record<string, string>;
  body?: object;
  fetch?: typeof fetch;
  /** The chat so far (a reloaded page: `restoreChat`), as `useChat({ messages })` takes it. */
  messages?: UIMessage[];
}

/** A tool part waiting for the user's decision (AI SDK 6: state `approval-requested`). */
export interface PendingApprovalPart {
  type: string;
  toolCallId: string;
  input: unknown;
  approval: { id: string };
}

export class ChatClient extends AbstractChat<UIMessage> {
  private finished: Array<() => void> = [];

  constructor(api: string, options: ChatClientOptions = {}) {
    super({
      id: options.id,
      transport: new DefaultChatTransport({ api, headers: options.headers, body: options.body, fetch: options.fetch }),
      state: new ArrayChatState(options.messages),
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

  /** The tool calls of the last reply that wait for the user's decision. */
  get pendingApprovals(): PendingApprovalPart[] {
    const last = this.messages[this.messages.length - 1];
    if (last?.role !== 'assistant') return [];
    return last.parts.filter((p) => (p as { state?: string }).state === 'approval-requested') as unknown as PendingApprovalPart[];
  }

  /** Answers every pending approval the same way and waits for the continued reply. */
  async decideAll(approved: boolean, reason?: string): Promise<void> {
    const pending = this.pendingApprovals;
    if (pending.length === 0) return;
    const continued = this.nextResponse();
    for (const part of pending) await this.addToolApprovalResponse({ id: part.approval.id, approved, reason });
    await continued;
  }
}

/**
 * A reloaded page: the chat's messages from the endpoint (`GET ?id=`, with the same credentials
 * as its POSTs), then a client that starts from them. In React: fetch them the same way and pass
 * them to `useChat({ id, messages })`.
 */
export async function restoreChat(api: string, options: ChatClientOptions & { id: string }): Promise<ChatClient> {
  const response = await (options.fetch ?? fetch)(`${api}?id=${encodeURIComponent(options.id)}`, { headers: options.headers });
  if (!response.ok) throw new Error(await response.text());
  const { messages } = (await response.json()) as { messages: UIMessage[] };
  return new ChatClient(api, { ...options, messages });
}
