/**
 * SqliteStore on each SQLite driver this Node has, same workload, side by side:
 * `npx ts-node --transpile-only bench/sqlite-drivers.bench.ts [--rounds=3]`.
 * The drivers alternate round by round (the order rotates), each on its own file; the table gives
 * the median over the rounds. Run it once per Node (20: better-sqlite3 only; 24: both).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory } from '../src/session/agent-memory';
import { SqliteStore } from '../src/stores/sqlite.store';
import type { SqliteDriverName } from '../src/stores/sqlite/driver';
import { SQLITE_DRIVERS_HERE } from '../tests/support/sqlite-drivers';
import { measure, pct } from './support/session-turns';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 3);
const MEMORY_ENTRIES = 1_000;
const MEMORY_OPS = 300;

interface Sample {
  median: number;
  p99: number;
  throughput: number;
  bigLoad: number;
  memorySave: number;
  memorySearch: number;
}

/** Memory through FTS5: a 1,000-entry memory, then save one entry and search it, one at a time. */
async function measureMemory(store: SqliteStore, round: number): Promise<{ memorySave: number; memorySearch: number }> {
  const key = { agentName: 'bench', userId: `u-${round}` };
  const seed = new AgentMemory(key);
  for (let i = 0; i < MEMORY_ENTRIES; i++) seed.addFact(`Customer note ${i}: prefers ${i % 2 ? 'email' : 'phone'} about order A-${i}`);
  await store.saveMemory(key, seed.takeChanges());
  const saves: number[] = [];
  const searches: number[] = [];
  for (let i = 0; i < MEMORY_OPS; i++) {
    const memory = new AgentMemory(key);
    memory.addFact(`Later note ${i}: asked about invoice ${i}`);
    let t = performance.now();
    await store.saveMemory(key, memory.takeChanges());
    saves.push(performance.now() - t);
    t = performance.now();
    const hits = await store.searchMemory(key, i % 2 ? 'invoice' : 'emial order', 5);
    searches.push(performance.now() - t);
    if (hits.length === 0) throw new Error('bad search');
  }
  saves.sort((a, b) => a - b);
  searches.sort((a, b) => a - b);
  return { memorySave: pct(saves, 50), memorySearch: pct(searches, 50) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-bench-drivers-'));
  const samples = new Map<SqliteDriverName, Sample[]>(SQLITE_DRIVERS_HERE.map((d) => [d, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...SQLITE_DRIVERS_HERE].reverse() : SQLITE_DRIVERS_HERE;
      for (const driver of order) {
        const store = new SqliteStore({ driver, path: join(dir, `${driver.replace(/\W+/g, '-')}-${round}.db`) });
        const turns = await measure(`${driver}-${round}`, store);
        const memory = await measureMemory(store, round);
        await store.close();
        samples.get(driver)!.push({ ...turns, ...memory });
        process.stderr.write(`round ${round + 1}/${ROUNDS} ${driver} done\n`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const med = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  console.log(`Node ${process.version}, median of ${ROUNDS} rounds, drivers alternating.\n`);
  console.log(
    '| driver | turn median (ms) | turn p99 (ms) | turns/s, 100 sessions | load 10,000 messages (ms) | memory save 1 entry (ms) | memory search (ms) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [driver, s] of samples) {
    const m = (k: keyof Sample) => med(s.map((x) => x[k]));
    console.log(
      `| ${driver} | ${m('median').toFixed(3)} | ${m('p99').toFixed(2)} | ${Math.round(m('throughput'))} | ${m('bigLoad').toFixed(1)} | ` +
        `${m('memorySave').toFixed(3)} | ${m('memorySearch').toFixed(3)} |`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
