import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../../src/errors/errors';
import type { SessionSnapshot } from '../../src/session/snapshots';
import type { SessionStore } from '../../src/stores/store';
import type { TestServer } from '../support/servers';
import { writeTurn } from '../support/turns';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every turn in the snapshot is whole: its state key and both messages, adjacent and in order. */
export function expectWholeTurns(snap: SessionSnapshot, expectedTurns?: Iterable<string>): void {
  const turns = Object.keys(snap.state).map((k) => k.replace(/^turn-/, ''));
  expect(snap.version).toBe(turns.length);
  expect(snap.history).toHaveLength(2 * turns.length);
  const seen = new Set<string>();
  for (let i = 0; i < snap.history.length; i += 2) {
    const n = String(snap.history[i].content).replace(/:a$/, '');
    expect([snap.history[i].content, snap.history[i + 1].content]).toEqual([`${n}:a`, `${n}:b`]);
    expect(snap.state[`turn-${n}`]).toBe(n);
    seen.add(n);
  }
  expect(seen.size).toBe(turns.length);
  if (expectedTurns) for (const n of expectedTurns) expect(seen.has(n)).toBe(true);
}

async function retry<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || attempt >= 100) throw err;
      await sleep(100);
    }
  }
}

/**
 * Writers run turns on one session while the server is killed: the next call fails typed, and
 * after a restart the session holds whole turns only, including every acknowledged one.
 */
export async function killMidWrite(store: SessionStore, server: TestServer): Promise<void> {
  const key = { sessionId: `crash-${randomUUID()}` };
  const acknowledged = new Set<string>();
  let stop = false;
  const errors: unknown[] = [];
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const n = `${w}.${i}`;
      try {
        await writeTurn(store, key, n);
        acknowledged.add(n);
      } catch (err) {
        errors.push(err);
        return;
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  while (acknowledged.size < 40) await sleep(5);
  await server.kill();
  await Promise.all(writers);
  stop = true;

  const after = await store.loadSession(key).catch((e: unknown) => e);
  expect(after).toBeInstanceOf(StoreUnavailableError);
  expect((after as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
  for (const err of errors) expect(err).toBeInstanceOf(StoreUnavailableError);

  await server.start();
  const snap = await retry(() => store.loadSession(key));
  expect(snap).toBeDefined();
  expectWholeTurns(snap!, acknowledged);
  // The store serves again once the server is back.
  await retry(() => writeTurn(store, key, 'after'));
  expectWholeTurns((await store.loadSession(key))!, [...acknowledged, 'after']);
}
