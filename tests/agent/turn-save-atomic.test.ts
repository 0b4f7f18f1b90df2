/**
 * One run's save is all or nothing: when the memory part of the end-of-run save fails, the
 * session's turn is not written either, so the caller's retry (as STORE_UNAVAILABLE tells it)
 * runs the turn on the session as it was, on every store.
 */
import { join } from 'node:path';
import { IsString } from 'class-validator';
import { Pool } from 'pg';
import Redis from 'ioredis';
import {
  Agent,
  InMemoryStore,
  Param,
  PostgresStore,
  RedisStore,
  ScriptedModel,
  SqliteStore,
  Tool,
  ToolwrightError,
  type AgentContext,
  type AgentMemory,
  type SessionStore,
} from 'toolwright';
import { defaultSqliteDriver } from '../../src/stores/sqlite/open-driver';
import { openRaw } from '../support/sqlite-drivers';
import { useServers } from '../support/use-servers';

class NoteArgs {
  @Param({ description: 'What to remember' }) @IsString() text!: string;
}

/** A fault the test injects while the tool runs: after the memory's load, before the run's save. */
let duringTool: (() => Promise<void>) | undefined;

/** Writes the session (state) and the memory (an entry) in one turn; `poison` makes the entry one the store refuses. */
@Tool({ name: 'note', description: 'Remembers a note', input: NoteArgs, memory: true })
class NoteTool {
  async execute({ text }: NoteArgs, context: AgentContext, memory: AgentMemory) {
    await duringTool?.();
    context.setState('last_note', text);
    // A BigInt is no JSON: every store refuses the entry before it writes.
    memory.remember(text, 'note', text.includes('unencodable') ? { n: BigInt(1) } : undefined);
    return { status: 'noted' };
  }
}

const turn = (text: string) => new ScriptedModel([{ toolCalls: [{ name: 'note', arguments: { text } }] }, { text: 'Noted.' }]);

const servers = useServers('tw-turn-save-');
const dir = servers.dir;

interface Backend {
  store: SessionStore;
  /** Makes the backend itself refuse a memory entry holding `poison` (inside the save's transaction or script); none for in-memory. */
  poison?: () => Promise<void>;
  /** Takes the fault away again, so the retry can save. */
  heal?: () => Promise<void>;
}

let n = 0;
const backends: Array<[string, () => Promise<Backend>]> = [
  ['in-memory', async () => ({ store: new InMemoryStore() })],
  [
    'sqlite',
    async () => {
      const path = join(dir, `t-${n++}.db`);
      const store = new SqliteStore({ path });
      return {
        store,
        poison: async () => {
          await store.loadSession({ sessionId: 'migrate' }); // the schema exists before the trigger is added
          const db = openRaw(defaultSqliteDriver(), path); // the store's driver: one driver per file per process
          db.exec(`CREATE TRIGGER poison BEFORE INSERT ON memory_entries WHEN NEW.body LIKE '%poison%'
                   BEGIN SELECT RAISE(ABORT, 'poisoned entry'); END`);
          db.close();
        },
        heal: async () => {
          const db = openRaw(defaultSqliteDriver(), path); // the store's driver: one driver per file per process
          db.exec('DROP TRIGGER poison');
          db.close();
        },
      };
    },
  ],
  [
    'redis',
    async () => {
      const prefix = `ts${n++}:`;
      const store = new RedisStore({ url: servers.redis.url, keyPrefix: prefix, commandTimeoutMs: 10_000 });
      return {
        store,
        // The memory's entries key holding another kind of value (after the run loaded it): the entries' RPUSH
        // would fail after the session's writes.
        poison: async () => {
          const client = new Redis(servers.redis.url);
          await client.set(`${prefix}memory:{${JSON.stringify(['', 'notes', 'u-1'])}}:entries`, 'not a list');
          await client.quit();
        },
        heal: async () => {
          const client = new Redis(servers.redis.url);
          await client.del(`${prefix}memory:{${JSON.stringify(['', 'notes', 'u-1'])}}:entries`);
          await client.quit();
        },
      };
    },
  ],
  [
    'postgres',
    async () => {
      const schema = `ts${n++}`;
      const store = new PostgresStore({ connectionString: servers.postgres.connectionString, schema, statementTimeoutMs: 10_000 });
      return {
        store,
        poison: async () => {
          await store.loadSession({ sessionId: 'migrate' });
          const pool = new Pool({ connectionString: servers.postgres.connectionString });
          await pool.query(`CREATE FUNCTION ${schema}.poison() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN IF NEW.body LIKE '%poison%' THEN RAISE EXCEPTION 'poisoned entry'; END IF; RETURN NEW; END $$;
            CREATE TRIGGER poison BEFORE INSERT ON ${schema}.memory_entries FOR EACH ROW EXECUTE FUNCTION ${schema}.poison();`);
          await pool.end();
        },
        heal: async () => {
          const pool = new Pool({ connectionString: servers.postgres.connectionString });
          await pool.query(`DROP TRIGGER poison ON ${schema}.memory_entries`);
          await pool.end();
        },
      };
    },
  ],
];

async function expectNotAdvanced(store: SessionStore, text: string, fault?: () => Promise<void>): Promise<unknown> {
  const who = { sessionId: 'atomic', userId: 'u-1' };
  await new Agent({ name: 'notes', model: turn('first'), tools: [NoteTool], store }).run('note first', who);
  const before = await store.loadSession({ sessionId: 'atomic' });
  const memoryBefore = await store.loadMemory({ agentName: 'notes', userId: 'u-1' });
  duringTool = fault;

  const failed = await new Agent({ name: 'notes', model: turn(text), tools: [NoteTool], store })
    .run(`note ${text}`, who)
    .catch((e: unknown) => e)
    .finally(() => (duringTool = undefined));
  expect(failed).toBeInstanceOf(Error);
  // Nothing of the turn: not its messages, not its state, not its entry.
  const after = await store.loadSession({ sessionId: 'atomic' });
  expect(after).toEqual(before);
  expect(after!.state.last_note).toBe('first');
  // (A Redis memory whose entries key was given another type cannot be read at all: the session is the check there.)
  const memoryAfter = await store.loadMemory({ agentName: 'notes', userId: 'u-1' }).catch(() => 'unreadable' as const);
  if (memoryAfter !== 'unreadable') expect(memoryAfter!.entries).toEqual(memoryBefore!.entries);
  return failed;
}

describe.each(backends)('%s: a save whose memory part fails', (_kind, open) => {
  let backend: Backend;
  beforeEach(async () => {
    backend = await open();
  });
  afterEach(() => backend.store.close());

  it('writes nothing of the turn when the memory entry cannot be encoded', async () => {
    await expectNotAdvanced(backend.store, 'unencodable');
  });
});

// In process nothing can fail half-way; these backends can refuse an entry after the session's writes began.
describe.each(backends.filter(([kind]) => kind !== 'in-memory'))('%s: a memory entry the backend refuses', (_kind, open) => {
  let backend: Backend;
  beforeEach(async () => {
    backend = await open();
  });
  afterEach(() => backend.store.close());

  it('rolls the whole save back (STORE_UNAVAILABLE): the session is where it was, ready for the retry', async () => {
    const failed = await expectNotAdvanced(backend.store, 'poison', backend.poison);
    expect(failed).toBeInstanceOf(ToolwrightError);
    expect((failed as ToolwrightError).code).toBe('STORE_UNAVAILABLE');

    // The caller retries as told, once the store is well again: the turn is in the session once.
    await backend.heal!();
    const who = { sessionId: 'atomic', userId: 'u-1' };
    const retried = await new Agent({ name: 'notes', model: turn('poison'), tools: [NoteTool], store: backend.store }).run(
      'note poison',
      who,
    );
    expect(retried.status).toBe('completed');
    const history = (await backend.store.loadSession({ sessionId: 'atomic' }))!.history;
    expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['note first', 'note poison']);
  });
});
