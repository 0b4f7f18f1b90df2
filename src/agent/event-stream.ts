import { Cancellation } from '../registry/cancellation';
import type { AgentEvent } from './events';

/** Why a run's signal fires when its stream consumer leaves the loop early. */
export class StreamClosedReason extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('The stream consumer stopped reading: the run was cancelled.');
  }
}

/**
 * The events of one run as an async iterator. The run starts on the first `next()` and goes on at
 * its own pace (events queue until read). Leaving early (`return()`, i.e. break or an exception in
 * a `for await`) aborts the run's signal and waits until the run has settled and saved, so the
 * session is well-formed when the loop is left. A run that fails makes the iterator throw its
 * error after the events before it.
 */
export class RunEventStream implements AsyncIterableIterator<AgentEvent> {
  private readonly queue: AgentEvent[] = [];
  private head = 0;
  /** Reads waiting for an event (more than one only when a caller does not await each `next()`). */
  private readonly waiting: { resolve: (r: IteratorResult<AgentEvent>) => void; reject: (error: unknown) => void }[] = [];
  private running?: Promise<void>;
  private settled = false;
  private failed = false;
  private error: unknown;
  private closed = false;
  /** Created on the first read: a stream never read links nothing to the caller's signal. */
  private cancel?: Cancellation;

  constructor(
    private readonly outer: AbortSignal | undefined,
    private readonly start: (emit: (event: AgentEvent) => void, cancel: Cancellation) => Promise<unknown>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentEvent>> {
    if (!this.running && !this.closed) this.begin();
    if (this.head < this.queue.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.closed || this.settled) return this.end();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  async return(): Promise<IteratorResult<AgentEvent>> {
    const running = this.running;
    this.closed = true;
    this.queue.length = this.head = 0;
    if (running && !this.settled) {
      this.cancel!.abort(new StreamClosedReason());
      await running;
    }
    this.failed = false; // the consumer left: the run's cancellation is not its error
    for (const waiting of this.waiting.splice(0)) waiting.resolve({ value: undefined, done: true });
    return { value: undefined, done: true };
  }

  private begin(): void {
    // No AbortSignal here: the run's Cancellation creates one only when a tool or the model reads it.
    const cancel = (this.cancel = new Cancellation(this.outer));
    const emit = (event: AgentEvent) => {
      if (this.closed) return;
      const waiting = this.waiting.shift();
      if (waiting) {
        waiting.resolve({ value: event, done: false });
      } else {
        this.queue.push(event);
      }
    };
    let started: Promise<unknown>;
    try {
      started = this.start(emit, cancel);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's own (typed) error, passed on unchanged
      started = Promise.reject(error);
    }
    this.running = started.then(
      () => this.finish(false, undefined),
      (error: unknown) => this.finish(true, error),
    );
  }

  private finish(failed: boolean, error: unknown): void {
    this.cancel!.dispose();
    this.settled = true;
    this.failed = failed;
    this.error = error;
    for (const waiting of this.waiting.splice(0)) void this.end().then(waiting.resolve, waiting.reject);
  }

  /** After the last event: the run's error once, then done. */
  private end(): Promise<IteratorResult<AgentEvent>> {
    if (this.failed) {
      this.failed = false;
      this.closed = true;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's own error, unchanged (typed, as run() throws it)
      return Promise.reject(this.error);
    }
    this.closed = true;
    return Promise.resolve({ value: undefined, done: true });
  }

  private take(): AgentEvent {
    const event = this.queue[this.head++];
    if (this.head === this.queue.length) this.queue.length = this.head = 0;
    return event;
  }
}
