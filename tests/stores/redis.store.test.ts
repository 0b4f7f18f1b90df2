import { StoreLimitError, StoreUnavailableError } from '../../src/errors/errors';
import { RedisStore } from '../../src/stores/redis.store';
import { freePort, startRedis, type RedisServer } from '../support/servers';
import { killMidWrite } from './crash-consistency';
import { describeStoreConformance } from './store-conformance';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.destroy();
});

describeStoreConformance('redis', (o) => new RedisStore({ url: server.url, keyPrefix: `tw-test-${process.pid}:`, ...o }), {
  ttl: true,
  residue: async () => {
    const Redis = (await import('ioredis')).default;
    const raw = new Redis(server.url);
    try {
      return (await raw.keys(`tw-test-${process.pid}:*`)).length;
    } finally {
      raw.disconnect();
    }
  },
});

describe('RedisStore', () => {
  it('puts the TTL on every key of a session', async () => {
    const store = new RedisStore({ port: server.port, sessionTtlSeconds: 60 });
    const key = { sessionId: 'ttl-keys', tenantId: 't' };
    await store.saveSession(key, { set: { a: 1 }, deleted: [], appended: [{ role: 'user', content: 'hi' }] });
    const Redis = (await import('ioredis')).default;
    const raw = new Redis(server.url);
    try {
      for (const k of store.sessionKeys(key)) {
        const ttl = await raw.pttl(k);
        expect(ttl).toBeGreaterThan(50_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('a save larger than the server accepts fails with StoreLimitError saying what was too large, and the store keeps serving', async () => {
    const own = await startRedis();
    const Redis = (await import('ioredis')).default;
    const admin = new Redis(own.url);
    await admin.config('SET', 'proto-max-bulk-len', String(1024 * 1024));
    admin.disconnect();
    const store = new RedisStore({ url: own.url });
    try {
      const big = { role: 'user' as const, content: 'x'.repeat(1_500_000) };
      const error = await store
        .saveSession({ sessionId: 'big' }, { set: {}, deleted: [], appended: [{ role: 'user', content: 'hi' }, big] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreLimitError);
      expect((error as StoreLimitError).code).toBe('STORE_LIMIT');
      expect((error as Error).message).toMatch(/a session save of 2 messages \(largest 1\.4 MB\)/);
      // Redis closes the connection on a refused bulk; the store reconnects and serves again, with nothing half-written.
      let loaded: unknown = 'not yet';
      for (let i = 0; i < 50 && loaded === 'not yet'; i++) {
        loaded = await store.loadSession({ sessionId: 'big' }).catch(() => new Promise((r) => setTimeout(() => r('not yet'), 100)));
      }
      expect(loaded).toBeUndefined();
      await expect(store.saveSession({ sessionId: 'small' }, { set: { a: 1 }, deleted: [], appended: [] })).resolves.toBe(1);
    } finally {
      await store.close();
      await own.destroy();
    }
  });

  it('a memory saved before generation ids is read whole on every load, then cached once a save gives it one', async () => {
    const prefix = `tw-legacy-${process.pid}:`;
    const [a, b] = [new RedisStore({ url: server.url, keyPrefix: prefix }), new RedisStore({ url: server.url, keyPrefix: prefix })];
    const Redis = (await import('ioredis')).default;
    const raw = new Redis(server.url);
    const key = { agentName: 'a', userId: 'legacy' };
    const meta = `${prefix}memory:{${JSON.stringify(['', 'a', 'legacy'])}}:meta`;
    const entry = (content: string) => ({ id: content, type: 'fact', content, createdAt: '2026-01-01' });
    const contents = async (store: RedisStore) => (await store.loadMemory(key))!.entries.map((e) => e.content);
    try {
      await a.saveMemory(key, { added: [entry('one'), entry('two')] });
      expect(await raw.hdel(meta, 'gen')).toBe(1); // as an earlier version wrote it
      expect(await contents(a)).toEqual(['one', 'two']);
      // Another process deletes it and writes as many entries with an earlier version: no generation to compare.
      await b.deleteMemory(key);
      await b.saveMemory(key, { added: [entry('three'), entry('four')] });
      await raw.hdel(meta, 'gen');
      expect(await contents(a)).toEqual(['three', 'four']);
      await a.saveMemory(key, { added: [entry('five')] });
      expect(await raw.hget(meta, 'gen')).toEqual(expect.any(String));
      expect(await contents(a)).toEqual(['three', 'four', 'five']);
      await b.saveMemory(key, { added: [entry('six')] });
      expect(await contents(a)).toEqual(['three', 'four', 'five', 'six']);
    } finally {
      raw.disconnect();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('keeps a client passed in open on close', async () => {
    const Redis = (await import('ioredis')).default;
    const client = new Redis(server.url);
    const appListener = () => undefined;
    client.on('error', appListener);
    const store = new RedisStore({ client, keyPrefix: 'own:' });
    // The store listens too (else ioredis logs every connection error: tests/stores/outage.test.ts).
    expect(client.listeners('error')).toHaveLength(2);
    await store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] });
    await store.close();
    expect(client.listeners('error')).toEqual([appListener]);
    await expect(client.ping()).resolves.toBe('PONG');
    client.disconnect();
  });

  it('fails with StoreUnavailableError when nothing listens on the port', async () => {
    const store = new RedisStore({ port: await freePort(), commandTimeoutMs: 500 });
    try {
      for (const call of [
        () => store.loadSession({ sessionId: 's' }),
        () => store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] }),
        () => store.loadMemory({ agentName: 'a', userId: 'u' }),
      ]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect((err as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      }
    } finally {
      await store.close();
    }
  });

  it('fails typed when the server is killed mid-write, and holds only whole turns after a restart', async () => {
    const own = await startRedis();
    const store = new RedisStore({ url: own.url });
    try {
      await killMidWrite(store, own);
    } finally {
      await store.close();
      await own.destroy();
    }
  });
});
