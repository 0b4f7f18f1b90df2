/**
 * StoreChannels (`store.channels`) on every store: Redis PUBLISH/SUBSCRIBE, PostgreSQL
 * NOTIFY/LISTEN and SQLite's table of recent messages between store instances (as two processes
 * would have: the SQLite ones on one file), in process for the in-memory store and a private
 * SQLite database. Real servers; an outage is a stopped server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { StoreLimitError, StoreUnavailableError } from '../../src/errors/errors';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore, StoreChannels } from '../../src/stores/store';
import type { SqliteConnection, SqliteDriverName } from '../../src/stores/sqlite/driver';
import { SQLITE_DRIVERS_HERE } from '../support/sqlite-drivers';
import { startPostgres, startRedis, type TestServer } from '../support/servers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `done()`; the test's timeout bounds it. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(10);
}

interface Backend {
  /** A store in `namespace` (key prefix, schema): two calls with the same one share the backend's channels. */
  make(namespace?: string): SessionStore;
  /** In-process stores: both sides are one instance. */
  single: boolean;
  server?: TestServer;
  cleanup?: () => void;
}

/** Each row: its name, how to start it, and for SQLite the driver (a row per driver this Node has). */
const backends: Array<[string, () => Promise<Backend>, SqliteDriverName?]> = [
  [
    'in-memory',
    async () => {
      const store = new InMemoryStore();
      return { make: () => store, single: true };
    },
  ],
  ...SQLITE_DRIVERS_HERE.flatMap((driver): Array<[string, () => Promise<Backend>, SqliteDriverName]> => [
    [
      `sqlite (:memory:, ${driver})`,
      async () => {
        const store = new SqliteStore({ driver, path: ':memory:' });
        return { make: () => store, single: true };
      },
      driver,
    ],
    [
      `sqlite (file, ${driver})`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tw-channels-'));
        return {
          make: (namespace = 'shared') => new SqliteStore({ driver, path: join(dir, `${namespace}.db`) }),
          single: false,
          cleanup: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
      driver,
    ],
  ]),
  [
    'redis',
    async () => {
      const server = await startRedis();
      return { make: (namespace = 'tw-channels:') => new RedisStore({ url: server.url, keyPrefix: namespace }), single: false, server };
    },
  ],
  [
    'postgres',
    async () => {
      const server = await startPostgres();
      return {
        make: (namespace = 'tw_channels') => new PostgresStore({ connectionString: server.connectionString, schema: namespace }),
        single: false,
        server,
      };
    },
  ],
];

function channelsOf(store: SessionStore): StoreChannels {
  expect(store.channels).toBeDefined();
  return store.channels!;
}

/** Subscribes and keeps what arrives. */
async function listen(store: SessionStore, channel: string) {
  const messages: string[] = [];
  const errors: unknown[] = [];
  const unsubscribe = await channelsOf(store).subscribe(
    channel,
    (m) => messages.push(m),
    (e) => errors.push(e),
  );
  return { messages, errors, unsubscribe };
}

describe.each(backends)('StoreChannels on the %s store', (kind, start, driver) => {
  const sqliteFile = kind.startsWith('sqlite (file');
  let backend: Backend;
  const stores: SessionStore[] = [];
  const make = (namespace?: string) => {
    const store = backend.make(namespace);
    if (!stores.includes(store)) stores.push(store);
    return store;
  };

  beforeAll(async () => {
    backend = await start();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await backend.server?.destroy();
    backend.cleanup?.();
  });

  it('delivers every message unchanged and in order to every subscriber, in every instance (property)', async () => {
    const publisher = make();
    const [a, b] = [await listen(make(), 'prop'), await listen(make(), 'prop')];
    const text = fc.string({ unit: 'binary', maxLength: 200 }).filter((s) => !s.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 8 }), async (messages) => {
        a.messages.length = 0;
        b.messages.length = 0;
        for (const m of messages) await channelsOf(publisher).publish('prop', m);
        await until(() => a.messages.length >= messages.length && b.messages.length >= messages.length);
        expect(a.messages).toEqual(messages);
        expect(b.messages).toEqual(messages);
      }),
      { numRuns: 15 },
    );
    await a.unsubscribe();
    await b.unsubscribe();
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('an unsubscribed listener hears nothing more; the others on the channel still do', async () => {
    const gone = await listen(make(), 'unsub');
    const staying = await listen(make(), 'unsub');
    await gone.unsubscribe();
    await gone.unsubscribe(); // twice is harmless
    await channelsOf(make()).publish('unsub', 'after');
    await until(() => staying.messages.length === 1);
    expect(staying.messages).toEqual(['after']);
    expect(gone.messages).toEqual([]);
    await staying.unsubscribe();
  });

  it('a message of 7,999 UTF-8 bytes travels; a larger one, NUL or an unpaired surrogate is refused (StoreLimitError); a bad channel name is INVALID_CONFIG', async () => {
    const heard = await listen(make(), 'limits');
    const largest = '€'.repeat(2666) + 'a';
    expect(Buffer.byteLength(largest)).toBe(7999);
    const channels = channelsOf(make());
    await channels.publish('limits', largest);
    for (const refused of [largest + 'a', 'a\u0000b', 'a\uD800b', '\uDC00']) {
      await expect(channels.publish('limits', refused)).rejects.toBeInstanceOf(StoreLimitError);
    }
    for (const name of ['', 'has space', 'x'.repeat(41), 'quote"d', "it's"]) {
      await expect(channels.publish(name, 'x')).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
      await expect(channels.subscribe(name, () => undefined)).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    }
    await channels.publish('limits', 'last');
    await until(() => heard.messages.length === 2);
    expect(heard.messages).toEqual([largest, 'last']);
    await heard.unsubscribe();
  });

  const shared = kind === 'redis' || kind === 'postgres' || sqliteFile;

  it(
    shared ? 'channels of one name are separate per key prefix / schema' : 'another store instance hears nothing (one store, one process)',
    async () => {
      const otherStore = shared
        ? make(kind === 'redis' ? 'tw-other:' : 'tw_other')
        : driver
          ? new SqliteStore({ driver, path: ':memory:' })
          : new InMemoryStore();
      const here = await listen(make(), 'ns');
      const there = await listen(otherStore, 'ns');
      await channelsOf(make()).publish('ns', 'for here');
      await channelsOf(otherStore).publish('ns', 'for there');
      // Each listener receives in publish order: "for here" would have come first.
      await until(() => here.messages.length === 1 && there.messages.length === 1);
      expect(here.messages).toEqual(['for here']);
      expect(there.messages).toEqual(['for there']);
      await here.unsubscribe();
      await there.unsubscribe();
    },
  );

  if (sqliteFile) {
    it('a message published in one process reaches a subscriber in another, and one in the publishing process, once each', async () => {
      const [publisher, local, remote] = [make(), make(), make()];
      const here = await listen(publisher, 'both');
      const there = await listen(remote, 'both');
      const alsoHere = await listen(local, 'both');
      for (let i = 0; i < 5; i++) await channelsOf(publisher).publish('both', `m${i}`);
      const all = ['m0', 'm1', 'm2', 'm3', 'm4'];
      await until(() => here.messages.length === 5 && there.messages.length === 5 && alsoHere.messages.length === 5);
      await sleep(100); // nothing more arrives (no message twice)
      expect([here.messages, there.messages, alsoHere.messages]).toEqual([all, all, all]);
      for (const l of [here, there, alsoHere]) await l.unsubscribe();
    });

    it('keeps at most the last 256 messages, none older than a minute, in the file', async () => {
      const store = make();
      for (let i = 0; i < 300; i++) await channelsOf(store).publish('kept', `m${i}`);
      const db = (store as unknown as { db(): SqliteConnection }).db();
      const kept = db.prepare('SELECT message FROM channel_messages ORDER BY id', 'pluck').all() as string[];
      expect(kept.length).toBeLessThanOrEqual(256);
      expect(kept[kept.length - 1]).toBe('m299');
      db.prepare('UPDATE channel_messages SET at = at - 61000').run();
      await channelsOf(store).publish('kept', 'last');
      expect(db.prepare('SELECT message FROM channel_messages', 'pluck').all()).toEqual(['last']);
    });

    it('a subscriber hears only what is published after it subscribed, and nothing after it unsubscribed or its store closed', async () => {
      const publisher = make();
      await channelsOf(publisher).publish('late', 'before');
      const late = make();
      const heard = await listen(late, 'late');
      await channelsOf(publisher).publish('late', 'after');
      await until(() => heard.messages.length === 1);
      await late.close();
      await channelsOf(publisher).publish('late', 'closed');
      await sleep(150);
      expect(heard.messages).toEqual(['after']);
    });
    it('a file that cannot be opened: publish fails typed, a subscriber hears of it once, and listens once the file opens', async () => {
      const where = join(mkdtempSync(join(tmpdir(), 'tw-channels-down-')), 'not-a-dir');
      writeFileSync(where, 'a file where the folder should be');
      const path = join(where, 'state.db');
      const store = new SqliteStore({ driver, path });
      const heard = await listen(store, 'down');
      expect(heard.errors).toHaveLength(1);
      expect(heard.errors[0]).toBeInstanceOf(StoreUnavailableError);
      await expect(channelsOf(store).publish('down', 'lost')).rejects.toBeInstanceOf(StoreUnavailableError);
      await sleep(100);
      expect(heard.errors).toHaveLength(1);
      rmSync(where);
      mkdirSync(where);
      const other = new SqliteStore({ driver, path });
      try {
        while (heard.messages.length === 0) {
          await channelsOf(other).publish('down', 'back');
          await sleep(50);
        }
        expect(heard.messages[0]).toBe('back');
        expect(heard.errors).toHaveLength(1);
      } finally {
        await heard.unsubscribe();
        await Promise.all([store.close(), other.close()]);
        rmSync(dirname(where), { recursive: true, force: true });
      }
    });
    return;
  }

  if (!shared) return;

  it('closing a store with a live subscription ends the listening connection', async () => {
    const store = make(kind === 'redis' ? 'tw-closing:' : 'tw_closing');
    const probe = make();
    /** Connections listening on the channel, as the server sees them. */
    const listening = async (): Promise<number> => {
      if (kind === 'redis') {
        const raw = (probe as unknown as { client: import('ioredis').default }).client;
        const [, count] = (await raw.pubsub('NUMSUB', 'tw-closing:channel:closing')) as [string, number];
        return Number(count);
      }
      const pool = (probe as unknown as { pool: import('pg').Pool }).pool;
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'LISTEN "tw_closing.closing"'`);
      return (rows[0] as { n: number }).n;
    };
    await listen(store, 'closing');
    expect(await listening()).toBe(1);
    // PostgreSQL: a pool does not end while a client is checked out, so this would hang if the listener were kept.
    await store.close();
    let count = await listening();
    while (count > 0) count = await listening(); // the server notices a closed connection asynchronously
    expect(count).toBe(0);
  });

  it('a backend that goes down: publish fails typed, each subscriber hears of the outage once, and listening resumes when it is back', async () => {
    const server = backend.server!;
    const subscriber = make();
    const publisher = make();
    const heard = await listen(subscriber, 'outage');
    await server.stop();
    await expect(channelsOf(publisher).publish('outage', 'lost')).rejects.toBeInstanceOf(StoreUnavailableError);
    await until(() => heard.errors.length > 0);
    expect(heard.errors[0]).toBeInstanceOf(StoreUnavailableError);
    // A subscriber joining during the outage is told at once.
    const joining = await listen(subscriber, 'outage-joined');
    expect(joining.errors).toHaveLength(1);
    expect(joining.errors[0]).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await server.start();
    // Listening is renewed in the background: publish until it is heard again.
    while (heard.messages.length === 0) {
      await channelsOf(publisher)
        .publish('outage', 'back')
        .catch(() => undefined);
      await sleep(50);
    }
    expect(heard.messages[0]).toBe('back');
    expect(heard.errors).toHaveLength(1);
    // The channel subscribed during the outage listens too.
    await channelsOf(publisher).publish('outage-joined', 'joined');
    await until(() => joining.messages.length === 1);
    expect(joining.errors).toHaveLength(1);
    await heard.unsubscribe();
    await joining.unsubscribe();
  }, 60_000);

  it('subscribing while the backend is down resolves at once, reports the outage, and listens once it is back', async () => {
    const server = backend.server!;
    await server.stop();
    const heard = await listen(make(kind === 'redis' ? 'tw-late:' : 'tw_late'), 'late');
    expect(heard.errors).toHaveLength(1);
    expect(heard.errors[0]).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await server.start();
    const late = make(kind === 'redis' ? 'tw-late:' : 'tw_late');
    while (heard.messages.length === 0) {
      await channelsOf(late)
        .publish('late', 'back')
        .catch(() => undefined);
      await sleep(50);
    }
    expect(heard.messages[0]).toBe('back');
    expect(heard.errors).toHaveLength(1);
    await heard.unsubscribe();
  }, 60_000);
});
