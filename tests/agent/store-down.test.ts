import { IsString } from 'class-validator';
import { Agent, InMemoryStore, Param, RedisStore, ScriptedModel, StoreUnavailableError, Tool } from 'toolwright';
import { type SessionChanges, type SessionKey } from '../../src/stores';
import { freePort } from '../support/servers';

class NoteInput {
  @Param({ description: 'What to note' }) @IsString() text!: string;
}

@Tool({ name: 'note', description: 'Notes something in the session', input: NoteInput })
class NoteTool {
  execute(args: NoteInput, context: import('toolwright').AgentContext) {
    context.setState('note', args.text);
    return { status: 'noted' };
  }
}

const script = () => new ScriptedModel([{ toolCalls: [{ name: 'note', arguments: { text: 'hello' } }] }, { text: 'Noted.' }]);

/** An in-memory store whose saves fail while `down` is set, as a store that went away mid-turn. */
class FlakyStore extends InMemoryStore {
  down = false;

  override async saveSession(key: SessionKey, changes: SessionChanges): Promise<number> {
    if (this.down) throw new StoreUnavailableError('flaky', new Error('connection reset'));
    return super.saveSession(key, changes);
  }
}

describe('a store that is down', () => {
  it('fails the run with StoreUnavailableError before the model is asked anything (Redis on a closed port)', async () => {
    const store = new RedisStore({ port: await freePort(), commandTimeoutMs: 500 });
    const model = script();
    const agent = new Agent({ name: 'notes', model, tools: [NoteTool], store });
    try {
      const error = await agent.run('note hello', { sessionId: 's-1', userId: 'u-1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      expect(model.requests).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('writes nothing of a turn whose save fails, touches no other session, and serves again once the store is back', async () => {
    const store = new FlakyStore();
    const agent = new Agent({ name: 'notes', model: script(), tools: [NoteTool], store });
    await agent.run('note hello', { sessionId: 'other', userId: 'u-2' });
    const before = await store.loadSession({ sessionId: 'other' });

    store.down = true;
    const failed = await new Agent({ name: 'notes', model: script(), tools: [NoteTool], store })
      .run('note hello', { sessionId: 's-1', userId: 'u-1' })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    // Only the owner's claim, made before the model ran, is there: nothing of the turn.
    expect(await store.loadSession({ sessionId: 's-1' })).toMatchObject({
      userId: 'u-1',
      state: {},
      history: [],
      userInput: null,
      version: 0,
    });
    expect(await store.loadSession({ sessionId: 'other' })).toEqual(before);

    store.down = false;
    const result = await new Agent({ name: 'notes', model: script(), tools: [NoteTool], store }).run('note hello', {
      sessionId: 's-1',
      userId: 'u-1',
    });
    expect(result.output).toBe('Noted.');
    expect((await store.loadSession({ sessionId: 's-1' }))?.state.note).toBe('hello');
  });
});
