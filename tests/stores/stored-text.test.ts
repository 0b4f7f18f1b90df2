/**
 * Text every store keeps: state keys and values, user input, messages, memory entries and the
 * memory summary, drawn from strings of NUL, lone surrogates, quotes and long runs, saved through
 * the SessionStore API on all four stores (real servers). Each save is kept exactly, or refused with
 * a typed input error (INVALID_ID) before anything is written; the verdict is the same on every store.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ToolwrightError } from '../../src/errors/errors';
import { AgentMemory } from '../../src/session/agent-memory';
import type { Message } from '../../src/session/message';
import type { SessionChanges } from '../../src/session/snapshots';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import { startRedisAndPostgres, type PostgresServer, type RedisServer } from '../support/servers';

let redis: RedisServer;
let postgres: PostgresServer;
const dir = mkdtempSync(join(tmpdir(), 'tw-text-'));
let stores: Array<[string, SessionStore]> = [];

beforeAll(async () => {
  [redis, postgres] = await startRedisAndPostgres();
  stores = [
    ['in-memory', new InMemoryStore()],
    ['sqlite', new SqliteStore({ path: join(dir, 'text.db') })],
    ['redis', new RedisStore({ url: redis.url, keyPrefix: 'tw-text:' })],
    ['postgres', new PostgresStore({ connectionString: postgres.connectionString, schema: 'tw_text' })],
  ];
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map(([, s]) => s.close()));
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Code units that stores have mangled: NUL, each kind of lone surrogate, U+FFFD (what they became), a pair, quotes. */
const unit = fc.constantFrom(
  'a',
  'b',
  ' ',
  '\u0000',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  '\uFFFD',
  '😀',
  'é',
  '"',
  "'",
  '\\',
  '\n',
  '%',
);
/** About 3,000 to 4,500 characters that do not compress (PostgreSQL's index limit is ~2.7 KB after compression). */
const long = fc.array(fc.integer({ min: 0 }), { minLength: 500, maxLength: 700 }).map((ns) => ns.map((n) => n.toString(36)).join(''));
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit, maxLength: 4 }), long).map(([a, b]) => a + b) },
);
/** State keys: mostly ones every store keeps (no NUL, no lone surrogate, short), so most saves are kept. */
const keptUnit = fc.constantFrom('a', 'b', ' ', '\uFFFD', '😀', 'é', '"', "'", '\\', '%');
const key = fc.oneof({ weight: 3, arbitrary: fc.string({ unit: keptUnit, maxLength: 8 }) }, { weight: 1, arbitrary: text });
/** A memory entry's content is never empty. */
const filled = text.filter((t) => t.length > 0);
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }).map((o) => JSON.parse(JSON.stringify(o)) as unknown),
  ),
})).value;
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: text }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.option(text, { nil: null }),
    toolCalls: fc.array(fc.record({ id: text, name: text, arguments: text }), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({ role: fc.constant('tool' as const), toolCallId: text, name: text, content: text }),
);
const memoryWrite = fc.record({
  facts: fc.array(filled, { maxLength: 3 }),
  learnings: fc.array(fc.tuple(filled, text), { maxLength: 2 }),
  preferences: fc.array(fc.tuple(filled, text), { maxLength: 2 }),
  summary: fc.option(text, { nil: null }),
});
/** Two turns: the second deletes keys of the first and keys never set. */
const turns = fc
  .record({
    set: fc.dictionary(key, json, { maxKeys: 4 }),
    userInput: fc.option(text, { nil: null }),
    appended: fc.array(message, { maxLength: 3 }),
  })
  .chain((first) => {
    const earlier = Object.keys(first.set);
    const deleted = earlier.length ? fc.oneof(key, fc.constantFrom(...earlier)) : key;
    return fc.tuple(
      fc.constant(first),
      fc.record({ set: fc.dictionary(key, json, { maxKeys: 2 }), deleted: fc.array(deleted, { maxLength: 3 }), userInput: text }),
    );
  });

type Value<A> = A extends fc.Arbitrary<infer T> ? T : never;
type Outcome = { kept: true } | { refused: string };

/** What a call did: kept, or refused with a code. A non-typed failure fails the test as is. */
async function outcome(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    await call();
    return { kept: true };
  } catch (error) {
    if (!(error instanceof ToolwrightError)) throw error;
    return { refused: error.code };
  }
}

/** One case on one store: each save's outcome, then what the store holds. */
async function run(store: SessionStore, [first, second]: Value<typeof turns>, write: Value<typeof memoryWrite>) {
  const key = { sessionId: `s-${randomUUID()}`, tenantId: 't-text' };
  const changes1: SessionChanges = { set: first.set, deleted: [], appended: first.appended, userInput: first.userInput };
  const changes2: SessionChanges = { set: second.set, deleted: second.deleted, appended: [], userInput: second.userInput };
  // The second save as a run's save (session and memory together): it checks keys as saveSession does.
  const turnMemory = { key: { agentName: 'text', userId: `t-${randomUUID()}` }, changes: { added: [] } };
  const saves = [
    await outcome(() => store.saveSession(key, changes1)),
    await outcome(() => (store.saveTurn ? store.saveTurn(key, changes2, turnMemory) : store.saveSession(key, changes2))),
  ];
  const loaded = await store.loadSession(key);
  const session = loaded && { state: { ...loaded.state }, history: loaded.history, userInput: loaded.userInput };

  const memoryKey = { agentName: 'text', userId: `u-${randomUUID()}` };
  const memory = new AgentMemory(memoryKey);
  for (const f of write.facts) memory.addFact(f);
  for (const [content, context] of write.learnings) memory.addLearning(content, context);
  for (const [content, category] of write.preferences) memory.addPreference(content, category);
  if (write.summary !== null) memory.updateSummary(write.summary);
  const added = memory.takeChanges();
  const memorySave = await outcome(() => store.saveMemory(memoryKey, added));
  const snapshot = await store.loadMemory(memoryKey);
  const kept = snapshot && { entries: [...snapshot.entries], summary: snapshot.summary };
  return { saves, session, memorySave, memory: kept, added };
}

/** A state key every store keeps apart and exactly: no lone surrogate, no NUL, at most 512 UTF-8 bytes (a delete: any length). */
const storable = (k: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(k) && !k.includes('\u0000');
const keepable = (k: string) => storable(k) && Buffer.byteLength(k, 'utf8') <= 512;

/** Runs one case on every store and checks each against the model: a save is refused only for a state key no store keeps; otherwise applied exactly. */
async function expectSameOnEveryStore(session: Value<typeof turns>, write: Value<typeof memoryWrite>): Promise<void> {
  const results = [];
  for (const [name, store] of stores) results.push({ name, ...(await run(store, session, write)) });
  const [first, second] = session;
  const accept1 = Object.keys(first.set).every(keepable);
  const accept2 = Object.keys(second.set).every(keepable) && second.deleted.every(storable);
  let state: Record<string, unknown> | undefined;
  let userInput: string | null = null;
  if (accept1) {
    state = { ...first.set };
    userInput = first.userInput;
  }
  if (accept2) {
    // Deletes first, then sets: a key both deleted and set is kept.
    state ??= {};
    for (const k of second.deleted) delete state[k];
    Object.assign(state, second.set);
    userInput = second.userInput;
  }
  const refused = { refused: 'INVALID_ID' };
  const expected = {
    saves: [accept1 ? { kept: true } : refused, accept2 ? { kept: true } : refused],
    session: state && { state, history: accept1 ? first.appended : [], userInput },
    memorySave: { kept: true },
  };
  for (const r of results) {
    expect({ store: r.name, saves: r.saves, session: r.session, memorySave: r.memorySave }).toEqual({ store: r.name, ...expected });
    expect({ store: r.name, memory: r.memory }).toEqual({
      store: r.name,
      memory: { entries: r.added.added, summary: r.added.summary ?? null },
    });
  }
}

const noMemory = { facts: [], learnings: [], preferences: [], summary: null };
const plain = { set: {}, userInput: null, appended: [] };
const hostile = 'a\u0000b \uD800 \uDFFF\uD800 "\\';
const random = (n: number) => Array.from({ length: n }, () => Math.random().toString(36).slice(2, 8)).join('');

describe('text every store keeps', () => {
  // One case per way a store got it wrong before: each fails on at least one store without the shared checks and JSON text.
  it.each<[string, Value<typeof turns>, Value<typeof memoryWrite>]>([
    [
      'two keys with different lone surrogates (merged into one U+FFFD key by SQLite and Redis)',
      [
        { ...plain, set: { 'a\uD800': 1, 'a\uDBFF': 2 } },
        { set: {}, deleted: [], userInput: '' },
      ],
      noMemory,
    ],
    [
      'a key with NUL (PostgreSQL: STORE_UNAVAILABLE)',
      [
        { ...plain, set: { 'k\u0000': 1 } },
        { set: {}, deleted: [], userInput: '' },
      ],
      noMemory,
    ],
    [
      'a 3,000-character key (PostgreSQL: STORE_LIMIT, a btree entry)',
      [
        { ...plain, set: { [random(500)]: 1 } },
        { set: {}, deleted: [], userInput: '' },
      ],
      noMemory,
    ],
    [
      'deleting a lone-surrogate key (SQLite and Redis deleted the U+FFFD key)',
      [
        { ...plain, set: { 'a\uFFFD': 1 } },
        { set: {}, deleted: ['a\uD800'], userInput: '' },
      ],
      noMemory,
    ],
    [
      'user input with NUL and lone surrogates (PostgreSQL: STORE_UNAVAILABLE; SQLite: U+FFFD)',
      [
        { ...plain, userInput: hostile },
        { set: {}, deleted: [], userInput: `${hostile}!` },
      ],
      noMemory,
    ],
    [
      'a memory summary with NUL and lone surrogates',
      [plain, { set: {}, deleted: [], userInput: '' }],
      { ...noMemory, facts: [hostile], summary: hostile },
    ],
    [
      'a key set and deleted in one save (Redis deleted it after setting it)',
      [
        { ...plain, set: { k: 1 } },
        { set: { k: 2 }, deleted: ['k'], userInput: '' },
      ],
      noMemory,
    ],
  ])('%s', async (_, session, write) => {
    await expectSameOnEveryStore(session, write);
  });

  it('keeps state, user input, messages and memory exactly, or refuses the save with INVALID_ID, the same on every store', async () => {
    await fc.assert(fc.asyncProperty(turns, memoryWrite, expectSameOnEveryStore), { numRuns: 100 });
  }, 120_000);
});
