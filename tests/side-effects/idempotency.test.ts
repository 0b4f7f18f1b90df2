import { IdempotencyConflictError, IdempotencyLedger, payloadFingerprint } from '../../src';

describe('IdempotencyLedger', () => {
  it('runs once per key and replays the first result for the same payload (property order does not matter)', async () => {
    const ledger = new IdempotencyLedger<{ id: number }>();
    let runs = 0;
    const pay = () => ({ id: ++runs });
    expect(await ledger.once('k-1', { order: 'A', cents: 100 }, pay)).toEqual({ result: { id: 1 }, replayed: false });
    expect(await ledger.once('k-1', { cents: 100, order: 'A' }, pay)).toEqual({ result: { id: 1 }, replayed: true });
    expect(await ledger.once('k-2', { order: 'A', cents: 100 }, pay)).toEqual({ result: { id: 2 }, replayed: false });
    expect(await ledger.once(undefined, { order: 'A', cents: 100 }, pay)).toEqual({ result: { id: 3 }, replayed: false });
  });

  it('refuses a key reused with a different payload, and runs nothing for it', async () => {
    const ledger = new IdempotencyLedger<string>();
    const action = jest.fn(() => 'paid');
    await ledger.once('k', { order: 'A', cents: 100 }, action);
    for (const other of [{ order: 'A', cents: 101 }, { order: 'B', cents: 100 }, { order: 'A' }, { order: 'A', cents: 100, extra: 1 }]) {
      await expect(ledger.once('k', other, action)).rejects.toBeInstanceOf(IdempotencyConflictError);
    }
    await expect(ledger.once('k', { order: 'A', cents: 101 }, action)).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(action).toHaveBeenCalledTimes(1);
  });

  it('lets concurrent calls with one key share one run; a concurrent different payload is refused', async () => {
    const ledger = new IdempotencyLedger<number>();
    let runs = 0;
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 10));
      return ++runs;
    };
    const same = await Promise.all(Array.from({ length: 5 }, () => ledger.once('k', { a: 1 }, slow)));
    expect(same.map((o) => o.result)).toEqual([1, 1, 1, 1, 1]);
    expect(same.filter((o) => !o.replayed)).toHaveLength(1);
    const [first, second] = await Promise.allSettled([ledger.once('k2', { a: 1 }, slow), ledger.once('k2', { a: 2 }, slow)]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: expect.any(IdempotencyConflictError) });
    expect(runs).toBe(2);
  });

  it('keeps entries in the storage it is given (so a shared one can serve many processes)', async () => {
    const storage = new Map();
    await new IdempotencyLedger<string>(storage).once('k', { a: 1 }, () => 'first');
    expect(await new IdempotencyLedger<string>(storage).once('k', { a: 1 }, () => 'second')).toEqual({ result: 'first', replayed: true });
    expect(storage.get('k')).toEqual({ fingerprint: payloadFingerprint({ a: 1 }), result: 'first' });
  });
});
