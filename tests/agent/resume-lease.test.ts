/**
 * A resume holds its claim on the paused run while it runs: a second approval arriving after
 * `resumeLeaseMs`, while the first resume's tool is still paying, gets RUN_CLAIMED and runs nothing.
 * A claim whose process died (never renewed) still lapses, and the run can then be resumed.
 */
import { join } from 'node:path';
import { IsString } from 'class-validator';
import {
  Agent,
  InMemoryStore,
  Param,
  PostgresStore,
  RedisStore,
  RunClaimedError,
  ScriptedModel,
  SqliteStore,
  Tool,
  type SessionStore,
} from 'toolwright';
import { useServers } from '../support/use-servers';

class PayArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function payTool(paid: string[], ms: number) {
  @Tool({ name: 'pay', description: 'Pays a refund', input: PayArgs, approval: true })
  class PayTool {
    async execute({ order }: PayArgs) {
      paid.push(order);
      await sleep(ms);
      return { paid: order };
    }
  }
  return PayTool;
}

const servers = useServers('tw-resume-lease-');
const dir = servers.dir;

describe.each([
  ['in-memory', () => new InMemoryStore()],
  ['sqlite', () => new SqliteStore({ path: join(dir, 'lease.db') })],
  ['redis', () => new RedisStore({ url: servers.redis.url })],
  ['postgres', () => new PostgresStore({ connectionString: servers.postgres.connectionString })],
] as Array<[string, () => SessionStore]>)('on %s', (_name, open) => {
  let store: SessionStore;
  beforeAll(() => {
    store = open();
  });
  afterAll(() => store.close());

  const agents = (paid: string[], ms: number, resumeLeaseMs: number) =>
    [0, 1].map(
      () =>
        new Agent({
          name: 'lease',
          model: new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'pay', arguments: { order: 'A-1' } }] }, { text: 'Paid.' }]),
          tools: [payTool(paid, ms)],
          store,
          resumeLeaseMs,
        }),
    );

  it('refuses a second approver while the first resume, longer than the lease, is still running its tool', async () => {
    const paid: string[] = [];
    const [first, second] = agents(paid, 900, 300);
    const who = { sessionId: `lease-${Date.now()}-${Math.random()}`, userId: 'u1' };
    expect((await first.run('refund A-1', who)).status).toBe('paused');
    const running = first.approve({ ...who, approver: 'alice' }, 'c1');
    await sleep(600); // twice the lease: only renewal keeps the claim
    await expect(second.approve({ ...who, approver: 'bob' }, 'c1')).rejects.toBeInstanceOf(RunClaimedError);
    expect((await running).status).toBe('completed');
    expect(paid).toEqual(['A-1']);
    const saved = (await store.loadSession({ sessionId: who.sessionId }))!;
    expect(saved.pendingRun).toBeNull();
    expect(saved.history.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('lets a claim lapse when its holder stopped renewing (died): the run is resumed once, elsewhere', async () => {
    const paid: string[] = [];
    const [, second] = agents(paid, 10, 200);
    const who = { sessionId: `lapse-${Date.now()}-${Math.random()}`, userId: 'u1' };
    expect((await second.run('refund A-1', who)).status).toBe('paused');
    // What a process that claimed the run and was then killed leaves: a claim nobody renews.
    const stored = (await store.loadSession({ sessionId: who.sessionId }))!.pendingRun as Record<string, unknown>;
    const decided = { ...stored, decisions: { c1: { approve: true, decidedAt: Date.now() } }, claim: { id: 'dead', at: Date.now() } };
    expect(await store.compareAndSetPendingRun({ sessionId: who.sessionId }, stored, decided)).toBe(true);
    await expect(second.approve(who, 'c1')).rejects.toBeInstanceOf(RunClaimedError);
    await sleep(300);
    expect((await second.approve(who, 'c1')).status).toBe('completed');
    expect(paid).toEqual(['A-1']);
  });
});
