/**
 * What keeping store caches exact across processes costs (bench/STORES.md, "Cross-process
 * coherence"): per store, a memory save of one entry followed by an incremental load (the
 * generation check), a SQLite deleteMemory (its index rows go too), a SQLite `channels.publish`
 * (a row in the file), and a SQLite turn while this process listens on a channel and another
 * connection writes (the data_version poll). With `--base=<dir>` (a checkout of an earlier
 * commit sharing this node_modules) the same operations run on that commit's stores too,
 * interleaved round by round in this one process, so a loaded machine weighs on both alike.
 *
 * Run: npx ts-node --transpile-only bench/coherence.bench.ts [--base=/tmp/main-copy]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemoryEntry } from '../src/session/snapshots';
import type { SessionStore } from '../src/stores/store';
import { startRedisAndPostgres } from '../tests/support/servers';
import { ms, print, table } from './scale/scale';

type Stores = {
  SqliteStore: new (o: { path: string }) => SessionStore;
  RedisStore: new (o: { url: string; keyPrefix: string }) => SessionStore;
  PostgresStore: new (o: { connectionString: string; schema: string }) => SessionStore;
};

function loadStores(root: string): Stores {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    SqliteStore: (require(join(root, 'src/stores/sqlite.store')) as Stores).SqliteStore,
    RedisStore: (require(join(root, 'src/stores/redis.store')) as Stores).RedisStore,
    PostgresStore: (require(join(root, 'src/stores/postgres.store')) as Stores).PostgresStore,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

let n = 0;
const entry = (): MemoryEntry => ({
  id: `e${n}`,
  type: 'fact',
  content: `note ${n++} about invoices and refunds`,
  createdAt: '2026-01-01',
});
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

interface Case {
  name: string;
  /** Per variant: prepares and returns one operation. */
  setup: (stores: Stores, variant: string) => Promise<() => Promise<unknown>>;
}

async function main(): Promise<void> {
  const baseArg = process.argv.find((a) => a.startsWith('--base='));
  const variants: Array<[string, Stores]> = [['this commit', loadStores(resolve(__dirname, '..'))]];
  if (baseArg) variants.unshift([`base (${baseArg.slice(7)})`, loadStores(resolve(baseArg.slice(7)))]);
  const [redis, postgres] = await startRedisAndPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'tw-coherence-'));
  const opened: SessionStore[] = [];
  const writers: NodeJS.Timeout[] = [];
  const keep = <T extends SessionStore>(s: T) => (opened.push(s), s);
  const memoryOps = (make: (s: Stores, v: string) => SessionStore) => async (s: Stores, v: string) => {
    const store = keep(make(s, v));
    const key = { agentName: 'bench', userId: `u-${v.length}` };
    await store.saveMemory(key, { added: Array.from({ length: 1000 }, entry) });
    await store.loadMemory(key);
    return async () => {
      await store.saveMemory(key, { added: [entry()] });
      // As a run with `memory: true` does: the snapshot, its entries not copied out.
      if (!(await store.loadMemory(key))) throw new Error('no memory');
    };
  };
  const cases: Case[] = [
    {
      name: 'SQLite: save 1 memory entry + load (1,000 stored)',
      setup: memoryOps((s, v) => new s.SqliteStore({ path: join(dir, `${v.length}-m.db`) })),
    },
    {
      name: 'Redis: save 1 memory entry + load (cached, incremental)',
      setup: memoryOps((s, v) => new s.RedisStore({ url: redis.url, keyPrefix: `b${v.length}:` })),
    },
    {
      name: 'PostgreSQL: save 1 memory entry + load (cached, incremental)',
      setup: memoryOps((s, v) => new s.PostgresStore({ connectionString: postgres.connectionString, schema: `b${v.length}` })),
    },
    {
      name: 'SQLite: save a memory of 20 entries + deleteMemory',
      setup: async (s, v) => {
        const store = keep(new s.SqliteStore({ path: join(dir, `${v.length}-d.db`) }));
        return async () => {
          const key = { agentName: 'bench', userId: `d${n++}` };
          await store.saveMemory(key, { added: Array.from({ length: 20 }, entry) });
          await store.deleteMemory(key);
        };
      },
    },
    {
      name: 'SQLite: channels.publish',
      setup: async (s, v) => {
        const store = keep(new s.SqliteStore({ path: join(dir, `${v.length}-p.db`) }));
        return () => store.channels!.publish('bench', `{"s":"session","r":${n++}}`);
      },
    },
    {
      name: 'SQLite: a turn (load + save) while subscribed, another connection writing every 5 ms',
      setup: async (s, v) => {
        const path = join(dir, `${v.length}-t.db`);
        const store = keep(new s.SqliteStore({ path }));
        const other = keep(new s.SqliteStore({ path }));
        await store.channels!.subscribe('bench', () => undefined);
        const writer = setInterval(
          () => void other.saveSession({ sessionId: 'other' }, { set: { n: n++ }, deleted: [], appended: [] }).catch(() => undefined),
          5,
        );
        writer.unref();
        writers.push(writer);
        const key = { sessionId: 'turn' };
        return async () => {
          await store.loadSession(key, { historyLimit: 20 });
          await store.saveSession(key, { set: { n: n++ }, deleted: [], appended: [{ role: 'user', content: 'hi' }] });
          await sleep(0); // let timers (the poll, the other writer) run between turns, as between requests
        };
      },
    },
  ];
  const rows: Array<Array<string>> = [];
  const rounds = 9;
  const batch = 100;
  for (const c of cases) {
    const ops = await Promise.all(variants.map(([v, stores]) => c.setup(stores, v)));
    const times: number[][] = variants.map(() => []);
    for (let r = -1; r < rounds; r++) {
      for (let i = 0; i < ops.length; i++) {
        const t0 = performance.now();
        for (let b = 0; b < batch; b++) await ops[i]();
        if (r >= 0) times[i].push((performance.now() - t0) / batch);
      }
    }
    const medians = times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
    const row = [c.name, ...medians.map(ms)];
    if (medians.length === 2) row.push(`${(medians[1] / medians[0]).toFixed(2)}×`);
    rows.push(row);
  }
  const header = ['operation', ...variants.map(([v]) => `${v} (ms)`), ...(variants.length === 2 ? ['ratio'] : [])];
  print(table(`Cross-process coherence costs, median of ${rounds} rounds of ${batch}, variants interleaved per round`, header, rows));
  const loadAverage = loadavg()[0].toFixed(1);
  print(`Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z, load average ${loadAverage}.`);
  for (const w of writers) clearInterval(w);
  await sleep(20);
  for (const s of opened) await s.close().catch(() => undefined);
  await Promise.all([redis.destroy(), postgres.destroy()]);
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
