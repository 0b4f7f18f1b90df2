/**
 * `ToolRegistry.build` vs tool count (issue 13 row 1).
 *
 *   npx ts-node --transpile-only bench/scale/registry.scale.ts [--sizes=10,100,1000,5000] [--rounds=3]
 *
 * Each size runs in a fresh child process (so classes decorated for one size do not slow the
 * next): it decorates n tool classes (6-property input with a nested class, one injected
 * `@Service()`), builds a small warm-up registry, then times `ToolRegistry.build` over all n.
 * Prints size → build time per tool, wall clock and CPU (user + system, all threads: the steadier of
 * the two on a shared machine), medians over the rounds, the sizes interleaved round by round.
 * Read the growth, not the absolute times. Results: bench/SCALING.md, "Registry build vs tool count".
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsNumber, IsOptional, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import { Service } from 'typedi';
import { Param, Tool, ToolRegistry, type ClassType } from '../../src';

const STATUSES = ['delivered', 'shipped', 'cancelled'] as const;

@Service()
class RefundService {
  refund(orderId: string): object {
    return { status: 'success', order_id: orderId };
  }
}

/** One tool with its own input and nested classes, as an app with n distinct tools has. */
function defineTool(i: number): ClassType {
  class Address {
    @Param({ description: 'Street' }) @IsString() street!: string;
    @Param({ description: 'City' }) @IsString() city!: string;
    @Param({ description: 'Postal code' }) @IsString() zip!: string;
  }

  class RefundInput {
    @Param({ description: 'The order ID to refund' }) @IsString() @MinLength(1) order_id!: string;
    @Param({ description: 'Refund amount' }) @IsOptional() @IsNumber() @Min(0) amount?: number;
    @Param({ description: 'Reason for refund' }) @IsString() @MinLength(1) reason!: string;
    @Param({ description: 'Order status' }) @IsIn(STATUSES) status!: (typeof STATUSES)[number];
    @Param({ description: 'Tags', type: () => [String] }) @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
    @Param({ description: 'Shipping address' }) @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
  }

  @Tool({ name: `refund_${i}`, description: `Refund tool number ${i}`, input: RefundInput })
  class RefundTool {
    constructor(private readonly refunds: RefundService) {}
    execute(args: RefundInput): object {
      return this.refunds.refund(args.order_id);
    }
  }
  return RefundTool;
}

function option(name: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}

/** Child: time one build of n tools; prints µs per tool as JSON. */
function measure(n: number): void {
  const warmup = Array.from({ length: 50 }, (_, i) => defineTool(-1 - i));
  ToolRegistry.build({ tools: warmup });
  const tools = Array.from({ length: n }, (_, i) => defineTool(i));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const registry = ToolRegistry.build({ tools });
  const ns = Number(process.hrtime.bigint() - start);
  const { user, system } = process.cpuUsage(cpu);
  if (registry.names().length !== n) throw new Error(`built ${registry.names().length} tools, expected ${n}`);
  const row: Row = { n, totalMs: ns / 1e6, perToolUs: ns / 1e3 / n, cpuPerToolUs: (user + system) / n };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

interface Row {
  n: number;
  totalMs: number;
  perToolUs: number;
  cpuPerToolUs: number;
}

function main(): void {
  const sizes = option('sizes', '10,100,1000,5000').split(',').map(Number);
  const rounds = Number(option('rounds', '3'));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const runs = new Map<number, Row[]>(sizes.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of sizes) {
      const args = [...process.execArgv, __filename, `--child=${n}`];
      const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (child.status !== 0) throw new Error(`size ${n} failed:\n${child.stderr}`);
      runs.get(n)!.push(JSON.parse(child.stdout.trim().split('\n').pop()!));
    }
  }
  const rows = sizes.map((n): Row => {
    const of = (key: keyof Row) => median(runs.get(n)!.map((x) => x[key]));
    return { n, totalMs: of('totalMs'), perToolUs: of('perToolUs'), cpuPerToolUs: of('cpuPerToolUs') };
  });
  console.log('| tools | build (ms) | wall µs per tool | CPU µs per tool |');
  console.log('|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(`| ${row.n} | ${row.totalMs.toFixed(0)} | ${row.perToolUs.toFixed(0)} | ${row.cpuPerToolUs.toFixed(0)} |`);
  }
  const base = rows.find((r) => r.n === 100) ?? rows[0];
  const last = rows[rows.length - 1];
  const ratio = (key: 'perToolUs' | 'cpuPerToolUs') => (last[key] / base[key]).toFixed(2);
  console.log(`per-tool time at ${last.n} / at ${base.n}: wall ${ratio('perToolUs')}x, CPU ${ratio('cpuPerToolUs')}x (target: within 2x)`);
}

const child = option('child', '');
if (child) measure(Number(child));
else main();
