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
type Resolve = (result: IteratorResult<AgentEvent>) => void;
type Reject = (error: unknown) => void;

export class RunEventStream implements AsyncIterableIterator<AgentEvent> {
  /**
   * Events not yet read, [head, tail); created when the run first gets ahead of its reader. Both
   * lists are reused by index, never truncated (truncating frees the array's storage, so the next
   * push would allocate it again).
   */
  private queue?: (AgentEvent | undefined)[];
  private head = 0;
  private tail = 0;
  /**
   * Reads waiting for an event (more than one only when a caller does not await each `next()`),
   * as resolve, reject pairs in [waitHead, waitTail): no object or closure per read, only its promise.
   */
  private readonly waiting: (Resolve | Reject | undefined)[] = [undefined, undefined];
  private waitHead = 0;
  private waitTail = 0;
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
    if (this.head < this.tail) return Promise.resolve({ value: this.take(), done: false });
    if (this.closed || this.settled) return this.end();
    return new Promise(this.park);
  }

  async return(): Promise<IteratorResult<AgentEvent>> {
    const running = this.running;
    this.closed = true;
    this.queue = undefined;
    this.head = this.tail = 0;
    if (running && !this.settled) {
      this.cancel!.abort(new StreamClosedReason());
      await running;
    }
    this.failed = false; // the consumer left: the run's cancellation is not its error
    this.unparkAll((resolve) => resolve(DONE));
    return DONE;
  }

  /** The executor of every read that waits (one function per stream, not one per read). */
  private readonly park = (resolve: Resolve, reject: Reject): void => {
    this.waiting[this.waitTail++] = resolve;
    this.waiting[this.waitTail++] = reject;
  };

  /** Removes every waiting read and hands each, oldest first, to `settle`. */
  private unparkAll(settle: (resolve: Resolve, reject: Reject) => void): void {
    const waiting = this.waiting;
    const from = this.waitHead;
    const to = this.waitTail;
    this.waitHead = this.waitTail = 0;
    for (let i = from; i < to; i += 2) {
      const resolve = waiting[i] as Resolve;
      const reject = waiting[i + 1] as Reject;
      waiting[i] = waiting[i + 1] = undefined;
      settle(resolve, reject);
    }
  }

  private begin(): void {
    // No AbortSignal here: the run's Cancellation creates one only when a tool or the model reads it.
    const cancel = (this.cancel = new Cancellation(this.outer));
    const emit = (event: AgentEvent) => {
      if (this.closed) return;
      const waiting = this.waiting;
      const at = this.waitHead;
      if (at === this.waitTail) {
        // Two slots: the reader is rarely more than one event behind (the array grows if it is).
        (this.queue ??= [undefined, undefined])[this.tail++] = event;
        return;
      }
      const resolve = waiting[at] as Resolve;
      waiting[at] = waiting[at + 1] = undefined;
      if (at + 2 === this.waitTail) this.waitHead = this.waitTail = 0;
      else this.waitHead = at + 2;
      resolve({ value: event, done: false });
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
    // Reads waiting now (the queue is empty): the run's error to the first, done to the others, as `end` gives them.
    if (this.waitHead !== this.waitTail) {
      this.unparkAll((resolve, reject) => {
        this.closed = true;
        if (!this.failed) return resolve(DONE);
        this.failed = false;
        reject(this.error);
      });
    }
  }

  /** After the last event: the run's error once, then done. */
  private end(): Promise<IteratorResult<AgentEvent>> {
    this.closed = true;
    if (this.failed) {
      this.failed = false;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's own error, unchanged (typed, as run() throws it)
      return Promise.reject(this.error);
    }
    return Promise.resolve(DONE);
  }

  private take(): AgentEvent {
    const queue = this.queue!;
    const event = queue[this.head]!;
    queue[this.head++] = undefined;
    if (this.head === this.tail) this.head = this.tail = 0;
    return event;
  }
}

/** Shared and frozen: a finished read carries nothing of its own. */
const DONE: IteratorResult<AgentEvent> = Object.freeze({ value: undefined, done: true });
