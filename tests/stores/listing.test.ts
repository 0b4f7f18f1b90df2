/** `listSessions` / `listMemories` on all four stores: the same suite, real Redis and PostgreSQL servers. */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import { freePort } from '../support/servers';
import { useServers } from '../support/use-servers';
import { describeListing } from './listing-conformance';

const servers = useServers('tw-listing-');

describeListing('in-memory', () => new InMemoryStore());

describeListing(
  'sqlite',
  () => new SqliteStore({ path: join(servers.dir, 'state.db') }),
  () => {
    // A regular file where a folder must be: the database cannot open.
    const file = join(servers.dir, `a-file-${randomUUID()}`);
    writeFileSync(file, 'x');
    return new SqliteStore({ path: join(file, 'state.db') });
  },
);

describeListing(
  'redis',
  () => new RedisStore({ url: servers.redis.url, keyPrefix: `tw-list-${process.pid}:` }),
  async () => new RedisStore({ port: await freePort(), commandTimeoutMs: 500 }),
);

describeListing(
  'postgres',
  () => new PostgresStore({ connectionString: servers.postgres.connectionString }),
  async () => new PostgresStore({ connectionString: `postgresql://postgres@127.0.0.1:${await freePort()}/postgres` }),
);
