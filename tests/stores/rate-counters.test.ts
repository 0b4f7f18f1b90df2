/**
 * RateCounters conformance on every store: counts within a window, new windows, independence of
 * keys and namespaces, atomic concurrent hits, counts shared by instances and kept across
 * reconnects, key and window checks, and a store that is down.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidIdError, StoreUnavailableError, ToolwrightConfigError } from '../../src/errors/errors';
import type { RateCounters } from '../../src/side-effects/rate-counters';
import { InMemoryStore, PostgresStore, RedisStore, SqliteStore } from '../../src/stores';
import { freePort, startPostgres, startRedis, type PostgresServer, type RedisServer } from '../support/servers';
import type { RateWorkerArgs } from '../support/rate-worker';
import { SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';
import { runWorkers } from '../support/workers';

jest.setTimeout(60_000);

interface RateStore {
  rateCounters(namespace?: string): RateCounters;
  close(): Promise<void>;
}

interface Kind {
  name: string;
  /** A store on the kind's database; a second call is another instance on the same one (a replica). */
  open(): RateStore;
  shared: boolean;
  /** How a child process opens a store on the same database. */
  worker?: () => Pick<RateWorkerArgs, 'kind' | 'target' | 'driver'>;
  /** A store whose server cannot be reached. */
  down?: () => Promise<RateStore>;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let redis: RedisServer | undefined;
let postgres: PostgresServer | undefined;
let dir = '';

const memory = new InMemoryStore();
const kinds: Kind[] = [
  { name: 'memory', open: () => memory, shared: false },
  ...SQLITE_DRIVERS_HERE.map((driver): Kind => ({
    name: `sqlite (${driver})`,
    shared: true,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'tw-rate-'));
    },
    teardown: async () => rmSync(dir, { recursive: true, force: true }),
    open: () => new SqliteStore({ path: join(dir, 'state.db'), driver }),
    worker: () => ({ kind: 'sqlite', target: join(dir, 'state.db'), driver }),
    // A file where its directory should be: the database cannot be opened.
    down: async () => {
      writeFileSync(join(dir, 'not-a-dir'), '');
      return new SqliteStore({ path: join(dir, 'not-a-dir', 'state.db'), driver });
    },
  })),
  {
    name: 'redis',
    shared: true,
    setup: async () => {
      redis = await startRedis();
    },
    teardown: async () => redis?.destroy(),
    open: () => new RedisStore({ url: redis!.url }),
    worker: () => ({ kind: 'redis', target: redis!.url }),
    down: async () => new RedisStore({ port: await freePort(), commandTimeoutMs: 500 }),
  },
  {
    name: 'postgres',
    shared: true,
    setup: async () => {
      postgres = await startPostgres();
    },
    teardown: async () => postgres?.destroy(),
    open: () => new PostgresStore({ connectionString: postgres!.connectionString }),
    worker: () => ({ kind: 'postgres', target: postgres!.connectionString }),
    down: async () =>
      new PostgresStore({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`, statementTimeoutMs: 1000 }),
  },
];

describe.each(kinds)('RateCounters on $name', (kind) => {
  let store: RateStore;
  const opened: RateStore[] = [];
  const open = () => {
    const s = kind.open();
    opened.push(s);
    return s;
  };
  // A fresh key per test: the windows of earlier tests never count.
  let n = 0;
  const fresh = () => `k${++n}-${Date.now()}`;

  beforeAll(async () => {
    await kind.setup?.();
    store = open();
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await kind.teardown?.();
  });

  it('counts 1..n within a window, with the ms until it ends', async () => {
    const rate = store.rateCounters();
    const key = fresh();
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const hit = await rate.hit(key, 3_600_000);
      counts.push(hit.count);
      expect(hit.resetMs).toBeGreaterThan(0);
      expect(hit.resetMs).toBeLessThanOrEqual(3_600_000);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5]);
  });

  it('starts a new window at 1', async () => {
    const rate = store.rateCounters();
    const key = fresh();
    const first = await rate.hit(key, 200);
    await rate.hit(key, 200);
    await sleep(first.resetMs + 250);
    expect((await rate.hit(key, 200)).count).toBe(1);
  });

  it('keeps keys, window lengths and namespaces apart', async () => {
    const key = fresh();
    const a = store.rateCounters('a');
    const b = store.rateCounters('b');
    await a.hit(key, 60_000);
    await a.hit(key, 60_000);
    expect((await a.hit(`${key}-other`, 60_000)).count).toBe(1);
    expect((await b.hit(key, 60_000)).count).toBe(1);
    expect((await a.hit(key, 120_000)).count).toBe(1);
    expect((await a.hit(key, 60_000)).count).toBe(3);
  });

  it('gives 50 concurrent hits on one key the counts 1..50', async () => {
    const rate = store.rateCounters();
    const key = fresh();
    const hits = await Promise.all(Array.from({ length: 50 }, () => rate.hit(key, 3_600_000)));
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('takes keys with odd characters', async () => {
    const rate = store.rateCounters('__proto__');
    for (const key of ['__proto__', 'constructor', 'user:42:tool', 'ключ-🔑-é', '{tag}', ' ']) {
      expect((await rate.hit(`${key}${n}`, 60_000)).count).toBe(1);
      expect((await rate.hit(`${key}${n}`, 60_000)).count).toBe(2);
    }
  });

  it('refuses an over-long or empty key and a bad windowMs, typed', async () => {
    const rate = store.rateCounters();
    await expect(rate.hit('x'.repeat(513), 1000)).rejects.toBeInstanceOf(InvalidIdError);
    await expect(rate.hit('', 1000)).rejects.toBeInstanceOf(InvalidIdError);
    for (const windowMs of [0, -1, 1.5, NaN, Infinity, '1000' as unknown as number])
      await expect(rate.hit(fresh(), windowMs)).rejects.toBeInstanceOf(ToolwrightConfigError);
    expect(() => store.rateCounters('')).toThrow(InvalidIdError);
  });

  if (kind.shared) {
    it('shares counts between two instances, and keeps them across a reconnect', async () => {
      const key = fresh();
      const other = open();
      const both = [store.rateCounters(), other.rateCounters()];
      const hits = await Promise.all(Array.from({ length: 20 }, (_, i) => both[i % 2].hit(key, 3_600_000)));
      expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      await other.close();
      const again = open();
      expect((await again.rateCounters().hit(key, 3_600_000)).count).toBe(21);
    });
  }

  if (kind.worker) {
    it('gives two processes hitting one key 25 times each the counts 1..50 between them', async () => {
      const key = fresh();
      const outputs = await runWorkers(
        join(__dirname, '../support/rate-worker.ts'),
        ['a', 'b'].map((worker): RateWorkerArgs => ({ ...kind.worker!(), key, hits: 25, worker })),
      );
      const counts = outputs.flatMap((o) => o.lines.filter((l) => l.startsWith('count ')).map((l) => Number(l.slice(6))));
      expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect((await store.rateCounters('mp').hit(key, 3_600_000)).count).toBe(51);
    });
  }

  if (kind.down) {
    it('answers StoreUnavailableError when the store is down', async () => {
      const down = await kind.down!();
      opened.push(down);
      await expect(down.rateCounters().hit('k', 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  }
});
