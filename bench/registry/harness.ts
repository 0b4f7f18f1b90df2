/**
 * Runs one contender in this process: checks it answers the workload correctly, warms it up,
 * times N valid and N invalid calls, and prints one JSON line for bench/run.js.
 */
import { EXPECTED_VALID, INVALID_ARGS, INVALID_ROTATION, VALID_ARGS, VALID_ROTATION } from './workload';

export type Call = (args: string) => string | Promise<string>;

export interface Measurement {
  contender: string;
  calls: number;
  validNs: number;
  invalidNs: number;
  maxRssKb: number;
}

export async function runContender(contender: string, call: Call): Promise<void> {
  const calls = Number(process.argv[2] ?? 100_000);
  const warmup = Number(process.argv[3] ?? 20_000);
  await check(contender, call);
  await loop(call, VALID_ROTATION, warmup);
  await loop(call, INVALID_ROTATION, warmup);
  const validNs = await loop(call, VALID_ROTATION, calls);
  const invalidNs = await loop(call, INVALID_ROTATION, calls);
  const result: Measurement = { contender, calls, validNs, invalidNs, maxRssKb: process.resourceUsage().maxRSS };
  process.stdout.write(JSON.stringify(result) + '\n');
}

let sink = 0;

/** ns per call over `n` calls, the argument strings in rotation; a string result costs no await (the floor stays synchronous). */
export async function loop(call: Call, args: readonly string[], n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const out = call(args[i & 1023]);
    sink += (typeof out === 'string' ? out : await out).length;
  }
  const elapsed = Number(process.hrtime.bigint() - start);
  if (sink === 0) throw new Error('unreachable: keeps the results alive');
  return elapsed / n;
}

async function check(contender: string, call: Call): Promise<void> {
  for (let i = 0; i < VALID_ROTATION.length; i++) {
    const valid = JSON.parse(await call(VALID_ROTATION[i]));
    const invalid = JSON.parse(await call(INVALID_ROTATION[i]));
    if (valid.status !== 'success' || invalid.code !== 'INVALID_ARGUMENTS' || invalid.errors?.[0]?.path !== 'amount') {
      throw new Error(`${contender}: call ${i} of the rotation answered ${JSON.stringify(valid)} / ${JSON.stringify(invalid)}`);
    }
  }
  const valid = await call(VALID_ARGS);
  if (valid !== EXPECTED_VALID) throw new Error(`${contender}: valid call returned ${valid}, expected ${EXPECTED_VALID}`);
  const invalid = JSON.parse(await call(INVALID_ARGS));
  if (invalid.code !== 'INVALID_ARGUMENTS' || invalid.errors?.length !== 1 || invalid.errors[0].path !== 'amount') {
    throw new Error(`${contender}: invalid call returned ${JSON.stringify(invalid)}`);
  }
}
