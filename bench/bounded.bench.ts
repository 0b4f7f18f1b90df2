/**
 * Issue 8, "bounded answers": one call whose ~800 KB of arguments hold 200,000 wrong array items
 * (for a tool with an input class and for one with a hand-written JSON Schema), beside a valid call
 * of the same size and JSON.parse of the same texts alone; then one call with 200,000 keys the
 * closed schemas do not allow (`additionalProperties: false`), beside JSON.parse of that text. Interleaved rounds after a warm-up;
 * medians and minimums in wall-clock ms, and the invalid call's time beyond parsing its text.
 *
 *   npx ts-node --transpile-only bench/bounded.bench.ts [rounds=15]
 */
import 'reflect-metadata';
import { IsInt, IsNumber, IsOptional } from 'class-validator';
import { Param, Tool, ToolInputError, ToolRegistry, type ToolDefinition } from '../src';

class OrderInput {
  @Param() @IsNumber() amount!: number;
  @Param({ type: () => [Number] }) @IsOptional() @IsInt({ each: true }) ids?: number[];
}

@Tool({ name: 'order', description: 'Place an order', input: OrderInput })
class OrderTool {
  execute(): string {
    return '{}';
  }
}

class HandWrittenOrderTool {
  definition(): ToolDefinition {
    return {
      name: 'order_json_schema',
      description: 'Place an order',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' }, ids: { type: 'array', items: { type: 'integer' } } },
        required: ['amount'],
        additionalProperties: false,
      },
    };
  }
  execute(): string {
    return '{}';
  }
}

// 200,000 distinct keys cannot fit in the default 1,000,000 characters: the extra-keys rows raise the limit.
const registry = ToolRegistry.build({ tools: [OrderTool, HandWrittenOrderTool], limits: { maxLength: 4_000_000 } });
const invalid = JSON.stringify({ amount: 1, ids: Array.from({ length: 200_000 }, (_, i) => (i % 2 ? 'x' : 1.5)) });
const valid = JSON.stringify({ amount: 1, ids: Array.from({ length: 200_000 }, (_, i) => i % 10) });
/** 200,000 keys neither tool's closed schema allows (`additionalProperties: false`). */
const extraKeys = JSON.stringify(Object.fromEntries([['amount', 1], ...Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i])]));
const rounds = Number(process.argv[2] ?? 15);

async function time(run: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function answer(tool: string, args: string): Promise<string> {
  try {
    return await registry.call(tool, args);
  } catch (error) {
    return (error as ToolInputError).toToolResult();
  }
}

void (async () => {
  console.log(`arguments: ${invalid.length.toLocaleString('en-US')} characters, 200,000 wrong items`);
  console.log(`extra keys: ${extraKeys.length.toLocaleString('en-US')} characters, 200,000 keys the schema does not allow`);
  for (const tool of ['order', 'order_json_schema']) {
    for (const [label, args] of [
      ['wrong items', invalid],
      ['extra keys', extraKeys],
    ]) {
      const text = await answer(tool, args);
      const parsed = JSON.parse(text) as { errors: unknown[]; omitted: number };
      console.log(`${tool}, ${label}: answer ${text.length} characters, ${parsed.errors.length} errors listed, omitted ${parsed.omitted}`);
    }
  }
  const cells: Record<string, number[]> = {};
  const rows: [string, () => unknown][] = [
    ['invalid call (input class)', () => answer('order', invalid)],
    ['invalid call (JSON Schema)', () => answer('order_json_schema', invalid)],
    ['valid call (input class)', () => answer('order', valid)],
    ['JSON.parse(invalid) alone', () => JSON.parse(invalid)],
    ['JSON.parse(valid) alone', () => JSON.parse(valid)],
    ['extra keys (input class)', () => answer('order', extraKeys)],
    ['extra keys (JSON Schema)', () => answer('order_json_schema', extraKeys)],
    ['JSON.parse(extra keys) alone', () => JSON.parse(extraKeys)],
  ];
  for (let round = -3; round < rounds; round++) {
    // Rotate the order so that no row always runs right after the same neighbour (or its garbage).
    for (let k = 0; k < rows.length; k++) {
      const [label, run] = rows[(k + Math.max(round, 0)) % rows.length];
      const ms = await time(run);
      if (round >= 0) (cells[label] ??= []).push(ms);
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
  // Each call beside JSON.parse of its own text.
  const parseOf = (label: string) =>
    median(cells[label.startsWith('extra keys') ? 'JSON.parse(extra keys) alone' : 'JSON.parse(invalid) alone']);
  console.log(`\n${rounds} rounds after 3 warm-up rounds (wall clock):\n`);
  console.log('| | median ms | min ms | median − JSON.parse of its text |\n|---|---:|---:|---:|');
  for (const [label] of rows) {
    const m = median(cells[label]);
    console.log(`| ${label} | ${m.toFixed(1)} | ${Math.min(...cells[label]).toFixed(1)} | ${(m - parseOf(label)).toFixed(1)} |`);
  }
})();
