/**
 * A test file's Redis and PostgreSQL servers (real ones, on loopback) and its temp dir: started
 * before the file's tests, destroyed after. Read `servers.redis` / `servers.postgres` inside tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisAndPostgres, type PostgresServer, type RedisServer } from './servers';

export interface FileServers {
  readonly redis: RedisServer;
  readonly postgres: PostgresServer;
  readonly dir: string;
}

export function useServers(prefix: string): FileServers {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  beforeAll(async () => {
    [redis, postgres] = await startRedisAndPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all([redis?.destroy(), postgres?.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get redis() {
      return redis!;
    },
    get postgres() {
      return postgres!;
    },
    dir,
  };
}
