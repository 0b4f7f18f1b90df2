import { Cancellation } from '../registry/cancellation';
import type { AgentEvent } from './events';

/** Why a run's signal fires when its stream consumer leaves the loop early. */
export class StreamClosedReason extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('The stream consumer stopped reading: the run was cancelled.');
  }
}

/** Where a streamed run reports its events and its end (methods of the stream: no closure a run). */
export interface RunEvents {
  /** An event; `run-end` (sent once the run saved) also ends the stream. */
  emit(event: AgentEvent<unknown>): void;
  /** The run is over: `failed` with the error the reader gets after the events, or done. Only the first end counts. */
  end(failed: boolean, error: unknown): void;
  /**
   * Room for more: undefined while the reader keeps up, else a promise that settles once it has
   * read half of what waits (or left, or the run was cancelled). The run awaits it before it asks
   * the model for more, so a reader that sleeps holds a few events, not the whole answer.
   */
  room(): Promise<void> | undefined;
}

/**
 * Events a run queues ahead of its reader before it waits for room (model parts) or keeps only the
 * latest progress of each call. Small: the AI SDK's streamText pulls the model as its reader reads.
 */
export const STREAM_HIGH_WATER = 16;

/**
 * Starts the run a stream reports: a plain function and its arguments, kept on the stream (no
 * closure over them a run). It reports its end through `events.end` (not by settling its promise,
 * which would take two handlers and a promise a run to hear) and its promise does not reject.
 */
export type StartRun<T, A, B> = (events: RunEvents, cancel: Cancellation, target: T, a: A, b: B) => Promise<unknown>;

type Resolve = (result: IteratorResult<AgentEvent<unknown>>) => void;
type Reject = (error: unknown) => void;

/**
 * The events of one run as an async iterator. The run starts on the first `next()` and goes on at
 * its reader's pace: past STREAM_HIGH_WATER unread events it waits (`room`) before asking the model
 * for more, and a tool's progress keeps only its latest unread report. Leaving early (`return()`, i.e. break or an exception in
 * a `for await`) aborts the run's signal and waits until the run has settled and saved, so the
 * session is well-formed when the loop is left. A run that fails makes the iterator throw its
 * error after the events before it. The stream is also the run's Cancellation (one object a
 * streamed run, not two), linked to the caller's signal on the first read.
 */
export class RunEventStream<T = undefined, A = undefined, B = undefined>
  extends Cancellation
  implements AsyncIterableIterator<AgentEvent<unknown>>, RunEvents
{
  /**
   * Events not yet read, [head, tail); created when the run first gets ahead of its reader. Both
   * lists are reused by index, never truncated (truncating frees the array's storage, so the next
   * push would allocate it again).
   */
  private queue?: (AgentEvent<unknown> | undefined)[];
  private head = 0;
  private tail = 0;
  /**
   * Reads waiting for an event (more than one only when a caller does not await each `next()`),
   * as resolve, reject pairs in [waitHead, waitTail): no object or closure per read, only its promise.
   */
  private readonly waiting: (Resolve | Reject | undefined)[] = [undefined, undefined];
  private waitHead = 0;
  private waitTail = 0;
  private running?: Promise<unknown>;
  private settled = false;
  private failed = false;
  private error: unknown;
  private closed = false;
  /** The run waiting for room (`room`), resolved once the reader has caught up half the way. */
  private producer?: () => void;
  /** Where a call's queued progress sits, for the reports that replace it while the reader is behind. */
  private progressAt?: Map<string, number>;

  constructor(
    outer: AbortSignal | undefined,
    private readonly start: StartRun<T, A, B>,
    private readonly target?: T,
    private readonly a?: A,
    private readonly b?: B,
  ) {
    super();
    this.outer = outer; // linked on the first read: a stream never read links nothing to the caller's signal
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentEvent<unknown>>> {
    if (!this.running && !this.closed) this.begin();
    if (this.head < this.tail) return Promise.resolve({ value: this.take(), done: false });
    if (this.closed || this.settled) return this.last();
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- read by `park` at once, inside `new Promise`
    parking = this;
    return new Promise(park);
  }

  async return(): Promise<IteratorResult<AgentEvent<unknown>>> {
    const running = this.running;
    this.closed = true;
    this.queue = undefined;
    this.progressAt = undefined;
    this.head = this.tail = 0;
    this.wake();
    if (running && !this.settled) {
      this.abort(new StreamClosedReason());
      await running;
    }
    this.failed = false; // the consumer left: the run's cancellation is not its error
    this.endWaiting();
    return DONE;
  }

  /** A read that waits (from `park`, the executor every stream shares). */
  wait(resolve: Resolve, reject: Reject): void {
    this.waiting[this.waitTail++] = resolve;
    this.waiting[this.waitTail++] = reject;
  }

  /**
   * Ends every waiting read, oldest first, as `last` answers reads: the run's error to the first if
   * it failed, done to the others (a loop, not a callback: no closure when a run ends).
   */
  private endWaiting(): void {
    const waiting = this.waiting;
    const from = this.waitHead;
    const to = this.waitTail;
    this.waitHead = this.waitTail = 0;
    this.closed = true;
    for (let i = from; i < to; i += 2) {
      const resolve = waiting[i] as Resolve;
      const reject = waiting[i + 1] as Reject;
      waiting[i] = waiting[i + 1] = undefined;
      if (!this.failed) resolve(DONE);
      else {
        this.failed = false;
        reject(this.error);
      }
    }
  }

  /** An event of the run: to the oldest waiting read, or queued. */
  emit(event: AgentEvent<unknown>): void {
    if (this.closed) return;
    const waiting = this.waiting;
    const at = this.waitHead;
    if (at === this.waitTail) {
      // Two slots: the reader is rarely more than one event behind (the array grows if it is).
      const queue = (this.queue ??= [undefined, undefined]);
      if (event.type === 'tool-progress' && this.tail - this.head >= STREAM_HIGH_WATER) {
        // The reader is behind: a call's newer report replaces its unread one (100,000 reports queue one event).
        const slot = (this.progressAt ??= new Map()).get(event.toolCallId);
        if (slot !== undefined) {
          queue[slot] = event;
          return;
        }
        this.progressAt.set(event.toolCallId, this.tail);
      }
      queue[this.tail++] = event;
      if (event.type === 'run-end') this.end(false, undefined);
      return;
    }
    const resolve = waiting[at] as Resolve;
    waiting[at] = waiting[at + 1] = undefined;
    if (at + 2 === this.waitTail) this.waitHead = this.waitTail = 0;
    else this.waitHead = at + 2;
    resolve({ value: event, done: false });
    // The run saved before its last event: the read after it is answered done at once, not left waiting for the run's promise.
    if (event.type === 'run-end') this.end(false, undefined);
  }

  room(): Promise<void> | undefined {
    if (this.tail - this.head < STREAM_HIGH_WATER || this.closed || this.aborted) return undefined;
    return new Promise<void>((resolve) => (this.producer = resolve)); // only when the reader is behind
  }

  /** Cancelled (the reader left, or the caller's signal): a run waiting for room goes on to see it. */
  override abort(reason: unknown): void {
    super.abort(reason);
    this.wake();
  }

  private wake(): void {
    const producer = this.producer;
    this.producer = undefined;
    producer?.();
  }

  private begin(): void {
    // No AbortSignal here: the stream's Cancellation creates one only when a tool or the model reads it.
    if (this.outer) this.link();
    try {
      this.running = this.start(this, this, this.target!, this.a!, this.b!);
    } catch (error) {
      this.end(true, error);
    }
  }

  /** The run is over (saved): reads waiting now get its error (the first) or done. */
  end(failed: boolean, error: unknown): void {
    if (this.settled) return;
    this.wake();
    this.dispose();
    this.settled = true;
    this.failed = failed;
    this.error = error;
    // Reads waiting now (the queue is empty): the run's error to the first, done to the others, as `last` gives them.
    if (this.waitHead !== this.waitTail) this.endWaiting();
  }

  /** After the last event: the run's error once, then done. */
  private last(): Promise<IteratorResult<AgentEvent<unknown>>> {
    this.closed = true;
    if (this.failed) {
      this.failed = false;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's own error, unchanged (typed, as run() throws it)
      return Promise.reject(this.error);
    }
    return Promise.resolve(DONE);
  }

  private take(): AgentEvent<unknown> {
    const queue = this.queue!;
    const event = queue[this.head]!;
    if (this.progressAt !== undefined && event.type === 'tool-progress' && this.progressAt.get(event.toolCallId) === this.head)
      this.progressAt.delete(event.toolCallId);
    queue[this.head++] = undefined;
    if (this.head === this.tail) this.head = this.tail = 0;
    if (this.producer !== undefined && this.tail - this.head <= STREAM_HIGH_WATER / 2) this.wake();
    return event;
  }
}

/** The stream whose read waits: set just before `new Promise(park)`, whose executor runs at once. */
let parking: { wait(resolve: Resolve, reject: Reject): void } | undefined;

/** The executor of every waiting read, of every stream: no closure a stream. */
function park(resolve: Resolve, reject: Reject): void {
  const stream = parking!;
  parking = undefined;
  stream.wait(resolve, reject);
}

/** Shared and frozen: a finished read carries nothing of its own. */
const DONE: IteratorResult<AgentEvent<unknown>> = Object.freeze({ value: undefined, done: true });
