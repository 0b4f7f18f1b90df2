/**
 * `context.elicit` in the agent runner: the call's request pauses the run like an approval; the
 * app's answer (from another Agent over another store connection) resumes it, claimed once; the
 * call runs again and gets the answer, validated by the input class; the response's other calls
 * do not run twice (the step journal). On memory, SQLite, Redis and PostgreSQL.
 */
import { join } from 'node:path';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import {
  Agent,
  AgentContext,
  ApprovalDecisionError,
  InMemoryStore,
  Param,
  RunClaimedError,
  RunPausedError,
  ScriptedModel,
  Tool,
  type AgentEvent,
  type Message,
  type SessionStore,
  type ToolInterface,
} from '../../src';
import { openStore } from '../support/agent-worker';
import { useServers } from '../support/use-servers';

class NoInput {}

class Booking {
  @Param({ description: 'Name on the booking' }) @IsString() @MinLength(1) name!: string;
  @Param({ description: 'Seats' }) @IsInt() @Min(1) seats!: number;
}

let runs: Record<string, number> = {};
const ran = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);

@Tool({ name: 'book', description: 'Books a table, asking the user for the details', input: NoInput })
class BookTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    ran('book');
    const answer = await context.elicit('Who is the table for?', Booking);
    if (answer.action !== 'accept') return { booked: false, action: answer.action };
    return { booked: true, name: answer.content.name, seats: answer.content.seats, instance: answer.content instanceof Booking };
  }
}

@Tool({ name: 'pay', description: 'Pays online, through a page the user opens', input: NoInput })
class PayTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    ran('pay');
    const first = await context.elicitUrl('Pay on this page', 'https://pay.example/checkout/1');
    const second = await context.elicit('Anything else?', Booking);
    return { url: first.action, second: second.action };
  }
}

@Tool({ name: 'count', description: 'Counts its runs', input: NoInput })
class CountTool implements ToolInterface {
  execute(): object {
    return { count: ran('count') };
  }
}

const servers = useServers('tw-elicit-');
type Kind = 'memory' | 'sqlite' | 'redis' | 'postgres';
const shared = new Map<string, InMemoryStore>();
function connect(kind: Kind): SessionStore {
  if (kind === 'memory') return shared.get('m') ?? (shared.set('m', new InMemoryStore()), shared.get('m')!);
  return openStore(
    kind,
    kind === 'redis' ? servers.redis.url : kind === 'postgres' ? servers.postgres.connectionString : join(servers.dir, 'e.db'),
  );
}

// The asking tool's result (not `count`'s), as the model saw it.
const lastTool = (messages: readonly Message[]) =>
  [...messages].reverse().find((m) => m.role === 'tool' && m.name !== 'count') as Extract<Message, { role: 'tool' }>;
const both = {
  toolCalls: [
    { id: 'c-book', name: 'book', arguments: {} },
    { id: 'c-count', name: 'count', arguments: {} },
  ],
};
const echo = (request: { messages: readonly Message[] }) => ({ text: lastTool(request.messages).content });

let sessionN = 0;
beforeEach(() => {
  runs = {};
  shared.clear();
});

describe.each(['memory', 'sqlite', 'redis', 'postgres'] as Kind[])('context.elicit in the agent runner (%s)', (kind) => {
  const open: SessionStore[] = [];
  const agentOn = (model: ScriptedModel, tools = [BookTool, CountTool, PayTool], durableSteps = true) => {
    const store = connect(kind);
    if (kind !== 'memory') open.push(store);
    return new Agent({ name: 'host', model, tools, store, durableSteps });
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const who = () => ({ sessionId: `el-${kind}-${++sessionN}`, userId: 'u-1' });

  it('pauses with the form, resumes from another Agent with the answer, runs the other call once', async () => {
    const session = who();
    const first = agentOn(new ScriptedModel([both]));
    const paused = await first.run('book a table', session);
    expect(paused.status).toBe('paused');
    expect(paused.approvals).toEqual([]);
    expect(paused.inputs).toEqual([
      {
        toolCallId: 'c-book',
        name: 'book',
        arguments: '{}',
        request: {
          mode: 'form',
          message: 'Who is the table for?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'Name on the booking', minLength: 1 },
              seats: { type: 'integer', description: 'Seats', minimum: 1 },
            },
            required: ['name', 'seats'],
          },
        },
      },
    ]);
    expect(runs).toEqual({ book: 1, count: 1 });
    await expect(first.run('another message', session)).rejects.toBeInstanceOf(RunPausedError);

    const second = agentOn(new ScriptedModel([echo]));
    expect((await second.pendingInputs(session)).map((i) => i.toolCallId)).toEqual(['c-book']);
    const done = await second.answer(session, 'c-book', { action: 'accept', content: { name: 'Ada', seats: 2 } });
    expect(done.status).toBe('completed');
    expect(done.runId).toBe(paused.runId);
    expect(JSON.parse(done.output!)).toEqual({ booked: true, name: 'Ada', seats: 2, instance: true });
    // The eliciting call ran again; the other one was replayed from the step journal.
    expect(runs).toEqual({ book: 2, count: 1 });
    expect(done.inputs).toEqual([]);
    expect(await second.pendingInputs(session)).toEqual([]);
    const reader = connect(kind);
    if (kind !== 'memory') open.push(reader);
    const saved = await reader.loadSession({ sessionId: session.sessionId });
    expect(saved!.pendingRun).toBeNull();
    expect(saved!.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('without durable steps too, the finished calls of the paused response are not run again (their results kept with it)', async () => {
    const session = who();
    const tools = [BookTool, CountTool, PayTool];
    await agentOn(new ScriptedModel([both]), tools, false).run('book', session);
    const done = await agentOn(new ScriptedModel([echo]), tools, false).answer(session, 'c-book', {
      action: 'accept',
      content: { name: 'Ada', seats: 2 },
    });
    expect(done.status).toBe('completed');
    expect(runs).toEqual({ book: 2, count: 1 });
    expect(done.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['book', 'ok'],
      ['count', 'ok'],
    ]);
    expect(JSON.parse(done.toolCalls[1].result)).toEqual({ count: 1 });
  });

  it('an invalid answer reaches the tool as INVALID_INPUT; a declined one as the decline', async () => {
    const session = who();
    await agentOn(new ScriptedModel([both])).run('book', session);
    const done = await agentOn(new ScriptedModel([echo])).answer(session, 'c-book', { action: 'accept', content: { name: '', seats: 0 } });
    const book = done.toolCalls.find((c) => c.name === 'book')!;
    expect(book).toEqual(expect.objectContaining({ status: 'error', code: 'INVALID_INPUT' }));

    const other = who();
    await agentOn(new ScriptedModel([both])).run('book', other);
    const declined = await agentOn(new ScriptedModel([echo])).resume(other, { 'c-book': { action: 'decline' } });
    expect(JSON.parse(declined.output!)).toEqual({ booked: false, action: 'decline' });
  });

  it('two answerers at once: one resumes, the other is refused; the call runs once more', async () => {
    const session = who();
    await agentOn(new ScriptedModel([both])).run('book', session);
    const a = agentOn(new ScriptedModel([echo]));
    const b = agentOn(new ScriptedModel([echo]));
    const outcomes = await Promise.allSettled([
      a.answer(session, 'c-book', { action: 'accept', content: { name: 'A', seats: 1 } }),
      b.answer(session, 'c-book', { action: 'accept', content: { name: 'B', seats: 1 } }),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toEqual(expect.objectContaining({ code: expect.stringMatching(/^(RUN_CLAIMED|APPROVAL_ALREADY_DECIDED)$/) }));
    if (lost.reason instanceof RunClaimedError) expect(lost.reason.code).toBe('RUN_CLAIMED');
    expect(runs).toEqual({ book: 2, count: 1 });
  });

  it('a URL request, then a second request of the same call: two pauses, answers replayed in order; events', async () => {
    const session = who();
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c-pay', name: 'pay', arguments: {} }] }]);
    const events: AgentEvent[] = [];
    for await (const event of agentOn(model).stream('pay', session)) events.push(event);
    const required = events.filter((e) => e.type === 'input-required');
    expect(required).toEqual([
      expect.objectContaining({
        input: expect.objectContaining({
          toolCallId: 'c-pay',
          request: { mode: 'url', message: 'Pay on this page', url: 'https://pay.example/checkout/1' },
        }),
      }),
    ]);
    expect(events[events.length - 1].type).toBe('run-end');

    // A URL answer carries no content; the call runs again and asks its second question.
    const again = await agentOn(new ScriptedModel([])).answer(session, 'c-pay', { action: 'accept' });
    expect(again.status).toBe('paused');
    expect(again.inputs!.map((i) => i.request.mode)).toEqual(['form']);
    const done = await agentOn(new ScriptedModel([echo])).answer(session, 'c-pay', { action: 'cancel' });
    expect(JSON.parse(done.output!)).toEqual({ url: 'accept', second: 'cancel' });
    expect(runs.pay).toBe(3);
  });

  it('refuses a malformed answer and an answer for a call that waits on nothing; the run stays paused', async () => {
    const session = who();
    await agentOn(new ScriptedModel([both])).run('book', session);
    const agent = agentOn(new ScriptedModel([echo]));
    await expect(agent.resume(session, { 'c-book': { action: 'maybe' } as never })).rejects.toBeInstanceOf(ApprovalDecisionError);
    await expect(agent.answer(session, 'c-book', { action: 'accept', content: [1] })).rejects.toBeInstanceOf(ApprovalDecisionError);
    await expect(agent.answer(session, 'c-count', { action: 'decline' })).rejects.toBeInstanceOf(ApprovalDecisionError);
    expect((await agent.pendingInputs(session)).map((i) => i.toolCallId)).toEqual(['c-book']);
    expect(runs).toEqual({ book: 1, count: 1 });
  });
});
