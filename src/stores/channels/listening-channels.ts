/**
 * Messages between the processes that share a store (`SessionStore.channels`): Redis
 * PUBLISH/SUBSCRIBE, PostgreSQL NOTIFY/LISTEN, a table of recent messages for SQLite processes
 * sharing one file, and in-process delivery for the in-memory store, one file each beside this
 * one. Used by the stateless MCP server so that a `notifications/cancelled` landing on one
 * process aborts the call running on another.
 */
import { StoreLimitError, StoreUnavailableError, ToolwrightConfigError, ToolwrightError } from '../../errors/errors';
import type { StoreChannels } from '../store';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; every store keeps the same bound. */
export const MAX_MESSAGE_BYTES = 7999;

type Listener = (message: string) => void;
type ErrorListener = (error: unknown) => void;

interface Subscriber {
  listener: Listener;
  onError?: ErrorListener;
  /** Told of the current outage already. */
  told?: boolean;
}

/** A backend that keeps a connection listening to the channels that have subscribers, and says when it cannot. */
export abstract class ListeningChannels implements StoreChannels {
  protected readonly subscribers = new Map<string, Set<Subscriber>>();
  /** The current outage (from its first report until listening works again), reported once to each subscriber. */
  private outage?: unknown;

  constructor(protected readonly storeName: string) {}

  abstract publish(channel: string, message: string): Promise<void>;

  async subscribe(channel: string, listener: Listener, onError?: ErrorListener): Promise<() => Promise<void>> {
    this.checkChannel(channel);
    const subscriber: Subscriber = { listener, onError };
    let set = this.subscribers.get(channel);
    const first = !set;
    if (!set) this.subscribers.set(channel, (set = new Set()));
    set.add(subscriber);
    // Resolves once listening works or its failure was reported; never rejects (delivery is best effort).
    if (first) await this.listen(channel);
    // A subscriber joining during an outage hears of it too.
    if (this.outage !== undefined) this.tell(subscriber);
    return async () => {
      if (!set.delete(subscriber) || set.size > 0 || this.subscribers.get(channel) !== set) return;
      this.subscribers.delete(channel);
      await this.unlisten(channel);
    };
  }

  /** Validates a channel name (letters, digits, `-`, `_`, `.`, `:`; at most 40 characters). */
  protected checkChannel(channel: string): void {
    if (!/^[A-Za-z0-9_.:-]{1,40}$/.test(channel))
      throw new ToolwrightConfigError(`invalid channel name ${JSON.stringify(channel)}: use 1–40 letters, digits, "-", "_", "." or ":"`);
  }

  protected checkMessage(message: string): void {
    // PostgreSQL text holds neither; Redis would turn a lone surrogate into U+FFFD.
    if (message.includes('\u0000') || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(message))
      throw new StoreLimitError(this.storeName, 'a message with NUL or an unpaired surrogate (use JSON, which escapes them)');
    const bytes = Buffer.byteLength(message, 'utf8');
    if (bytes > MAX_MESSAGE_BYTES) throw new StoreLimitError(this.storeName, `a message of ${bytes} bytes (at most ${MAX_MESSAGE_BYTES})`);
  }

  protected deliver(channel: string, message: string): void {
    for (const { listener } of this.subscribers.get(channel) ?? []) {
      try {
        listener(message);
      } catch {
        // One listener's failure is not the others' (nor the connection's).
      }
    }
  }

  /** Tells every subscriber, once per outage, that messages are not received until the backend is back. */
  protected reportDown(cause: unknown): void {
    this.outage ??= cause instanceof ToolwrightError ? cause : new StoreUnavailableError(this.storeName, cause);
    for (const set of this.subscribers.values()) for (const subscriber of set) this.tell(subscriber);
  }

  private tell(subscriber: Subscriber): void {
    if (subscriber.told) return;
    subscriber.told = true;
    try {
      subscriber.onError?.(this.outage);
    } catch {
      // A failing error listener must not stop the others.
    }
  }

  protected reportUp(): void {
    this.outage = undefined;
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.told = false;
  }

  protected abstract listen(channel: string): Promise<void>;
  protected abstract unlisten(channel: string): Promise<void>;
  abstract close(): Promise<void>;
}
