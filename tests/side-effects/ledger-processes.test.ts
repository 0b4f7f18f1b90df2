/**
 * Two processes, one store (Redis, PostgreSQL, a SQLite file), the same idempotency keys at the same
 * moment: each key's side effect runs once, in one of them, and both get that run's result.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LedgerWorkerArgs } from '../support/ledger-worker';
import { useServers } from '../support/use-servers';
import { runWorkers } from '../support/workers';

const WORKER = resolve(__dirname, '../support/ledger-worker.ts');
const KEYS = 8;

const servers = useServers('tw-ledger-mp-');
const dir = servers.dir;

it.each([
  ['redis', () => servers.redis.url],
  ['postgres', () => servers.postgres.connectionString],
  ['sqlite', () => join(dir, 'ledger.db')],
] as Array<[LedgerWorkerArgs['kind'], () => string]>)(
  'on %s, two processes paying the same keys at once pay each key once',
  async (kind, target) => {
    const keys = Array.from({ length: KEYS }, () => `refund-${randomUUID()}`);
    const file = join(dir, `${kind}-payments.log`);
    writeFileSync(file, '');
    const outputs = await runWorkers(
      WORKER,
      ['A', 'B'].map((worker) => ({ kind, target: target(), keys, file, worker })),
    );
    const payments = readFileSync(file, 'utf8').trim().split('\n');
    expect(payments.map((p) => p.split(' ')[0]).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const answers = outputs.map(({ lines }) =>
        lines
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { key: string; result?: unknown; replayed?: boolean; error?: string })
          .find((a) => a.key === key),
      );
      const payer = payments.find((p) => p.startsWith(`${key} `))!.split(' ')[1];
      expect(answers.map((a) => a?.result)).toEqual([{ paidBy: payer }, { paidBy: payer }]);
      expect(answers.map((a) => a?.replayed).sort()).toEqual([false, true]);
    }
  },
  120_000,
);
