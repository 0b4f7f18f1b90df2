/**
 * A hostile memory search: `npx ts-node --transpile-only bench/memory-query.bench.ts [--no-servers]`.
 * A memory of 3,000 alike words (300 entries) searched with 1,500 near-miss words (15 KB), each
 * within the typo distance of about 30 of them: the case MEMORY_QUERY_LIMITS bounds. Prints the
 * median of 5 searches per store (ms), or the error a search failed with. Starts its own
 * redis-server and PostgreSQL (tests/support/servers.ts) unless --no-servers.
 */
import { AgentMemory } from '../src/session/agent-memory';
import { InMemoryStore } from '../src/stores/in-memory.store';
import { PostgresStore } from '../src/stores/postgres.store';
import { RedisStore } from '../src/stores/redis.store';
import { SqliteStore } from '../src/stores/sqlite.store';
import type { SessionStore } from '../src/stores/store';
import { startRedisAndPostgres } from '../tests/support/servers';

const word = (i: number) => `order${String(i).padStart(4, '0')}`;
const QUERY = Array.from({ length: 1_500 }, (_, i) => `ordex${String(i).padStart(4, '0')}`).join(' ');

async function measure(name: string, store: SessionStore): Promise<string> {
  const key = { agentName: 'bench', userId: `u-${Date.now()}` };
  const memory = new AgentMemory(key);
  for (let e = 0; e < 300; e++) memory.remember(Array.from({ length: 10 }, (_, j) => word(e * 10 + j)).join(' '));
  await store.saveMemory(key, memory.takeChanges());
  const times: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await store.searchMemory!(key, QUERY);
      times.push(performance.now() - start);
    }
  } catch (error) {
    return `| ${name} | ${(error as Error).message.slice(0, 80)} |`;
  } finally {
    await store.deleteMemory(key);
  }
  times.sort((a, b) => a - b);
  return `| ${name} | ${times[2].toFixed(1)} |`;
}

async function main(): Promise<void> {
  const rows = ['| store | store.searchMemory, 1,500 near-miss words, median of 5 (ms) |', '|---|---:|'];
  rows.push(await measure('in-memory', new InMemoryStore()));
  const sqlite = new SqliteStore({ path: ':memory:' });
  rows.push(await measure('SQLite', sqlite));
  await sqlite.close();
  if (!process.argv.includes('--no-servers')) {
    const [redis, postgres] = await startRedisAndPostgres();
    try {
      const r = new RedisStore({ url: redis.url });
      rows.push(await measure('Redis', r));
      await r.close();
      const p = new PostgresStore({ connectionString: postgres.connectionString });
      rows.push(await measure('PostgreSQL', p));
      await p.close();
    } finally {
      await Promise.all([redis.destroy(), postgres.destroy()]);
    }
  }
  console.log(rows.join('\n'));
}

void main();
