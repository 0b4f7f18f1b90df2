#!/usr/bin/env node
/**
 * npm run bench [-- --rounds=9 --calls=50000 --warmup=20000 --no-write --all]
 * npm run bench -- --scale[=catalog,stores] [--no-write]
 *
 * Registry benchmark: compiles bench/registry once with tsc (so no ts-node time is measured),
 * then runs each contender in its own process, interleaved (the order rotates every round),
 * and prints the medians over the rounds. Writes the table into bench/README.md between the
 * markers unless --no-write. --all also runs bench/agent.bench.ts, bench/stores.bench.ts and bench/sqlite-drivers.bench.ts.
 *
 * --scale runs every bench/scale/*.scale.ts (or those named) instead, each in its own process;
 * each prints Markdown tables of size → cost, written into bench/SCALING.md between its
 * `<!-- scale:NAME:start -->` / `<!-- scale:NAME:end -->` markers (a missing section is appended).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CONTENDERS = ['toolwright', 'class-validator', 'zod', 'floor'];
const START = '<!-- bench:registry:start -->';
const END = '<!-- bench:registry:end -->';

function option(name, fallback) {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}

const rounds = option('rounds', 9);
const calls = option('calls', 50_000);
const warmup = option('warmup', 20_000);
const write = !process.argv.includes('--no-write');
const all = process.argv.includes('--all');

function compile() {
  // Inside node_modules/.cache so that the compiled files resolve the project's dependencies.
  const cache = path.join(ROOT, 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  const out = fs.mkdtempSync(path.join(cache, 'toolwright-bench-'));
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('tsc failed to compile the benchmark');
  return out;
}

function runOne(out, contender) {
  const script = path.join(out, 'bench', 'registry', `${contender}.js`);
  const result = spawnSync(process.execPath, [script, String(calls), String(warmup)], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${contender} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function table(samples, load) {
  const rows = CONTENDERS.map((contender) => {
    const runs = samples.filter((s) => s.contender === contender);
    return {
      contender,
      validNs: median(runs.map((r) => r.validNs)),
      invalidNs: median(runs.map((r) => r.invalidNs)),
      rssMb: median(runs.map((r) => r.maxRssKb)) / 1024,
    };
  });
  const floor = rows.find((r) => r.contender === 'floor');
  const lines = [
    '| contender | valid ns/call | valid calls/s | invalid ns/call | invalid calls/s | peak RSS | valid × floor | invalid × floor |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.contender} | ${fmt(r.validNs)} | ${fmt(1e9 / r.validNs)} | ${fmt(r.invalidNs)} | ${fmt(1e9 / r.invalidNs)} | ` +
        `${fmt(r.rssMb, 1)} MB | ${fmt(r.validNs / floor.validNs, 2)}× | ${fmt(r.invalidNs / floor.invalidNs, 2)}× |`,
    ),
  ];
  const tw = rows.find((r) => r.contender === 'toolwright');
  const validRatio = tw.validNs / floor.validNs;
  const invalidRatio = tw.invalidNs / floor.invalidNs;
  const verdict = (ratio, target) => `${fmt(ratio, 2)}× (target ≤ ${target}×: ${ratio <= target ? 'met' : 'missed'})`;
  lines.push(
    '',
    `toolwright vs floor: valid ${verdict(validRatio, 1.2)}, invalid ${verdict(invalidRatio, 2)}.`,
    '',
    `Medians of ${rounds} rounds × ${fmt(calls)} calls each (after ${fmt(warmup)} warm-up calls), one process per contender and round; ` +
      `Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), ${new Date().toISOString().slice(0, 10)}; ` +
      `load average ${load.map((l) => l.toFixed(1)).join(' → ')} (start → end: other work on the machine adds noise).`,
  );
  return lines.join('\n');
}

function writeReadme(text) {
  const readme = path.join(__dirname, 'README.md');
  const current = fs.readFileSync(readme, 'utf8');
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`bench/README.md lacks the ${START} … ${END} markers`);
  fs.writeFileSync(readme, current.slice(0, start + START.length) + '\n' + text + '\n' + current.slice(end));
}

function runOtherBenches() {
  for (const file of ['agent.bench.ts', 'stores.bench.ts', 'sqlite-drivers.bench.ts']) {
    const script = path.join(__dirname, file);
    if (!fs.existsSync(script)) {
      console.log(`\n(${file} not found, skipped)`);
      continue;
    }
    console.log(`\n## ${file}\n`);
    const result = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', path.join(__dirname, 'toolwright-alias.js'), script],
      { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') } },
    );
    if (result.status !== 0) process.exitCode = 1;
  }
}

function runScale() {
  const arg = process.argv.find((a) => a === '--scale' || a.startsWith('--scale='));
  const only = arg.includes('=') ? arg.split('=')[1].split(',') : undefined;
  const dir = path.join(__dirname, 'scale');
  const names = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.scale.ts'))
    .map((f) => f.slice(0, -'.scale.ts'.length))
    .filter((name) => !only || only.includes(name))
    .sort();
  const file = path.join(__dirname, 'SCALING.md');
  for (const name of names) {
    console.log(`\n## ${name} (bench/scale/${name}.scale.ts)\n`);
    const began = Date.now();
    const loadBefore = os.loadavg()[0];
    const result = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', path.join(__dirname, 'toolwright-alias.js'), path.join(dir, `${name}.scale.ts`)],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
      },
    );
    process.stdout.write(result.stdout);
    if (result.status !== 0) {
      process.stderr.write(result.stderr);
      process.exitCode = 1;
      continue;
    }
    const note =
      `Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), ${new Date().toISOString().slice(0, 16)}Z, ` +
      `load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, ${((Date.now() - began) / 1000).toFixed(0)} s.`;
    console.log(note);
    if (write) writeSection(file, name, `${result.stdout.trim()}\n\n${note}`);
  }
}

function writeSection(file, name, text) {
  const start = `<!-- scale:${name}:start -->`;
  const end = `<!-- scale:${name}:end -->`;
  let current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Scaling\n';
  if (!current.includes(start)) current = `${current.trimEnd()}\n\n## ${name}\n\n${start}\n${end}\n`;
  const a = current.indexOf(start);
  const b = current.indexOf(end);
  fs.writeFileSync(file, current.slice(0, a + start.length) + '\n' + text + '\n' + current.slice(b));
}

function main() {
  if (process.argv.some((a) => a === '--scale' || a.startsWith('--scale='))) return runScale();
  const began = Date.now();
  console.log('Compiling bench/registry …');
  const out = compile();
  const loadBefore = os.loadavg()[0];
  const samples = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // Rotate the order so that no contender always runs first (or on a warmer machine).
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length]);
      for (const contender of order) {
        const sample = runOne(out, contender);
        samples.push(sample);
        console.log(
          `round ${round + 1}/${rounds}  ${contender.padEnd(16)} valid ${fmt(sample.validNs)} ns  invalid ${fmt(sample.invalidNs)} ns  rss ${fmt(sample.maxRssKb / 1024, 1)} MB`,
        );
      }
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const text = table(samples, [loadBefore, os.loadavg()[0]]);
  console.log('\n## registry.call: process_refund\n\n' + text);
  if (write) writeReadme(text);
  console.log(`\n(${((Date.now() - began) / 1000).toFixed(0)} s)`);
  if (all) runOtherBenches();
}

main();
