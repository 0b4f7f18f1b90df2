import fc from 'fast-check';
import type { AgentEvent } from 'toolwright';
import { RunEventStream, STREAM_HIGH_WATER, type RunEvents } from '../../src/agent/event-stream';
import type { Cancellation } from '../../src/registry/cancellation';

/**
 * The hand-off between a run and its reader (queue and waiting reads reused by index, one
 * executor per stream): whatever the pace of either side, every read gets the next event in
 * order, then the run's error once, then done.
 */

const event = (n: number): AgentEvent => ({ type: 'turn-end', runId: 'r', turn: n, usage: { inputTokens: 0, outputTokens: 0 } });

type Outcome = { value: number } | { error: unknown } | { done: true };

const settle = (read: Promise<IteratorResult<AgentEvent<unknown>>>): Promise<Outcome> =>
  read.then(
    (r): Outcome => (r.done ? { done: true } : { value: (r.value as Extract<AgentEvent, { type: 'turn-end' }>).turn }),
    (error: unknown): Outcome => ({ error }),
  );

/** A run as the agent starts one: its end (done or its error) reported to the stream once it settles. */
const runOf =
  (body: (events: RunEvents, cancel: Cancellation) => Promise<void>) =>
  (events: RunEvents, cancel: Cancellation): Promise<void> =>
    body(events, cancel).then(
      () => events.end(false, undefined),
      (error: unknown) => events.end(true, error),
    );

describe('RunEventStream hand-off', () => {
  it('for any pace of the run and of the reads (awaited or not), reads get the events in order, then the error once, then done', async () => {
    // The run: bursts of events, a few microtasks (or a macrotask) between them; then it ends or fails.
    const burst = fc.record({ events: fc.integer({ min: 0, max: 3 }), pause: fc.constantFrom<'micro' | 'macro'>('micro', 'macro') });
    await fc.assert(
      fc.asyncProperty(
        fc.array(burst, { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 12 }),
        async (bursts, fails, readBatches) => {
          const failure = new Error('run failed');
          const total = bursts.reduce((n, b) => n + b.events, 0);
          const stream = new RunEventStream(
            undefined,
            runOf(async (events) => {
              let n = 0;
              for (const b of bursts) {
                for (let i = 0; i < b.events; i++) events.emit(event(++n));
                await (b.pause === 'micro' ? Promise.resolve() : new Promise((resolve) => setImmediate(resolve)));
              }
              if (fails) throw failure;
            }),
          );
          const outcomes: Outcome[] = [];
          // Keep reading in batches (each batch's reads issued at once, then awaited) until done twice.
          for (let k = 0; outcomes.filter((o) => 'done' in o).length < 2; k++) {
            const batch = readBatches[k % readBatches.length];
            const reads = Array.from({ length: batch }, () => settle(stream.next()));
            outcomes.push(...(await Promise.all(reads)));
          }
          const expected: Outcome[] = Array.from({ length: total }, (_, i) => ({ value: i + 1 }));
          if (fails) expected.push({ error: failure });
          expect(outcomes.slice(0, expected.length)).toEqual(expected);
          expect(outcomes.slice(expected.length).every((o) => 'done' in o)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a start that throws at once: the first read rejects with its error, then done, and the run is started once', async () => {
    const failure = new Error('could not start');
    let starts = 0;
    const stream = new RunEventStream(undefined, () => {
      starts++;
      throw failure;
    });
    await expect(stream.next()).rejects.toBe(failure);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
    expect(starts).toBe(1);
  });

  it('return() while reads wait: the run is cancelled, waits for it, and every waiting read ends done', async () => {
    let seen: unknown;
    let settled = false;
    const stream = new RunEventStream(
      undefined,
      runOf(async (events, cancel) => {
        events.emit(event(1));
        await new Promise<void>((resolve) => cancel.onAbort(resolve));
        seen = cancel.reason;
        await new Promise((resolve) => setImmediate(resolve)); // the save
        settled = true;
      }),
    );
    await expect(stream.next()).resolves.toEqual({ value: event(1), done: false });
    const waiting = [stream.next(), stream.next()];
    await expect(stream.return()).resolves.toEqual({ value: undefined, done: true });
    expect(settled).toBe(true);
    expect((seen as Error).name).toBe('AbortError');
    await expect(Promise.all(waiting)).resolves.toEqual([
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('streams read at once, interleaved: each read waits on its own stream and gets only its events (one shared executor)', async () => {
    // Each run emits its own turn numbers a microtask apart; the reads of all streams wait at the same time.
    const streams = [100, 200, 300].map(
      (base) =>
        new RunEventStream(
          undefined,
          runOf(async (events) => {
            for (let i = 1; i <= 3; i++) {
              await Promise.resolve();
              events.emit(event(base + i));
            }
          }),
        ),
    );
    const rounds: Outcome[][] = [];
    for (let k = 0; k < 4; k++) rounds.push(await Promise.all(streams.map((stream) => settle(stream.next()))));
    expect(rounds).toEqual([
      [{ value: 101 }, { value: 201 }, { value: 301 }],
      [{ value: 102 }, { value: 202 }, { value: 302 }],
      [{ value: 103 }, { value: 203 }, { value: 303 }],
      [{ done: true }, { done: true }, { done: true }],
    ]);
  });

  it('a run that awaits room before each event is never more than the high-water mark ahead of its reader, at any reading pace', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }), async (pauses) => {
        let emitted = 0;
        let ahead = 0;
        const total = 200;
        const stream = new RunEventStream(
          undefined,
          runOf(async (events) => {
            while (emitted < total) {
              const room = events.room();
              if (room) await room;
              events.emit(event(++emitted));
            }
          }),
        );
        let read = 0;
        for (let k = 0; ; k++) {
          const next = await stream.next();
          if (next.done) break;
          read++;
          // Macrotask turns (a sleeping reader) let a run that does not wait run far ahead.
          for (let i = 0; i < pauses[k % pauses.length]; i++) await new Promise((resolve) => setImmediate(resolve));
          ahead = Math.max(ahead, emitted - read);
        }
        expect(read).toBe(total);
        expect(ahead).toBeLessThanOrEqual(STREAM_HIGH_WATER);
      }),
      { numRuns: 30 },
    );
  });
});
