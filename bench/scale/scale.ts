/**
 * Shared by bench/scale/*.scale.ts (run by `npm run bench -- --scale`): time a cost at several
 * sizes and print one Markdown table per row of issue 13 (size → cost), medians of rounds.
 */
import { performance } from 'node:perf_hooks';

/** Median ms per call of `fn` over `rounds` rounds of `batch` calls each (after one warm-up round). */
export async function median(fn: (i: number) => unknown, options: { rounds?: number; batch?: number } = {}): Promise<number> {
  const rounds = options.rounds ?? 7;
  const batch = options.batch ?? 1;
  const times: number[] = [];
  let n = 0;
  for (let r = -1; r < rounds; r++) {
    const t0 = performance.now();
    for (let b = 0; b < batch; b++) {
      const out = fn(n++);
      if (out instanceof Promise) await out;
    }
    if (r >= 0) times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
export const num = (v: number) => v.toLocaleString('en-US');

/** A Markdown table: a title line, a header and the rows. */
export function table(title: string, header: string[], rows: Array<Array<string | number>>): string {
  return [
    `### ${title}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
}

export function print(text: string): void {
  process.stdout.write(text + '\n');
}
