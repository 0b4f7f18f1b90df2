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
import { startRedisAndPostgres } from '../../tests/support/servers';
import { median, ms, num, print, table } from './scale';

/**
 * A realistic memory: words drawn from a Zipf distribution (rank r with probability ∝ 1/r) over a
 * vocabulary of 5,000 generated words, 8-12 words an entry, as natural text is. A query's words are
 * drawn from the same distribution leaving out the 20 most frequent (the stop-word band nobody
 * searches for), so a query term matches from a few entries to a few percent of them; one query
 * in five has a typo. Seeded, so every store and every run gets the same memory and queries.
 */
const VOCABULARY_SIZE = 5_000;
const SYLLABLES = 'ka lo mi ne su ta ri po de gu ba ve zo hi fa ju ce wy xo qu'.split(' ');
const VOCABULARY: string[] = [];
for (let i = 0; VOCABULARY.length < VOCABULARY_SIZE; i++) {
  // Distinct words of 2-4 syllables: i written in base 20, one syllable per digit.
  let word = '';
  for (let n = i + 20 * 21; n > 0; n = Math.floor(n / 20)) word += SYLLABLES[n % 20];
  VOCABULARY.push(word);
}
const HARMONIC: number[] = [];
for (let r = 1, sum = 0; r <= VOCABULARY_SIZE; r++) HARMONIC.push((sum += 1 / r));

function random(seed: number): () => number {
  // mulberry32
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Zipf-distributed rank (0-based) from `from` on. */
function zipf(next: () => number, from = 0): number {
  const lo = from ? HARMONIC[from - 1] : 0;
  const u = lo + next() * (HARMONIC[VOCABULARY_SIZE - 1] - lo);
  let a = from;
  let b = VOCABULARY_SIZE - 1;
  while (a < b) {
    const m = (a + b) >> 1;
    if (HARMONIC[m] < u) a = m + 1;
    else b = m;
  }
  return a;
}

export function sentence(i: number): string {
  const next = random(i + 1);
  const words: string[] = [];
  for (let n = 8 + Math.floor(next() * 5); n > 0; n--) words.push(VOCABULARY[zipf(next)]);
  return words.join(' ');
}

/** 20 queries of 1-3 words; every fifth has a typo (a letter dropped). */
export const QUERIES: string[] = (() => {
  const next = random(424242);
  const out: string[] = [];
  for (let q = 0; q < 20; q++) {
    const words: string[] = [];
    for (let n = 1 + Math.floor(next() * 3); n > 0; n--) words.push(VOCABULARY[zipf(next, 20)]);
    if (q % 5 === 4) words[0] = words[0].slice(0, 2) + words[0].slice(3);
    out.push(words.join(' '));
  }
  return out;
})();

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
  const [redis, postgres] = await startRedisAndPostgres();
  const stores: Array<[string, SessionStore]> = [
    ['in-memory', new InMemoryStore()],
    ['SQLite', new SqliteStore({ path: join(dir, 'state.db') })],
    ['Redis', new RedisStore({ url: redis.url, commandTimeoutMs: 30_000 })],
    ['PostgreSQL', new PostgresStore({ connectionString: postgres.connectionString, statementTimeoutMs: 30_000 })],
  ];
  const HISTORY = [1_000, 10_000];
  const MEMORY = process.env.SCALE_QUICK ? [10] : [10, 1_000, 10_000, 50_000];
  // SCALE_STORES=SQLite,PostgreSQL runs only those stores (for a quick look; the table wants all).
  const only = process.env.SCALE_STORES?.split(',');
  if (only) stores.splice(0, stores.length, ...stores.filter(([name, store]) => only.includes(name) || void store.close()));
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
      if (store instanceof PostgresStore) {
        // PostgreSQL keeps loaded history in the process and then reads only what was appended; a
        // load with a history window skips that cache: what the first load of a session in a process costs.
        const cold: Array<string | number> = ['PostgreSQL, not cached (first load in a process)'];
        for (const size of HISTORY)
          cold.push(ms(await median(() => store.loadSession({ sessionId: `h-${size}` }, { historyLimit: size }), { rounds: 7 })));
        load.push(cold);
      }

      const storeRow: Array<string | number> = [name, 'store.searchMemory'];
      const toolRow: Array<string | number> = [name, 'load + memory.search'];
      const runRow: Array<string | number> = [name];
      for (const size of MEMORY) {
        const userId = `m-${size}`;
        await seedMemory(store, userId, size);
        const key = { agentName: 'bench', userId };
        const queries = QUERIES;
        storeRow.push(ms(await median((i) => store.searchMemory!(key, queries[i % queries.length]), { rounds: 9, batch: queries.length })));
        toolRow.push(
          ms(
            await median(async (i) => AgentMemory.fromSnapshot((await store.loadMemory(key))!).search(queries[i % queries.length]), {
              rounds: 5,
              batch: 4,
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
      'Memory search vs memory size, mean of 20 queries, median of 9 rounds (target: under 10 ms at 50,000 on SQLite and PostgreSQL)',
      ['store', 'how', ...MEMORY.map((m) => `${num(m)} entries (ms)`)],
      search,
    ),
  );
  print(
    table('A run that never touches memory vs memory size (target: flat)', ['store', ...MEMORY.map((m) => `${num(m)} entries (ms)`)], runs),
  );
}

if (require.main === module) void main();
