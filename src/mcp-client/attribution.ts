/**
 * Which call a server's own request (elicitation, sampling) belongs to. MCP sends no reference on
 * the wire; over Streamable HTTP the server writes such a request on the response stream of the
 * POST that carried the call, so the stream tells. Over stdio nothing does (callers fall back).
 *
 * A call is marked with a private `_meta` key that the transport's `send` strips again, so the
 * server never sees it; the marker ties the call's JSON-RPC id to its caller.
 */

const MARKER = 'io.toolwright/caller';

type Id = string | number;
type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

interface Message {
  id?: Id;
  method?: unknown;
  params?: { _meta?: Record<string, unknown> } & Record<string, unknown>;
}

export class CallAttribution {
  private next = 0;
  private readonly marked = new Map<string, object>();
  private readonly calls = new Map<Id, object>();
  private readonly requests = new Map<Id, object>();

  /** The `_meta` to send the call with; `release` when it has ended. */
  mark(caller: object): { meta: Record<string, string>; release: () => void } {
    const marker = String(this.next++);
    this.marked.set(marker, caller);
    return {
      meta: { [MARKER]: marker },
      release: () => {
        this.marked.delete(marker);
        for (const map of [this.calls, this.requests]) for (const [id, owner] of map) if (owner === caller) map.delete(id);
      },
    };
  }

  /** The message as it goes out: without the marker, its id remembered as the marked caller's. */
  outgoing<M>(message: M): M {
    const { id, params } = message as Message;
    const marker = params?._meta?.[MARKER];
    if (typeof marker !== 'string') return message;
    const caller = this.marked.get(marker);
    if (caller !== undefined && id !== undefined) this.calls.set(id, caller);
    const { [MARKER]: _, ...meta } = params!._meta!;
    return { ...message, params: { ...params, _meta: meta } };
  }

  /** The caller of the server's request with this id, if it came on a call's stream (asked once). */
  take(requestId: Id): object | undefined {
    const caller = this.requests.get(requestId);
    this.requests.delete(requestId);
    return caller;
  }

  /** A fetch that reads which server requests arrive on the response stream of each marked call. */
  fetch(base: Fetch = globalThis.fetch): Fetch {
    return async (url, init) => {
      const response = await base(url, init);
      if (init?.method !== 'POST' || typeof init.body !== 'string' || response.body === null) return response;
      if (!response.headers.get('content-type')?.includes('text/event-stream')) return response;
      const callers = new Set(idsIn(init.body).map((id) => this.calls.get(id)));
      const caller = callers.size === 1 ? [...callers][0] : undefined;
      if (caller === undefined) return response;
      return new Response(response.body.pipeThrough(this.scanner(caller)), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /** Passes the stream on unchanged, noting each request event in it as the caller's before the client can read it. */
  private scanner(caller: object): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    let pending = '';
    return new TransformStream({
      transform: (chunk, controller) => {
        const from = Math.max(0, pending.length - 3);
        pending += decoder.decode(chunk, { stream: true });
        const separator = /\r\n\r\n|\n\n|\r\r/g;
        separator.lastIndex = from;
        let cut = 0;
        for (let match = separator.exec(pending); match !== null; match = separator.exec(pending)) {
          this.note(pending.slice(cut, match.index), caller);
          cut = match.index + match[0].length;
        }
        pending = pending.slice(cut);
        controller.enqueue(chunk);
      },
    });
  }

  private note(event: string, caller: object): void {
    const data = event
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (!data.includes('"method"')) return;
    try {
      const message = JSON.parse(data) as Message;
      if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number'))
        this.requests.set(message.id, caller);
    } catch {
      // Not JSON: the client reports it; nothing to note.
    }
  }
}

/** The ids of the requests in a POST body (one message or a batch). */
function idsIn(body: string): Id[] {
  try {
    const parsed = JSON.parse(body) as Message | Message[];
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
    );
  } catch {
    return [];
  }
}
