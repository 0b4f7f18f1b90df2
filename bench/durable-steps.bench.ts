/**
 * What durable steps cost a run: `npx ts-node --transpile-only bench/durable-steps.bench.ts [--runs=300]`.
 * One run = a new session, a model turn asking for a tool call, the tool, a model turn answering, the save
 * (the ScriptedModel answers at once, so the store's work is what is measured). Each store runs the same
 * runs with `durableSteps` on (a claim and a record per step: 3 steps a run, their records removed at the
 * end) and off, alternating in blocks of 20; prints median and p90 ms per run and the difference.
 * Starts its own redis-server and PostgreSQL (tests/support/servers.ts).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { IsString } from 'class-validator';
import { Agent } from '../src/agent/agent';
import { ScriptedModel } from '../src/agent/models/scripted.model';
import { Param } from '../src/decorators/param.decorator';
import { Tool } from '../src/decorators/tool.decorator';
import { PostgresStore } from '../src/stores/postgres.store';
import { RedisStore } from '../src/stores/redis.store';
import { SqliteStore } from '../src/stores/sqlite.store';
import type { SessionStore } from '../src/stores/store';
import { startRedisAndPostgres } from '../tests/support/servers';

class LookupArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
}

@Tool({ name: 'lookup', description: 'Looks an order up', input: LookupArgs })
class LookupTool {
  execute({ order }: LookupArgs) {
    return { order, status: 'shipped' };
  }
}

const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 300);
const BLOCK = 20;

const model = () =>
  new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'lookup', arguments: { order: 'A-1' } }] }, { text: 'It shipped.' }]);

function stats(ms: number[]): { median: number; p90: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p90: sorted[Math.floor(sorted.length * 0.9)] };
}

async function measure(store: SessionStore, label: string): Promise<{ on: number[]; off: number[] }> {
  const times = { on: [] as number[], off: [] as number[] };
  let n = 0;
  for (let block = 0; block * BLOCK < RUNS * 2; block++) {
    const durableSteps = block % 2 === 0;
    for (let i = 0; i < BLOCK; i++) {
      const agent = new Agent({ name: 'bench', model: model(), tools: [LookupTool], store, durableSteps });
      const started = performance.now();
      await agent.run('where is A-1?', { sessionId: `${label}-${n++}`, userId: 'u' });
      (durableSteps ? times.on : times.off).push(performance.now() - started);
    }
  }
  return times;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-bench-steps-'));
  const [redis, postgres] = await startRedisAndPostgres();
  const stores: Array<[string, SessionStore]> = [
    ['SQLite (file, WAL)', new SqliteStore({ path: join(dir, 'steps.db') })],
    ['Redis', new RedisStore({ url: redis.url })],
    ['PostgreSQL', new PostgresStore({ connectionString: postgres.connectionString })],
  ];
  const rows: string[] = [];
  try {
    for (const [name, store] of stores) {
      await measure(store, 'warmup'); // first statements, connections, JIT
      const { on, off } = await measure(store, 'run');
      await store.close();
      const a = stats(on);
      const b = stats(off);
      rows.push(
        `| ${name} | ${b.median.toFixed(2)} / ${b.p90.toFixed(2)} | ${a.median.toFixed(2)} / ${a.p90.toFixed(2)} | +${(a.median - b.median).toFixed(2)} |`,
      );
      process.stderr.write(`${name} done\n`);
    }
  } finally {
    await Promise.all([redis.destroy(), postgres.destroy()]);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Node ${process.version}; ${RUNS} runs each way per store, alternating blocks of ${BLOCK}.\n`);
  console.log('| store | run, durable steps off: median / p90 (ms) | on: median / p90 (ms) | median difference (ms) |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
