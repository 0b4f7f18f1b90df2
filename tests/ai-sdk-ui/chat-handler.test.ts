/**
 * The chat endpoint as a `useChat` front end sees it: the AI SDK's own chat client (AbstractChat +
 * DefaultChatTransport, tests/support/ui-chat.ts) against a real node:http server (and the fetch
 * door), the agent a hand-fed stream of AgentEvents.
 */
import { request as httpRequest } from 'node:http';
import type { PendingApproval, ResumeDecision, ResumeOptions, RunOptions, RunResult, ToolCallRecord } from '../../src/agent/agent';
import { ModelCallFailedError } from '../../src/agent/errors';
import { SessionForbiddenError } from '../../src/errors/session-forbidden';
import type { AgentEvent } from '../../src/agent/events';
import { ChatRequestError, createChatHandler, type ChatAgent, type ChatHandlerOptions } from '../../src/ai-sdk-ui';
import { listen, TestChat } from '../support/ui-chat';

const RUN = 'run-1';

function record(id: string, name: string, args: object, result: unknown, status: ToolCallRecord['status'] = 'ok'): ToolCallRecord {
  return { id, name, arguments: JSON.stringify(args), result: JSON.stringify(result), status, durationMs: 1 };
}

function runResult(sessionId: string, over: Partial<RunResult> = {}): RunResult {
  return {
    status: 'completed',
    output: null,
    text: over.output ?? null,
    sessionId,
    runId: RUN,
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    turns: 1,
    durationMs: 3,
    approvals: [],
    ...over,
  };
}

type Script = (options: RunOptions) => AsyncIterable<AgentEvent>;

/** A run that fails on its first read, as a run refused at load does. */
const failing =
  (error: (options: RunOptions) => Error): Script =>
  (options) => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error(options)) }) });

/** An agent whose runs are scripted event by event; records what the handler asked of it. */
class FakeAgent implements ChatAgent {
  runs: Array<{ input: string; options: RunOptions }> = [];
  resumes: Array<{ options: ResumeOptions; decisions: Readonly<Record<string, ResumeDecision>> }> = [];
  /** Set to stream resumes; left unset, `resume` answers with `resumeResult`. */
  streamResume?: ChatAgent['streamResume'];
  resumeResult?: (options: ResumeOptions) => RunResult;

  constructor(private readonly script: Script) {}

  stream(input: string, options: RunOptions): AsyncIterable<AgentEvent> {
    this.runs.push({ input, options });
    return this.script(options);
  }

  async resume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): Promise<RunResult> {
    this.resumes.push({ options, decisions });
    if (!this.resumeResult) throw new Error('no resume scripted');
    return this.resumeResult(options);
  }

  scriptResume(script: (options: ResumeOptions) => AsyncGenerator<AgentEvent>): void {
    this.streamResume = (options, decisions) => {
      this.resumes.push({ options, decisions });
      return script(options);
    };
  }
}

const AUTH: ChatHandlerOptions = { userId: ({ headers }) => headers.get('x-user') ?? undefined };

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function serve(agent: ChatAgent, options: ChatHandlerOptions = AUTH): Promise<string> {
  const server = await listen(createChatHandler(agent, options));
  closers.push(server.close);
  return server.url;
}

/** A turn with text and two tool calls (one fails), then a turn with the answer. */
async function* refundRun({ sessionId }: RunOptions): AsyncGenerator<AgentEvent> {
  yield { type: 'run-start', runId: RUN, sessionId, resumed: false };
  yield { type: 'text-delta', runId: RUN, turn: 1, delta: 'Let me ' };
  yield { type: 'text-delta', runId: RUN, turn: 1, delta: 'check.' };
  yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'c1', name: 'lookup_order', arguments: '{"order_id":"A-1"}' };
  yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'c2', name: 'lookup_customer', arguments: '{"id":7}' };
  yield { type: 'tool-progress', runId: RUN, toolCallId: 'c1', name: 'lookup_order', progress: 1, total: 2 };
  yield { type: 'tool-progress', runId: RUN, toolCallId: 'c1', name: 'lookup_order', progress: 2, total: 2, message: 'found' };
  const ok = record('c1', 'lookup_order', { order_id: 'A-1' }, { status: 'found', total: 40 });
  const failed = record('c2', 'lookup_customer', { id: 7 }, { status: 'error', code: 'TOOL_FAILED', message: 'The tool failed.' }, 'error');
  yield { type: 'tool-result', runId: RUN, turn: 1, record: ok };
  yield { type: 'tool-result', runId: RUN, turn: 1, record: failed };
  yield { type: 'turn-end', runId: RUN, turn: 1, usage: { inputTokens: 5, outputTokens: 2 } };
  yield { type: 'text-delta', runId: RUN, turn: 2, delta: 'Order A-1 is 40 EUR.' };
  yield { type: 'turn-end', runId: RUN, turn: 2, usage: { inputTokens: 5, outputTokens: 3 } };
  yield {
    type: 'run-end',
    runId: RUN,
    result: runResult(sessionId, { output: 'Order A-1 is 40 EUR.', toolCalls: [ok, failed], turns: 2 }),
  };
}

const REFUND: PendingApproval = { toolCallId: 'c9', name: 'process_refund', arguments: '{"order_id":"A-1"}', args: { order_id: 'A-1' } };

/** Asks for a refund: the call waits for approval. */
async function* pausingRun({ sessionId }: RunOptions): AsyncGenerator<AgentEvent> {
  yield { type: 'run-start', runId: RUN, sessionId, resumed: false };
  yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'c9', name: 'process_refund', arguments: REFUND.arguments };
  yield { type: 'approval-required', runId: RUN, approval: REFUND };
  yield { type: 'turn-end', runId: RUN, turn: 1, usage: { inputTokens: 5, outputTokens: 2 } };
  yield { type: 'run-end', runId: RUN, result: runResult(sessionId, { status: 'paused', approvals: [REFUND] }) };
}

describe('createChatHandler with the AI SDK chat client (useChat without React)', () => {
  it('streams text, tool inputs, outputs, errors and progress into the parts useChat renders', async () => {
    const agent = new FakeAgent(refundRun);
    // The body carries a userId the client chose: it must not become the run's user.
    const chat = new TestChat(await serve(agent), { id: 'chat-1', headers: { 'x-user': 'alice' }, body: { userId: 'mallory' } });
    await chat.sendMessage({ text: 'Refund order A-1' });

    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(agent.runs).toHaveLength(1);
    expect(agent.runs[0].input).toBe('Refund order A-1');
    expect(agent.runs[0].options).toMatchObject({ sessionId: 'chat-1', userId: 'alice' });
    expect(agent.runs[0].options.signal).toBeInstanceOf(AbortSignal);

    const parts = chat.reply.parts.map((part) => {
      const { providerExecuted, preliminary, title, rawInput, callProviderMetadata, ...rest } = part as Record<string, unknown>;
      void [providerExecuted, preliminary, title, rawInput, callProviderMetadata];
      return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    });
    expect(parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Let me check.', state: 'done' },
      {
        type: 'tool-lookup_order',
        toolCallId: 'c1',
        state: 'output-available',
        input: { order_id: 'A-1' },
        output: { status: 'found', total: 40 },
      },
      {
        type: 'tool-lookup_customer',
        toolCallId: 'c2',
        state: 'output-error',
        input: { id: 7 },
        errorText: JSON.stringify({ status: 'error', code: 'TOOL_FAILED', message: 'The tool failed.' }),
      },
      // One progress part per call, updated in place: the last report.
      { type: 'data-tool-progress', id: 'c1', data: { toolCallId: 'c1', name: 'lookup_order', progress: 2, total: 2, message: 'found' } },
      { type: 'step-start' },
      { type: 'text', text: 'Order A-1 is 40 EUR.', state: 'done' },
    ]);
    expect(chat.reply.metadata).toEqual({
      runId: RUN,
      sessionId: 'chat-1',
      status: 'completed',
      turns: 2,
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  });

  it('approvals round-trip: approval-requested, addToolApprovalResponse sends again, the paused run is approved and the same message continues', async () => {
    const agent = new FakeAgent(pausingRun);
    agent.scriptResume(async function* ({ sessionId }) {
      const done = record('c9', 'process_refund', { order_id: 'A-1' }, { status: 'success', refund_id: 'R-1' });
      yield { type: 'run-start', runId: RUN, sessionId, resumed: true };
      yield { type: 'tool-result', runId: RUN, turn: 1, record: done };
      yield { type: 'turn-end', runId: RUN, turn: 1, usage: { inputTokens: 0, outputTokens: 0 } };
      yield { type: 'text-delta', runId: RUN, turn: 2, delta: 'Refunded: R-1.' };
      yield { type: 'turn-end', runId: RUN, turn: 2, usage: { inputTokens: 5, outputTokens: 3 } };
      yield { type: 'run-end', runId: RUN, result: runResult(sessionId, { output: 'Refunded: R-1.', toolCalls: [done], turns: 2 }) };
    });
    const chat = new TestChat(await serve(agent), { id: 'chat-2', headers: { 'x-user': 'alice' } });
    await chat.sendMessage({ text: 'Refund A-1' });

    const asked = chat.reply.parts.find((p) => p.type === 'tool-process_refund') as Record<string, unknown>;
    expect(asked).toMatchObject({ state: 'approval-requested', toolCallId: 'c9', input: { order_id: 'A-1' }, approval: { id: 'c9' } });
    expect(chat.reply.metadata).toMatchObject({ status: 'paused' });
    const messageId = chat.reply.id;

    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: 'c9', approved: true });
    await continued;

    expect(agent.runs).toHaveLength(1);
    expect(agent.resumes).toEqual([
      {
        options: expect.objectContaining({ sessionId: 'chat-2', userId: 'alice', approver: 'alice' }),
        decisions: { c9: { approve: true } },
      },
    ]);
    expect(chat.error).toBeUndefined();
    expect(chat.messages).toHaveLength(2); // the reply was continued, not a new message
    expect(chat.reply.id).toBe(messageId);
    const refund = chat.reply.parts.find((p) => p.type === 'tool-process_refund') as Record<string, unknown>;
    expect(refund).toMatchObject({
      state: 'output-available',
      output: { status: 'success', refund_id: 'R-1' },
      approval: { id: 'c9', approved: true },
    });
    expect(chat.reply.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual(['Refunded: R-1.']);
  });

  it('a denial goes to the run as a rejection with the reason, and the part shows output-denied (agent without a streaming resume)', async () => {
    const agent = new FakeAgent(pausingRun);
    agent.resumeResult = ({ sessionId }) => {
      const rejected = record(
        'c9',
        'process_refund',
        { order_id: 'A-1' },
        { status: 'error', code: 'REJECTED', message: 'Too large' },
        'rejected',
      );
      return runResult(sessionId, { output: 'I did not refund it.', toolCalls: [rejected], turns: 2 });
    };
    const chat = new TestChat(await serve(agent), { id: 'chat-3', headers: { 'x-user': 'bob' } });
    await chat.sendMessage({ text: 'Refund A-1' });
    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: 'c9', approved: false, reason: 'Too large' });
    await continued;

    expect(agent.resumes.map((r) => r.decisions)).toEqual([{ c9: { approve: false, reason: 'Too large' } }]);
    const refund = chat.reply.parts.find((p) => p.type === 'tool-process_refund') as Record<string, unknown>;
    expect(refund).toMatchObject({ state: 'output-denied', approval: { id: 'c9', approved: false, reason: 'Too large' } });
    expect(chat.reply.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual(['I did not refund it.']);
    expect(chat.messages).toHaveLength(2);
  });

  it('an approval response carrying edited "arguments" (object or JSON text) goes to the run as an edit; other shapes are 400', async () => {
    const agent = new FakeAgent(pausingRun);
    agent.resumeResult = ({ sessionId }) => runResult(sessionId);
    const url = await serve(agent);
    const decide = (approval: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'alice' },
        body: JSON.stringify({
          id: 'chat-edit',
          messages: [
            {
              id: 'a1',
              role: 'assistant',
              parts: [{ type: 'tool-process_refund', toolCallId: 'c9', state: 'approval-responded', input: {}, approval }],
            },
          ],
        }),
      });
    for (const edited of [{ order_id: 'A-2' }, '{"order_id":"A-2"}']) {
      const res = await decide({ id: 'c9', approved: true, arguments: edited });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect(agent.resumes.map((r) => r.decisions)).toEqual([
      { c9: { approve: true, arguments: { order_id: 'A-2' } } },
      { c9: { approve: true, arguments: '{"order_id":"A-2"}' } },
    ]);
    for (const edited of [null, [1], 7]) {
      const res = await decide({ id: 'c9', approved: true, arguments: edited });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', message: expect.stringContaining('"arguments"') } });
    }
    // A rejection's arguments are not an edit: nothing to run.
    const rejected = await decide({ id: 'c9', approved: false, reason: 'No', arguments: { order_id: 'A-3' } });
    await rejected.text();
    expect(agent.resumes.at(-1)?.decisions).toEqual({ c9: { approve: false, reason: 'No' } });
    expect(agent.resumes).toHaveLength(3);
  });

  it('approvals can be refused to the chat user (approver resolver returns null): 403, nothing decided', async () => {
    const agent = new FakeAgent(pausingRun);
    agent.resumeResult = ({ sessionId }) => runResult(sessionId);
    const chat = new TestChat(await serve(agent, { ...AUTH, approver: () => null }), { id: 'chat-4', headers: { 'x-user': 'bob' } });
    await chat.sendMessage({ text: 'Refund A-1' });
    const continued = chat.nextResponse();
    await chat.addToolApprovalResponse({ id: 'c9', approved: true });
    await continued;
    expect(agent.resumes).toEqual([]);
    expect(chat.status).toBe('error');
    expect(JSON.parse(chat.error!.message)).toEqual({
      error: { code: 'FORBIDDEN', message: 'Approvals are not decided from this chat.' },
    });
  });

  it('a run that fails mid-stream ends with an error chunk (code only) and marks the interrupted call failed', async () => {
    const errors: unknown[] = [];
    const agent = new FakeAgent(async function* ({ sessionId }) {
      yield { type: 'run-start', runId: RUN, sessionId, resumed: false };
      yield { type: 'text-delta', runId: RUN, turn: 1, delta: 'Working' };
      yield { type: 'tool-call', runId: RUN, turn: 1, toolCallId: 'c1', name: 'lookup_order', arguments: '{}' };
      throw new ModelCallFailedError('gpt', sessionId, [], new Error('secret upstream detail'));
    });
    const chat = new TestChat(await serve(agent, { ...AUTH, onError: (e) => errors.push(e) }), { id: 'chat-5' });
    await chat.sendMessage({ text: 'hi' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('An error occurred (MODEL_FAILED).');
    expect(chat.reply.parts.find((p) => p.type === 'tool-lookup_order')).toMatchObject({
      state: 'output-error',
      errorText: 'An error occurred (MODEL_FAILED).',
    });
    expect(chat.reply.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Working', state: 'done' });
    expect(errors).toEqual([]); // a ToolwrightError is the run's outcome, not the server's failure
  });

  it("refusals before the stream are HTTP errors useChat reports: another user's session is 403", async () => {
    const agent = new FakeAgent(failing(({ sessionId }) => new SessionForbiddenError(sessionId)));
    const chat = new TestChat(await serve(agent), { id: 'chat-6', headers: { 'x-user': 'mallory' } });
    await chat.sendMessage({ text: "show me alice's orders" });
    expect(chat.status).toBe('error');
    expect(JSON.parse(chat.error!.message)).toEqual({
      error: { code: 'SESSION_FORBIDDEN', message: 'Session "chat-6" belongs to another user.' },
    });
  });

  it('an unexpected failure before the stream is a 500 without its message, reported to onError', async () => {
    const errors: unknown[] = [];
    const agent = new FakeAgent(failing(() => new Error('database password is hunter2')));
    const chat = new TestChat(await serve(agent, { ...AUTH, onError: (e) => errors.push(e) }), { id: 'chat-7' });
    await chat.sendMessage({ text: 'hi' });
    expect(JSON.parse(chat.error!.message)).toEqual({ error: { code: 'INTERNAL', message: 'The chat request failed.' } });
    expect(errors.map((e) => (e as Error).message)).toEqual(['database password is hunter2']);
  });

  it.each(['node', 'fetch'] as const)(
    'stop() on the client aborts the run (%s door): the signal fires and the event stream is closed',
    async (door) => {
      let closed!: () => void;
      const finished = new Promise<void>((resolve) => (closed = resolve));
      let seen: AbortSignal | undefined;
      const agent = new FakeAgent(async function* ({ sessionId, signal }) {
        seen = signal;
        try {
          yield { type: 'run-start', runId: RUN, sessionId, resumed: false };
          yield { type: 'text-delta', runId: RUN, turn: 1, delta: 'Thinking' };
          await new Promise((resolve) => signal!.addEventListener('abort', resolve, { once: true }));
        } finally {
          closed();
        }
      });
      const handler = createChatHandler(agent, AUTH);
      const chat =
        door === 'node'
          ? new TestChat(await serve(agent), { id: 'chat-8' })
          : new TestChat('http://app.test/api/chat', { id: 'chat-8', fetch: (input, init) => handler.fetch(new Request(input, init)) });
      const sending = chat.sendMessage({ text: 'hi' });
      await new Promise<void>(function wait(resolve) {
        if (chat.messages.some((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'text'))) resolve();
        else setTimeout(() => wait(resolve), 5);
      });
      await chat.stop();
      await sending;
      await finished;
      expect(seen?.aborted).toBe(true);
    },
  );

  it('the fetch door (Request → Response) serves the same stream', async () => {
    const agent = new FakeAgent(refundRun);
    const handler = createChatHandler(agent, AUTH);
    const chat = new TestChat('http://app.test/api/chat', {
      id: 'chat-9',
      headers: { 'x-user': 'alice' },
      fetch: (input, init) => handler.fetch(new Request(input, init)),
    });
    await chat.sendMessage({ text: 'Refund order A-1' });
    expect(chat.error).toBeUndefined();
    expect(agent.runs[0].options).toMatchObject({ sessionId: 'chat-9', userId: 'alice' });
    expect(chat.reply.parts.map((p) => p.type)).toEqual([
      'step-start',
      'text',
      'tool-lookup_order',
      'tool-lookup_customer',
      'data-tool-progress',
      'step-start',
      'text',
    ]);
  });
});

describe('createChatHandler refuses bad requests with a clear 4xx and never runs the agent', () => {
  const agent = new FakeAgent(refundRun);
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const server = await listen(
      createChatHandler(agent, {
        maxBodyBytes: 1000,
        userId: ({ headers }) => {
          if (headers.get('authorization') === 'Bearer nope') throw new ChatRequestError(401, 'Sign in first.');
          return headers.get('x-user') ?? undefined;
        },
      }),
    );
    ({ url, close } = server);
  });
  afterAll(() => close());
  afterEach(() => expect(agent.runs).toEqual([]));

  const user = (text: string) => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
  const json = (body: unknown) => JSON.stringify(body);
  const cases: Array<[string, RequestInit, number, string]> = [
    ['GET', { method: 'GET' }, 405, 'Use POST'],
    [
      'a form post (text/plain)',
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: json({ id: 'c', messages: [user('hi')] }) },
      415,
      'application/json',
    ],
    [
      'malformed JSON',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"c","messages":[' },
      400,
      'not valid JSON',
    ],
    ['a JSON array', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }, 400, 'must be a JSON object'],
    ['no messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ id: 'c' }) }, 400, 'no "messages"'],
    [
      'empty messages',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ id: 'c', messages: [] }) },
      400,
      'no "messages"',
    ],
    [
      'a message without parts',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ id: 'c', messages: [{ id: 'm', role: 'user' }] }) },
      400,
      'messages[0] is not a UIMessage',
    ],
    [
      'no chat id',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ messages: [user('hi')] }) },
      400,
      'no chat id',
    ],
    [
      'an empty user text',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ id: 'c', messages: [user('  ')] }) },
      400,
      'has no text',
    ],
    [
      'a file part',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json({
          id: 'c',
          messages: [
            {
              id: 'm',
              role: 'user',
              parts: [
                { type: 'text', text: 'see' },
                { type: 'file', url: 'data:,x', mediaType: 'text/plain' },
              ],
            },
          ],
        }),
      },
      400,
      'File parts',
    ],
    [
      'regenerate',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json({ id: 'c', trigger: 'regenerate-message', messages: [user('hi')] }),
      },
      400,
      'Regenerating',
    ],
    [
      'an assistant message with no approval response',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json({ id: 'c', messages: [user('hi'), { id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'yo' }] }] }),
      },
      400,
      'no approval response',
    ],
    [
      'an approval response for an approval this server did not ask for',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json({
          id: 'c',
          messages: [
            {
              id: 'a',
              role: 'assistant',
              parts: [
                { type: 'tool-x', toolCallId: 'c1', state: 'approval-responded', input: {}, approval: { id: 'other', approved: true } },
              ],
            },
          ],
        }),
      },
      400,
      'did not ask for',
    ],
    [
      'a Content-Length over maxBodyBytes',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: json({ id: 'c', messages: [user('x'.repeat(2000))] }) },
      413,
      'larger than 1000 bytes',
    ],
    [
      'a refused sign-in',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
        body: json({ id: 'c', messages: [user('hi')] }),
      },
      401,
      'Sign in first.',
    ],
  ];

  it.each(cases)('%s', async (_name, init, status, message) => {
    const response = await fetch(url, init);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { error: { code: string; message: string } };
    // A refused sign-in is told apart from a malformed request by its code, as by its status.
    expect(body.error.code).toBe(status === 401 ? 'UNAUTHORIZED' : 'INVALID_REQUEST');
    expect(body.error.message).toContain(message);
    if (status === 405) expect(response.headers.get('allow')).toBe('POST');
  });

  it('a chunked body (no Content-Length) over maxBodyBytes: 413, the rest not read', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(`{"id":"c","messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"${'y'.repeat(1500)}`);
      // Never finished: the server answers without waiting for the end.
    });
    expect(status).toBe(413);
    expect(JSON.parse(body).error.code).toBe('INVALID_REQUEST');
  });
});
