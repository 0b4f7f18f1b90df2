/**
 * Issue 8, "bounded answers": one call whose ~600 KB of arguments hold 200,000 wrong array items,
 * beside a valid call of the same size and JSON.parse alone.
 *
 *   npx ts-node --transpile-only bench/bounded.bench.ts
 */
import 'reflect-metadata';
import { IsInt, IsNumber, IsOptional } from 'class-validator';
import { Param, Tool, ToolInputError, ToolRegistry } from '../src';

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

const registry = ToolRegistry.build({ tools: [OrderTool] });
const invalid = JSON.stringify({ amount: 1, ids: Array.from({ length: 200_000 }, (_, i) => (i % 2 ? 'x' : 1.5)) });
const valid = JSON.stringify({ amount: 1, ids: Array.from({ length: 200_000 }, (_, i) => i % 10) });
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

void (async () => {
  console.log(`arguments: ${invalid.length.toLocaleString('en-US')} characters, 200,000 wrong items`);
  for (let round = 1; round <= 5; round++) {
    let start = process.hrtime.bigint();
    let answer = '';
    try {
      await registry.call('order', invalid);
    } catch (error) {
      answer = (error as ToolInputError).toToolResult();
    }
    const bad = ms(start);
    start = process.hrtime.bigint();
    await registry.call('order', valid);
    const good = ms(start);
    start = process.hrtime.bigint();
    JSON.parse(invalid);
    const parse = ms(start);
    console.log(
      `round ${round}: invalid ${bad.toFixed(1)} ms (answer ${answer.length} characters), valid ${good.toFixed(1)} ms, JSON.parse alone ${parse.toFixed(1)} ms`,
    );
  }
})();
