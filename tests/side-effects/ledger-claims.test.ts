/**
 * IdempotencyLedger on every store's claims (`store.idempotency(namespace)`): the key is claimed in
 * the store before the action runs, so two ledgers sharing a store (two processes, as far as the
 * store can tell) run a key's side effect once; a holder that died lets its claim lapse, a live one
 * renews it. The same rows run on memory, SQLite (each driver), Redis and PostgreSQL.
 */
import { join } from 'node:path';
import {
  IdempotencyConflictError,
  IdempotencyInProgressError,
  IdempotencyLedger,
  InMemoryStore,
  InvalidIdError,
  PostgresStore,
  RedisStore,
  SqliteStore,
  StoreUnavailableError,
} from 'toolwright';
import { type IdempotencyClaims } from '../../src/stores';
import { useServers } from '../support/use-servers';
import { SQLITE_DRIVERS_HERE, driverSlug } from '../support/sqlite-drivers';

const servers = useServers('tw-ledger-claims-');
const dir = servers.dir;

type Claimable = { idempotency<T>(namespace?: string): IdempotencyClaims<T>; close(): Promise<void> };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const key = () => `key-${++n}-${Date.now()}`;

const sharedMemory = new InMemoryStore();
const stores: Array<[string, () => Claimable, boolean]> = [
  ['in-memory', () => sharedMemory, false],
  ...SQLITE_DRIVERS_HERE.map((driver): [string, () => Claimable, boolean] => [
    `sqlite (${driver})`,
    () => new SqliteStore({ path: join(dir, `claims-${driverSlug(driver)}.db`), driver }),
    true,
  ]),
  ['redis', () => new RedisStore({ url: servers.redis.url }), true],
  ['postgres', () => new PostgresStore({ connectionString: servers.postgres.connectionString }), true],
];
describe.each(stores)('IdempotencyLedger on %s claims', (_name, open, durable) => {
  let a: Claimable;
  let b: Claimable;
  beforeAll(() => {
    a = open();
    b = open(); // a second connection (another process, as far as the store can tell)
  });
  afterAll(async () => {
    if (a !== sharedMemory) await Promise.all([a.close(), b.close()]);
  });

  it('runs the action once when two ledgers on two connections call with one key at once; both get its result', async () => {
    let ran = 0;
    const k = key();
    const action = async () => {
      ran++;
      await sleep(150);
      return { refund: ran };
    };
    const [first, second] = await Promise.all([
      new IdempotencyLedger<{ refund: number }>(a.idempotency('refunds')).once(k, { order: 'A', cents: 100 }, action),
      new IdempotencyLedger<{ refund: number }>(b.idempotency('refunds')).once(k, { order: 'A', cents: 100 }, action),
    ]);
    expect(ran).toBe(1);
    expect([first.replayed, second.replayed].sort()).toEqual([false, true]);
    expect(first.result).toEqual({ refund: 1 });
    expect(second.result).toEqual({ refund: 1 });
  });

  it('refuses the key with another payload while it runs and after it ran', async () => {
    const k = key();
    const slow = new IdempotencyLedger<string>(a.idempotency('refunds')).once(k, { cents: 100 }, () => sleep(150).then(() => 'paid'));
    await sleep(30);
    const other = new IdempotencyLedger<string>(b.idempotency('refunds'));
    await expect(other.once(k, { cents: 999 }, () => 'again')).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(await slow).toEqual({ result: 'paid', replayed: false });
    await expect(other.once(k, { cents: 999 }, () => 'again')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('answers IDEMPOTENCY_IN_PROGRESS (409) to a call that waited its waitMs for a running key, having run nothing', async () => {
    const k = key();
    let ran = 0;
    const slow = new IdempotencyLedger<string>(a.idempotency('refunds')).once(k, {}, async () => {
      ran++;
      await sleep(400);
      return 'paid';
    });
    await sleep(30);
    const impatient = new IdempotencyLedger<string>(b.idempotency('refunds'), { waitMs: 50 });
    const error = await impatient.once(k, {}, () => `ran ${++ran}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyInProgressError);
    expect(error).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', status: 409 });
    expect(await slow).toEqual({ result: 'paid', replayed: false });
    expect(ran).toBe(1);
    // Asked again once it finished: the first result.
    expect(await impatient.once(k, {}, () => 'again')).toEqual({ result: 'paid', replayed: true });
  });

  it('renews a live holder’s claim while its action runs longer than the lease', async () => {
    const k = key();
    let ran = 0;
    const long = new IdempotencyLedger<string>(a.idempotency('refunds'), { leaseMs: 150 }).once(k, {}, async () => {
      ran++;
      await sleep(600);
      return 'paid';
    });
    await sleep(400); // past the lease: without renewal the claim would have lapsed
    const later = new IdempotencyLedger<string>(b.idempotency('refunds'), { leaseMs: 150, waitMs: 0 });
    await expect(later.once(k, {}, () => `ran ${++ran}`)).rejects.toBeInstanceOf(IdempotencyInProgressError);
    expect(await long).toEqual({ result: 'paid', replayed: false });
    expect(ran).toBe(1);
  });

  it('takes over a claim whose holder died (its lease lapsed) and runs the action', async () => {
    const k = key();
    const claims = a.idempotency<string>('refunds');
    expect(await claims.claim(k, 'f', 'dead-holder', 80)).toEqual({ state: 'claimed' });
    expect(await b.idempotency<string>('refunds').claim(k, 'f', 'other', 80)).toMatchObject({ state: 'pending' });
    await sleep(150);
    const ledger = new IdempotencyLedger<string>(b.idempotency('refunds'), { waitMs: 0 });
    // The fingerprint the dead holder claimed with is not this payload's: a lapsed claim is no conflict.
    expect(await ledger.once(k, { any: 1 }, () => 'ran')).toEqual({ result: 'ran', replayed: false });
    // The dead holder cannot complete or release what it no longer holds.
    expect(await claims.complete(k, 'dead-holder', { fingerprint: 'f', result: 'late' })).toBe(false);
    await claims.release(k, 'dead-holder');
    expect(await ledger.once(k, { any: 1 }, () => 'again')).toEqual({ result: 'ran', replayed: true });
  });

  it('gives the claim back when the action throws, so a retry runs it', async () => {
    const k = key();
    const ledger = new IdempotencyLedger<string>(a.idempotency('refunds'));
    await expect(
      ledger.once(k, {}, () => {
        throw new Error('card declined');
      }),
    ).rejects.toThrow('card declined');
    expect(await new IdempotencyLedger<string>(b.idempotency('refunds'), { waitMs: 0 }).once(k, {}, () => 'paid')).toEqual({
      result: 'paid',
      replayed: false,
    });
  });

  it('keeps namespaces apart, and results as JSON (text with NUL and lone surrogates exactly)', async () => {
    const k = key();
    const text = 'a\u0000b\ud800c';
    expect(await new IdempotencyLedger<object>(a.idempotency('refunds')).once(k, {}, () => ({ text, n: [1, null] }))).toMatchObject({
      replayed: false,
    });
    expect(await new IdempotencyLedger<object>(b.idempotency('refunds')).once(k, {}, () => ({}))).toEqual({
      result: { text, n: [1, null] },
      replayed: true,
    });
    expect(await new IdempotencyLedger<string>(b.idempotency('emails')).once(k, {}, () => 'sent')).toEqual({
      result: 'sent',
      replayed: false,
    });
  });

  it('refuses a key or namespace no store can keep exactly with InvalidIdError, running nothing', async () => {
    let ran = 0;
    await expect(new IdempotencyLedger<string>(a.idempotency('refunds')).once('bad\ud800key', {}, () => `${++ran}`)).rejects.toBeInstanceOf(
      InvalidIdError,
    );
    expect(() => a.idempotency('')).toThrow(InvalidIdError);
    expect(ran).toBe(0);
  });

  if (durable) {
    it('keeps a result across a new store instance (a restarted process)', async () => {
      const k = key();
      await new IdempotencyLedger<string>(a.idempotency('refunds')).once(k, {}, () => 'paid once');
      const reopened = open();
      try {
        expect(await new IdempotencyLedger<string>(reopened.idempotency('refunds')).once(k, {}, () => 'paid twice')).toEqual({
          result: 'paid once',
          replayed: true,
        });
      } finally {
        await reopened.close();
      }
    });
  }
});

it('a claim on a store that is down fails with STORE_UNAVAILABLE and runs nothing', async () => {
  const down = new RedisStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 300 });
  let ran = 0;
  try {
    await expect(new IdempotencyLedger<string>(down.idempotency('refunds')).once('k', {}, () => `${++ran}`)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  } finally {
    await down.close();
  }
  expect(ran).toBe(0);
});
