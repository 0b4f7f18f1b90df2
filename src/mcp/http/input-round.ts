import { INPUT_KEY_META } from '../input-requests';

/** An `inputRequests` entry: what the server asks the client, as the 2025 request would have been. */
export interface InputAsk {
  method: string;
  params: Record<string, unknown>;
}

/**
 * One round of an MCP 2026-07-28 multi-round request (SEP-2322). 2026-07-28 has no server-to-client
 * requests: each one the handler makes is answered from what the client sent back (the answers the
 * signed requestState carries, then `inputResponses`), or becomes an entry of `inputRequests`. A
 * question the tool named (`{ key }`) is asked under that name; others as `input-<n>`, in the
 * order asked. Questions asked together (`Promise.all`) go out together: the round closes once the
 * handler has made all the requests it can make without an answer.
 */
export class InputRound {
  private numbered = 0;
  /** The answers this round used: what the next round's requestState carries. */
  readonly used: Record<string, unknown> = {};
  private pending?: Record<string, InputAsk>;

  constructor(
    private readonly answers: Record<string, unknown>,
    /** Ends the exchange with these questions (`input_required`), given the answers used so far. */
    private readonly close: (inputRequests: Record<string, InputAsk>) => void,
  ) {}

  /** The answer to this request when the client sent it; otherwise undefined, and the request is asked. */
  ask(method: string, params: unknown): Record<string, unknown> | undefined {
    const { key, sent } = keyOf(params, () => `input-${this.numbered++}`);
    if (Object.hasOwn(this.answers, key)) {
      const answer = this.answers[key] as Record<string, unknown>;
      this.used[key] = answer;
      return answer;
    }
    if (!this.pending) {
      this.pending = {};
      // After the handler's pending work (its other questions of the moment) has run.
      setImmediate(() => this.close(this.pending!));
    }
    this.pending[key] = { method, params: sent };
    return undefined;
  }
}

/** The question's key (named by the tool, or the next number), and its params as the client sees them (the key taken out). */
export function keyOf(params: unknown, next: () => string): { key: string; sent: Record<string, unknown> } {
  const sent = { ...((params ?? {}) as Record<string, unknown>) };
  const meta = sent._meta as Record<string, unknown> | undefined;
  const named = meta?.[INPUT_KEY_META];
  if (typeof named !== 'string') return { key: next(), sent };
  const { [INPUT_KEY_META]: _named, ...rest } = meta!;
  if (Object.keys(rest).length > 0) sent._meta = rest;
  else delete sent._meta;
  return { key: named, sent };
}
