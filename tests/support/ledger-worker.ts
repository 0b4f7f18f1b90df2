/**
 * A child process for the two-process ledger test: opens its own store, prints `ready`, waits for
 * `go`, then pays every key at once through an IdempotencyLedger on the store's claims. Each payment
 * that runs appends `<key> <worker>` to the shared file (the side effect the parent counts); each
 * call prints `{ key, result, replayed }` or `{ key, error }`. Ends with `done`.
 */
import { appendFileSync } from 'node:fs';
import { IdempotencyLedger } from '../../src/side-effects/idempotency';
import { ToolwrightError } from '../../src/errors/errors';
import { openStore, type AgentWorkerArgs } from './agent-worker';

export interface LedgerWorkerArgs {
  kind: AgentWorkerArgs['kind'];
  target: string;
  keys: string[];
  file: string;
  worker: string;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as LedgerWorkerArgs;
  const store = openStore(args.kind, args.target) as ReturnType<typeof openStore> & {
    idempotency<T>(namespace: string): import('../../src/side-effects/claims').IdempotencyClaims<T>;
  };
  const ledger = new IdempotencyLedger<{ paidBy: string }>(store.idempotency('refunds'), { waitMs: 20_000 });
  process.stdout.write('ready\n');
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.pause();
  try {
    await Promise.all(
      args.keys.map(async (key) => {
        try {
          const { result, replayed } = await ledger.once(key, { order: key, cents: 500 }, async () => {
            appendFileSync(args.file, `${key} ${args.worker}\n`);
            await new Promise((r) => setTimeout(r, 300)); // the payment takes a while: the other process arrives meanwhile
            return { paidBy: args.worker };
          });
          process.stdout.write(`${JSON.stringify({ key, result, replayed })}\n`);
        } catch (error) {
          process.stdout.write(`${JSON.stringify({ key, error: error instanceof ToolwrightError ? error.code : String(error) })}\n`);
        }
      }),
    );
  } finally {
    await store.close();
  }
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
