/**
 * The step journal in one process: a step whose claim a live run holds refuses a second attempt of
 * the same run typed (RUN_CLAIMED) before it saves anything; a store that fails under a step fails
 * the run with STORE_UNAVAILABLE, saving nothing; a run that saved (or paused, then resumed and
 * saved) leaves no records behind; InMemoryStore and `durableSteps: false` keep none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsString } from 'class-validator';
import {
  Agent,
  Param,
  ScriptedModel,
  SqliteStore,
  StepClaimedError,
  StoreUnavailableError,
  Tool,
  type AgentContext,
  type Model,
} from 'toolwright';
import { defaultSqliteDriver, type IdempotencyClaims } from '../../src/stores';
import { type ModelRequest, type ModelResponse } from '../../src/agent/models';
import { failingSaves } from '../support/failing-saves';
import { openRaw } from '../support/sqlite-drivers';

class LookupArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
}

const ran: string[] = [];
@Tool({ name: 'lookup', description: 'Looks an order up', input: LookupArgs, approval: ({ order }: LookupArgs) => order === 'PAUSE' })
class LookupTool {
  execute({ order }: LookupArgs) {
    ran.push(order);
    return { order, status: 'shipped' };
  }
}

const script = (order = 'A-1') =>
  new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'lookup', arguments: { order } }] }, { text: 'It shipped.' }]);
const dir = mkdtempSync(join(tmpdir(), 'tw-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const driver = defaultSqliteDriver();
let n = 0;
function newStore() {
  const path = join(dir, `j-${n++}.db`);
  return { store: new SqliteStore({ path, driver }), path };
}
/** The step records in a store's file. */
function stepRows(path: string): number {
  const db = openRaw(driver, path);
  try {
    return Number(db.prepare("SELECT count(*) FROM idempotency WHERE namespace = 'toolwright.steps'", 'pluck').get());
  } finally {
    db.close();
  }
}
const who = (sessionId: string) => ({ sessionId, userId: 'u-1' });

beforeEach(() => (ran.length = 0));

it('refuses a second attempt of a run while the first one is in a step (RUN_CLAIMED), saving nothing; the first completes alone', async () => {
  const { store } = newStore();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let asked = 0;
  const slow: Model = {
    name: 'slow',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      asked++;
      if (!request.messages.some((m) => m.role === 'tool')) {
        await held;
        return { content: null, toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"order":"A-1"}' }] };
      }
      return { content: 'It shipped.', toolCalls: [] };
    },
  };
  const first = new Agent({ name: 'desk', model: slow, tools: [LookupTool], store }).run('where is A-1?', who('s-claimed'));
  await new Promise((r) => setTimeout(r, 50));
  const second = new Agent({ name: 'desk', model: script(), tools: [LookupTool], store });
  const refused = await second.run('where is A-1?', who('s-claimed')).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(StepClaimedError);
  expect(refused).toMatchObject({ code: 'RUN_CLAIMED' });
  release();
  await expect(first).resolves.toMatchObject({ status: 'completed', output: 'It shipped.' });
  expect(asked).toBe(2);
  expect(ran).toEqual(['A-1']);
  const saved = (await store.loadSession({ sessionId: 's-claimed' }))!;
  expect(saved.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  await store.close();
});

it('leaves no step records once the run saved, keeps them while it is paused, and none once the resume saved', async () => {
  const { store, path } = newStore();
  await new Agent({ name: 'desk', model: script(), tools: [LookupTool], store }).run('where is A-1?', who('s-done'));
  expect(stepRows(path)).toBe(0);
  const agent = new Agent({ name: 'desk', model: script('PAUSE'), tools: [LookupTool], store });
  expect((await agent.run('and PAUSE?', who('s-paused'))).status).toBe('paused');
  expect(stepRows(path)).toBe(1); // the model turn that asked for the call
  expect(((await store.loadSession({ sessionId: 's-paused' }))!.pendingRun as { steps: string[] }).steps).toHaveLength(1);
  expect((await agent.approve(who('s-paused'), 'c1')).status).toBe('completed');
  expect(stepRows(path)).toBe(0);
  expect(ran).toEqual(['A-1', 'PAUSE']);
  await store.close();
});

it('keeps no records with durableSteps: false', async () => {
  const { store, path } = newStore();
  await new Agent({ name: 'desk', model: script('PAUSE'), tools: [LookupTool], store, durableSteps: false }).run('PAUSE?', who('s-off'));
  expect(stepRows(path)).toBe(0);
  await store.close();
});

it('fails the run with STORE_UNAVAILABLE, saving nothing, when the store fails to record a step; the retry then completes', async () => {
  const { store } = newStore();
  let failNext = false;
  const flaky = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== 'idempotency') return typeof value === 'function' ? value.bind(target) : value;
      return (namespace: string) => {
        const claims = target.idempotency(namespace);
        return {
          ...claims,
          claim: claims.claim.bind(claims),
          renew: claims.renew.bind(claims),
          release: claims.release.bind(claims),
          forget: claims.forget!.bind(claims),
          complete: (...args: Parameters<IdempotencyClaims<unknown>['complete']>) => {
            if (!failNext) return claims.complete(...args);
            failNext = false;
            return Promise.reject(new StoreUnavailableError('sqlite', new Error('disk I/O error')));
          },
        } satisfies IdempotencyClaims<unknown>;
      };
    },
  });
  failNext = true;
  const agent = new Agent({ name: 'desk', model: script(), tools: [LookupTool], store: flaky, stepLeaseMs: 50 });
  await expect(agent.run('where is A-1?', who('s-flaky'))).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(await store.loadSession({ sessionId: 's-flaky' })).toMatchObject({ history: [] });
  await new Promise((r) => setTimeout(r, 100)); // the unrecorded step's claim lapses
  const retried = await new Agent({ name: 'desk', model: script(), tools: [LookupTool], store: flaky, stepLeaseMs: 50 }).run(
    'where is A-1?',
    who('s-flaky'),
  );
  expect(retried).toMatchObject({ status: 'completed', output: 'It shipped.' });
  expect((await store.loadSession({ sessionId: 's-flaky' }))!.history.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'assistant',
  ]);
  await store.close();
});

class NoteArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
}

@Tool({ name: 'note_order', description: 'Remembers the order in the session', input: NoteArgs })
class NoteOrderTool {
  execute({ order }: NoteArgs, context: AgentContext) {
    ran.push(order);
    context.setState('last_order_id', order);
    context.forgetState('draft');
    return { noted: order };
  }
}

it('applies a replayed tool call’s session-state writes again (the attempt that recorded it never saved them)', async () => {
  const { store: real } = newStore();
  const { store, failNext } = failingSaves(real);
  const noted = () =>
    new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'note_order', arguments: { order: 'B-7' } }] }, { text: 'Noted.' }]);
  await real.claimSession({ sessionId: 's-state' }, 'u-1');
  await real.saveSession({ sessionId: 's-state' }, { set: { draft: 'x' }, deleted: [], appended: [], userId: 'u-1' });
  failNext();
  const agent = (model: ScriptedModel) => new Agent({ name: 'desk', model, tools: [NoteOrderTool], store });
  await expect(agent(noted()).run('note B-7', who('s-state'))).rejects.toBeInstanceOf(StoreUnavailableError);
  const model = noted();
  expect(await agent(model).run('note B-7', who('s-state'))).toMatchObject({ status: 'completed', output: 'Noted.' });
  expect(model.requests).toHaveLength(0);
  expect(ran).toEqual(['B-7']); // replayed, not run again
  const saved = (await real.loadSession({ sessionId: 's-state' }))!;
  expect(saved.state.last_order_id).toBe('B-7');
  expect(Object.hasOwn(saved.state, 'draft')).toBe(false);
  await real.close();
});

it('streams a replayed model turn’s text as one delta', async () => {
  const { store: real } = newStore();
  const { store, failNext } = failingSaves(real);
  failNext();
  await expect(
    new Agent({ name: 'desk', model: script(), tools: [LookupTool], store }).run('where is A-1?', who('s-stream')),
  ).rejects.toBeInstanceOf(StoreUnavailableError);
  const model = script();
  const deltas: string[] = [];
  for await (const event of new Agent({ name: 'desk', model, tools: [LookupTool], store }).stream('where is A-1?', who('s-stream')))
    if (event.type === 'text-delta') deltas.push(event.delta);
  expect(deltas).toEqual(['It shipped.']);
  expect(model.requests).toHaveLength(0);
  await real.close();
});
