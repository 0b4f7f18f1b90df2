/**
 * Issue 13 rows 3, 4 and 6: per store, (a) loading a session's history vs its length, (b) a
 * memory search vs the memory's size (through the store, and through an AgentMemory loaded from
 * it: what a tool's `memory.search` costs), and (c) a run that never touches memory vs the
 * memory's size. Starts its own redis-server and PostgreSQL (tests/support/servers.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../../src/agent/agent';
import { ScriptedModel } from '../../src/agent/models/scripted.model';
import { AgentContext } from '../../src/session/agent-context';
import { AgentMemory } from '../../src/session/agent-memory';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import { startPostgres, startRedis } from '../../tests/support/servers';
import { median, ms, num, print, table } from './scale';

const WORDS = (
  'refund order shipping invoice email phone address delivery warehouse kettle laptop coupon discount account password ' +
  'subscription renewal cancel upgrade support ticket weekend morning evening express standard parcel courier oslo bergen paris ' +
  'london berlin madrid rome tokyo prefers likes dislikes allergic vegetarian birthday anniversary manager colleague'
).split(' ');

function sentence(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13 + ((i >> 3) % 5)) % WORDS.length];
  return `customer ${w(0)} ${w(1)} note ${i} about ${w(2)} and ${w(3)} ${w(4)}`;
}

async function seedMemory(store: SessionStore, userId: string, size: number): Promise<void> {
  const key = { agentName: 'bench', userId };
  for (let from = 0; from < size; from += 10_000) {
    const memory = new AgentMemory(key);
    for (let i = from; i < Math.min(size, from + 10_000); i++) memory.remember(sentence(i), i % 3 ? 'fact' : 'general');
    await store.saveMemory(key, memory.takeChanges());
  }
}

async function seedHistory(store: SessionStore, sessionId: string, size: number): Promise<void> {
  const ctx = new AgentContext({ sessionId });
  for (let i = 0; i < size; i++) ctx.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `${sentence(i)} ${'x'.repeat(60)}` });
  await store.saveSession({ sessionId }, ctx.takeChanges());
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tw-scale-'));
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  const stores: Array<[string, SessionStore]> = [
    ['in-memory', new InMemoryStore()],
    ['SQLite', new SqliteStore({ path: join(dir, 'state.db') })],
    ['Redis', new RedisStore({ url: redis.url, commandTimeoutMs: 30_000 })],
    ['PostgreSQL', new PostgresStore({ connectionString: postgres.connectionString, statementTimeoutMs: 30_000 })],
  ];
  const HISTORY = [1_000, 10_000];
  const MEMORY = process.env.SCALE_QUICK ? [10] : [10, 1_000, 10_000, 50_000];
  const load: Array<Array<string | number>> = [];
  const search: Array<Array<string | number>> = [];
  const runs: Array<Array<string | number>> = [];
  try {
    for (const [name, store] of stores) {
      const loadRow: Array<string | number> = [name];
      for (const size of HISTORY) {
        await seedHistory(store, `h-${size}`, size);
        loadRow.push(ms(await median(() => store.loadSession({ sessionId: `h-${size}` }), { rounds: 7 })));
      }
      load.push(loadRow);

      const storeRow: Array<string | number> = [name, 'store.searchMemory'];
      const toolRow: Array<string | number> = [name, 'load + memory.search'];
      const runRow: Array<string | number> = [name];
      for (const size of MEMORY) {
        const userId = `m-${size}`;
        await seedMemory(store, userId, size);
        const key = { agentName: 'bench', userId };
        const queries = ['refund kettle', 'express shipping oslo', 'allergic vegetarian', 'birthdy', 'coupon discount weekend'];
        storeRow.push(ms(await median((i) => store.searchMemory!(key, queries[i % queries.length]!), { rounds: 9, batch: 5 })));
        toolRow.push(
          ms(
            await median(async (i) => AgentMemory.fromSnapshot((await store.loadMemory(key))!).search(queries[i % queries.length]!), {
              rounds: 5,
            }),
          ),
        );
        // A run whose tools and instructions read no memory: one model turn, one save.
        const agent = new Agent({ name: 'bench', model: new ScriptedModel(() => ({ text: 'ok' })), tools: [], store });
        runRow.push(ms(await median((i) => agent.run('hello', { sessionId: `r-${size}-${i}`, userId }), { rounds: 9, batch: 3 })));
      }
      search.push(storeRow, toolRow);
      runs.push(runRow);
    }
  } finally {
    for (const [, store] of stores) await store.close();
    await Promise.all([redis.destroy(), postgres.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  }
  print(
    table(
      'Session load vs history length (target: PostgreSQL 10,000 within 2× SQLite)',
      ['store', ...HISTORY.map((h) => `${num(h)} messages (ms)`)],
      load,
    ),
  );
  print(
    table(
      'Memory search vs memory size, median of 5 queries (target: under 10 ms at 50,000 on SQLite and PostgreSQL)',
      ['store', 'how', ...MEMORY.map((m) => `${num(m)} entries (ms)`)],
      search,
    ),
  );
  print(
    table('A run that never touches memory vs memory size (target: flat)', ['store', ...MEMORY.map((m) => `${num(m)} entries (ms)`)], runs),
  );
}

void main();
