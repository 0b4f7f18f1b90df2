import { StoreUnavailableError } from '../../src/errors/errors';
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

  it('keeps a client passed in open on close', async () => {
    const Redis = (await import('ioredis')).default;
    const client = new Redis(server.url);
    const store = new RedisStore({ client, keyPrefix: 'own:' });
    await store.saveSession({ sessionId: 's' }, { set: { a: 1 }, deleted: [], appended: [] });
    await store.close();
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
