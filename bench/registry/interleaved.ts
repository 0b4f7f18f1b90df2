/**
 * toolwright and the floor in ONE process, interleaved batch by batch, timed in CPU time
 * (`process.cpuUsage`): on a shared machine the load drifts between the separate processes of
 * `npm run bench`, and wall time counts the time spent waiting for a core, so this ratio is the steadier one.
 *
 *   node <compiled>/bench/registry/interleaved.js [batches=15] [calls per batch=10000]
 *   (or: npx ts-node --transpile-only bench/registry/interleaved.ts)
 */
import { loop } from './harness';
import { call as floor } from './floor';
import { call as toolwright } from './toolwright';
import { INVALID_ROTATION, VALID_ROTATION } from './workload';

/** CPU microseconds (user + system) spent by `run`. */
async function cpu(run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

void (async () => {
  const batches = Number(process.argv[2] ?? 15);
  const n = Number(process.argv[3] ?? 10_000);
  for (const c of [toolwright, floor]) for (const args of [VALID_ROTATION, INVALID_ROTATION]) await loop(c, args, 2 * n); // warm-up
  const ratios = { valid: [] as number[], invalid: [] as number[] };
  for (let b = 0; b < batches; b++) {
    for (const [kind, args] of [
      ['valid', VALID_ROTATION],
      ['invalid', INVALID_ROTATION],
    ] as const) {
      // Alternate which runs first, so neither always gets the warmer (or the quieter) slot.
      const first = b % 2 ? floor : toolwright;
      const a = await cpu(() => loop(first, args, n));
      const z = await cpu(() => loop(first === floor ? toolwright : floor, args, n));
      ratios[kind].push(first === floor ? z / a : a / z);
    }
  }
  const fmt = (r: number[]) => `${median(r).toFixed(2)}× (min ${Math.min(...r).toFixed(2)}, max ${Math.max(...r).toFixed(2)})`;
  console.log(
    `toolwright ÷ floor, ${batches} interleaved batches of ${n} calls: valid ${fmt(ratios.valid)}, invalid ${fmt(ratios.invalid)}`,
  );
})();
