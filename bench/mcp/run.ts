/**
 * toolwright's serveHttp vs the MCP SDK's own McpServer: `npx ts-node --transpile-only bench/mcp/run.ts [rounds] [ms]`.
 * Compiles bench/mcp (and the src it imports) with tsc first, as `npm run build` does, and runs
 * the servers and the load as plain JavaScript: no ts-node in the measured processes. Each round starts each server in its own process (order rotating), drives it from a second
 * process (load.ts) at 1, 8 and 32 sessions with valid and 50%-invalid calls, then opens and
 * ends 1,000 sessions and reads the server's RSS after a full GC. Prints medians over rounds.
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.argv[2] ?? 3);
const MS = Number(process.argv[3] ?? 3000);
const SETUPS = 200;
const KINDS = ['toolwright', 'sdk'] as const;
const CONFIGS = [1, 8, 32].flatMap((sessions) => (['valid', 'mixed'] as const).map((mode) => ({ sessions, mode })));
const MODERN_LOOPS = [1, 8, 32];
const ROOT = join(__dirname, '..', '..');

/** tsc into node_modules/.cache (so the compiled files resolve the project's dependencies); returns bench/mcp's output folder. */
function compile(): { dir: string; out: string } {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'toolwright-mcp-bench-'));
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const r = spawnSync(process.execPath, [tsc, '-p', join(__dirname, 'tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('tsc failed to compile bench/mcp');
  return { dir: join(out, 'bench', 'mcp'), out };
}
const compiled = compile();
process.on('exit', () => rmSync(compiled.out, { recursive: true, force: true }));

function ask<T>(child: ReturnType<typeof fork>, message?: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    if (message) child.send(message);
  });
}

function load(port: number, sessions: number, mode: string, close = 0, ids?: string[]): Record<string, number> & { ids?: string[] } {
  const r = spawnSync(process.execPath, [join(compiled.dir, 'load.js'), String(port), String(sessions), mode, String(MS), String(close)], {
    encoding: 'utf8',
    env: ids ? { ...process.env, IDS: JSON.stringify(ids) } : process.env,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  const samples: Record<string, number[]> = {};
  const add = (k: string, v: number) => (samples[k] ??= []).push(v);
  const loadBefore = os.loadavg()[0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 ? [...KINDS].reverse() : KINDS) {
      const server = fork(join(compiled.dir, 'server.js'), [kind], { execArgv: ['--expose-gc'] });
      const { port } = await ask<{ port: number }>(server);
      const cpu = async () => {
        const { cpu: c } = await ask<{ cpu: NodeJS.CpuUsage }>(server, 'cpu');
        return (c.user + c.system) / 1000;
      };
      // Server CPU per session setup (initialize + initialized), robust to other load on the machine.
      const c0 = await cpu();
      const { ids } = load(port, SETUPS, 'open');
      add(`${kind}:setupCpu`, ((await cpu()) - c0) / SETUPS);
      load(port, 0, 'delete', 0, ids);
      for (const c of CONFIGS) {
        const before = await cpu();
        const r = load(port, c.sessions, c.mode);
        add(`${kind}:${c.sessions}:${c.mode}:cpu`, (((await cpu()) - before) * 1000) / r.calls);
        add(`${kind}:${c.sessions}:${c.mode}`, r.callsPerSec);
        add(`${kind}:setup`, r.setupMs);
        process.stderr.write(`round ${round + 1} ${kind} ${c.sessions} ${c.mode}: ${r.callsPerSec.toFixed(0)} calls/s\n`);
      }
      // Protocol 2026-07-28 (no session; toolwright only: the v1 SDK's server does not speak it).
      if (kind === 'toolwright')
        for (const loops of MODERN_LOOPS) {
          const before = await cpu();
          const r = load(port, loops, 'modern');
          add(`modern:${loops}:cpu`, (((await cpu()) - before) * 1000) / r.calls);
          add(`modern:${loops}`, r.callsPerSec);
        }
      const base = await ask<{ rss: number }>(server, 'rss');
      load(port, 16, 'valid', 1000);
      const after = await ask<{ rss: number }>(server, 'rss');
      add(`${kind}:rss`, after.rss / 2 ** 20);
      add(`${kind}:rssGrowth`, (after.rss - base.rss) / 2 ** 20);
      server.kill();
    }
  }
  const rows = CONFIGS.map((c) => {
    const tw = median(samples[`toolwright:${c.sessions}:${c.mode}`]);
    const sdk = median(samples[`sdk:${c.sessions}:${c.mode}`]);
    const twCpu = median(samples[`toolwright:${c.sessions}:${c.mode}:cpu`]);
    const sdkCpu = median(samples[`sdk:${c.sessions}:${c.mode}:cpu`]);
    return (
      `| ${c.sessions} | ${c.mode === 'valid' ? 'valid' : '50% invalid'} | ${tw.toFixed(0)} | ${sdk.toFixed(0)} | ${(tw / sdk).toFixed(2)}× ` +
      `| ${twCpu.toFixed(0)} | ${sdkCpu.toFixed(0)} | ${(twCpu / sdkCpu).toFixed(2)}× |`
    );
  });
  const tws = median(samples['toolwright:setup']);
  const sdks = median(samples['sdk:setup']);
  const text = [
    '| sessions | calls | toolwright calls/s | SDK McpServer calls/s | toolwright ÷ SDK | toolwright server CPU µs/call | SDK server CPU µs/call | CPU toolwright ÷ SDK |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'Protocol 2026-07-28 on the same toolwright server (no initialize, no session; each request carries its envelope and headers), valid calls:',
    '',
    '| concurrent clients | toolwright calls/s | server CPU µs/call |',
    '|---:|---:|---:|',
    ...MODERN_LOOPS.map(
      (n) => `| ${n} | ${median(samples[`modern:${n}`]).toFixed(0)} | ${median(samples[`modern:${n}:cpu`]).toFixed(0)} |`,
    ),
    '',
    `Session setup (initialize + initialized, median wall time as the load process saw it): toolwright ${tws.toFixed(2)} ms, SDK ${sdks.toFixed(2)} ms (${(sdks / tws).toFixed(2)}× faster); ` +
      `server CPU per setup (${SETUPS} sessions, 16 at a time): toolwright ${(median(samples['toolwright:setupCpu']) * 1000).toFixed(0)} µs, SDK ${(median(samples['sdk:setupCpu']) * 1000).toFixed(0)} µs ` +
      `(${(median(samples['sdk:setupCpu']) / median(samples['toolwright:setupCpu'])).toFixed(2)}× less).`,
    `RSS after 1,000 sessions opened, called once and ended (after a full GC): toolwright ${median(samples['toolwright:rss']).toFixed(1)} MB, ` +
      `SDK ${median(samples['sdk:rss']).toFixed(1)} MB (${(median(samples['toolwright:rss']) / median(samples['sdk:rss'])).toFixed(2)}×); growth over the ` +
      `same server before them: toolwright ${median(samples['toolwright:rssGrowth']).toFixed(1)} MB, SDK ${median(samples['sdk:rssGrowth']).toFixed(1)} MB.`,
    '',
    `Compiled JavaScript (tsc), no ts-node. Medians of ${ROUNDS} interleaved rounds, ${MS / 1000} s per cell; Node ${process.version}, ${os.cpus()[0]?.model} (${os.cpus().length} cores), ` +
      `${new Date().toISOString().slice(0, 16)}Z. Load average (over ~1.5 means other work on the machine adds noise) ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}.`,
  ].join('\n');
  process.stdout.write(text + '\n');
  const readme = join(__dirname, '..', 'README.md');
  const current = readFileSync(readme, 'utf8');
  const [start, end] = ['<!-- bench:mcp:start -->', '<!-- bench:mcp:end -->'];
  if (current.includes(start))
    writeFileSync(
      readme,
      current.slice(0, current.indexOf(start) + start.length) + '\n' + text + '\n' + current.slice(current.indexOf(end)),
    );
}

void main();
