#!/usr/bin/env node
/**
 * node bench/studio-start.js [--rounds=9] [--no-write]   (after `npm run build`)
 *
 * How long the studio takes to start, as a user starts it: `toolwright studio --module <config.ts>`
 * in a new process, from spawn to the URL printed and to the page and `/api/info` answered; and
 * `createStudio(registry)` inside a process that has its registry already. Also what `import
 * 'toolwright'` loads of the studio (nothing). Medians and maxima over the rounds, written into
 * bench/STUDIO.md between its markers unless --no-write.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'cli', 'main.js');
const CONFIG = path.join(__dirname, 'studio', 'toolwright.config.ts');
const rounds = Number((process.argv.find((a) => a.startsWith('--rounds=')) ?? '--rounds=9').split('=')[1]);
const write = !process.argv.includes('--no-write');

function cliStart() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [MAIN, 'studio', '--module', CONFIG], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', async (d) => {
      out += d;
      const match = /toolwright studio: (\S+)/.exec(out);
      if (!match || child.printed) return;
      child.printed = true;
      const printed = ms(t0);
      const url = new URL(match[1]);
      const page = await fetch(url);
      await page.text();
      const info = await fetch(new URL('/api/info', url), { headers: { authorization: `Bearer ${url.searchParams.get('token')}` } });
      await info.json();
      const served = ms(t0);
      child.kill('SIGTERM');
      child.once('exit', () => resolve({ printed, served, ok: page.status === 200 && info.status === 200 }));
    });
    child.once('error', reject);
  });
}

const IN_PROCESS = `
require('reflect-metadata');
const { ToolRegistry } = require(${JSON.stringify(path.join(ROOT, 'dist'))});
const before = Object.keys(require.cache).filter((f) => f.includes('${path.sep}studio${path.sep}')).length;
const registry = ToolRegistry.build({ tools: [] });
(async () => {
  const t0 = process.hrtime.bigint();
  const { createStudio } = require(${JSON.stringify(path.join(ROOT, 'dist', 'studio'))});
  const studio = await createStudio(registry);
  const page = await fetch(studio.url);
  await page.text();
  const t1 = Number(process.hrtime.bigint() - t0) / 1e6;
  await studio.close();
  process.stdout.write(JSON.stringify({ ms: t1, studioModulesOnImport: before }));
})();
`;

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const max = (xs) => Math.max(...xs);
const f = (x) => `${x.toFixed(0)} ms`;

async function main() {
  if (!fs.existsSync(MAIN)) throw new Error('Run `npm run build` first: the benchmark starts dist/cli/main.js.');
  await cliStart(); // warms jiti's compile cache, as a developer's second start would be
  const cli = [];
  const inproc = [];
  for (let i = 0; i < rounds; i++) {
    const run = await cliStart();
    if (!run.ok) throw new Error('the studio did not answer');
    cli.push(run);
    const r = spawnSync(process.execPath, ['-e', IN_PROCESS], { cwd: ROOT, encoding: 'utf8' });
    inproc.push(JSON.parse(r.stdout));
  }
  const rows = [
    [
      '`toolwright studio --module config.ts`: spawn → URL printed',
      f(median(cli.map((r) => r.printed))),
      f(max(cli.map((r) => r.printed))),
    ],
    ['… spawn → page and `/api/info` answered', f(median(cli.map((r) => r.served))), f(max(cli.map((r) => r.served)))],
    ['`createStudio(registry)` → page answered (in process)', f(median(inproc.map((r) => r.ms))), f(max(inproc.map((r) => r.ms)))],
  ];
  const loadavg = os.loadavg()[0].toFixed(1);
  const table = [
    `Node ${process.version}, ${os.cpus().length} cores, load ${loadavg}, ${rounds} rounds (median, max). Studio modules loaded by \`require('toolwright')\`: ${inproc[0].studioModulesOnImport}.`,
    '',
    '| start | median | max |',
    '| --- | ---: | ---: |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  if (!write) return;
  const file = path.join(__dirname, 'STUDIO.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = '<!-- bench:studio:start -->';
  const end = '<!-- bench:studio:end -->';
  fs.writeFileSync(file, `${text.slice(0, text.indexOf(start) + start.length)}\n${table}\n${text.slice(text.indexOf(end))}`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
