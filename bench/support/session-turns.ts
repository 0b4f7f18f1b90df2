/**
 * The store benchmark's workload (bench/stores.bench.ts, bench/sqlite-drivers.bench.ts): sequential
 * turns on one session, turns on many sessions at once, and loading a long history.
 */
import { AgentContext } from '../../src/session/agent-context';
import type { SessionKey } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';

export const TURNS = 500;
export const PARALLEL_SESSIONS = 100;
export const PARALLEL_TURNS_EACH = 10;

/** A realistic turn on a session that has 20 messages and 10 state keys: load, change, save. */
async function turn(store: SessionStore, key: SessionKey, i: number): Promise<void> {
  const snap = await store.loadSession(key, { historyLimit: 20 });
  const ctx = snap ? AgentContext.fromSnapshot(snap) : new AgentContext({ sessionId: key.sessionId });
  ctx.setState(`k${i % 10}`, { step: i, note: 'x'.repeat(40) });
  ctx.addMessage({ role: 'user', content: `question ${i} ${'y'.repeat(80)}` });
  ctx.addMessage({ role: 'assistant', content: `answer ${i} ${'z'.repeat(160)}` });
  await store.saveSession(key, ctx.takeChanges());
}

async function seed(store: SessionStore, key: SessionKey, messages: number): Promise<void> {
  const ctx = new AgentContext({ sessionId: key.sessionId });
  for (let k = 0; k < 10; k++) ctx.setState(`k${k}`, { step: 0, note: 'x'.repeat(40) });
  for (let m = 0; m < messages; m++) ctx.addMessage({ role: m % 2 ? 'assistant' : 'user', content: `seed ${m} ${'s'.repeat(100)}` });
  await store.saveSession(key, ctx.takeChanges());
}

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function measure(name: string, store: SessionStore) {
  const key = { sessionId: `bench-${name}` };
  await seed(store, key, 20);
  for (let i = 0; i < 20; i++) await turn(store, key, i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t = process.hrtime.bigint();
    await turn(store, key, i);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);

  const keys = Array.from({ length: PARALLEL_SESSIONS }, (_, s) => ({ sessionId: `bench-${name}-par-${s}` }));
  for (const k of keys) await seed(store, k, 20);
  const t0 = performance.now();
  await Promise.all(
    keys.map(async (k) => {
      for (let i = 0; i < PARALLEL_TURNS_EACH; i++) await turn(store, k, i);
    }),
  );
  const throughput = (PARALLEL_SESSIONS * PARALLEL_TURNS_EACH) / ((performance.now() - t0) / 1000);

  const big = { sessionId: `bench-${name}-big` };
  await seed(store, big, 10_000);
  const loads: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const snap = await store.loadSession(big);
    loads.push(performance.now() - t);
    if (snap!.history.length !== 10_000) throw new Error('bad load');
  }
  loads.sort((a, b) => a - b);
  return { name, median: pct(times, 50), p99: pct(times, 99), throughput, bigLoad: pct(loads, 50) };
}
