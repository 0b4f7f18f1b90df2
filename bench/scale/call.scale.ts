/**
 * Issue 13, row 2: the cost of one call to a tool that needs class-validator at call time
 * (`@ValidateIf`, a custom constraint) as the registry (and the process's class-validator
 * metadata) grows: 10 / 100 / 1,000 / 5,000 registered tools, each with its own input class.
 *
 *   npx ts-node --transpile-only bench/scale/call.scale.ts [--sizes=10,100,1000,5000] [--calls=2000]
 *
 * Prints `size → µs per call` (median of 7 batches). Sizes grow in one process, as an app's do:
 * the registry of size n holds the first n tools, and only n tool classes exist when it is timed.
 */
import 'reflect-metadata';
import {
  IsEmail,
  IsIn,
  IsString,
  MinLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Param, Tool, ToolRegistry } from '../../src';
import type { ClassType } from '../../src/metadata/types';

@ValidatorConstraint({ name: 'isTicketCode' })
class IsTicketCode implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^T-\d+$/.test(value);
  }
}

/** Tool i: an input class with a conditional property and a custom constraint, as real catalogs have. */
function makeTool(i: number): ClassType {
  class Input {
    @Param() @IsIn(['email', 'phone']) mode!: string;
    @Param() @ValidateIf((o: Input) => o.mode === 'email') @IsEmail() address?: string;
    @Param() @IsString() @Validate(IsTicketCode) code!: string;
    @Param() @IsString() @MinLength(1) note!: string;
  }
  @Tool({ name: `tool_${i}`, description: `Tool number ${i}`, input: Input })
  class T {
    execute(args: Input): object {
      return { ok: true, code: args.code };
    }
  }
  return T;
}

function option(name: string, fallback: string): string {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function callScale(sizes = [10, 100, 1000, 5000], calls = 2000): Promise<{ size: number; us: number; buildMs: number }[]> {
  const tools: ClassType[] = [];
  const rows = [];
  const args = Array.from({ length: 1024 }, (_, i) =>
    JSON.stringify({ mode: 'email', address: `user${i}@example.com`, code: `T-${i}`, note: `n${i}` }),
  );
  for (const size of sizes) {
    while (tools.length < size) tools.push(makeTool(tools.length));
    const began = process.hrtime.bigint();
    const registry = ToolRegistry.build({ tools: tools.slice(0, size) });
    const buildMs = Number(process.hrtime.bigint() - began) / 1e6;
    const call = (i: number) => registry.call('tool_0', args[i & 1023]);
    for (let i = 0; i < calls; i++) await call(i); // warm-up
    const batches: number[] = [];
    for (let b = 0; b < 7; b++) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await call(i);
      batches.push(Number(process.hrtime.bigint() - start) / calls / 1000);
    }
    rows.push({ size, us: median(batches), buildMs });
  }
  return rows;
}

if (require.main === module) {
  const sizes = option('sizes', '10,100,1000,5000').split(',').map(Number);
  void callScale(sizes, Number(option('calls', '2000'))).then((rows) => {
    console.log('call to a tool with @ValidateIf and a custom constraint (class-validator at call time)');
    for (const r of rows) console.log(`${r.size} → ${r.us.toFixed(1)} µs  (build ${(r.buildMs / 1000).toFixed(1)} s)`);
  });
}
