/**
 * Protocol 2026-07-28 on serveHttp's endpoint, beside 2025 sessions: a 2026 request passes the same
 * auth (identity or 401) and the registry's one gate (rate limits counted with the 2025 calls of the
 * same identity), keeps its identity's state without a session, and is cancelled when its client
 * closes the stream.
 */
import 'reflect-metadata';
import { IsInt, IsString, Min } from 'class-validator';
import { Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';
import { serveHttp, tokenAuth, type HttpHandle } from '../../src/mcp';
import { InMemoryStore, MemoryRateCounters } from '../../src/stores';

class TextInput {
  @Param() @IsString() text!: string;
}

@Tool({ name: 'note', description: 'Keep a note', input: TextInput })
class NoteTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput, context: AgentContext): object {
    const notes = [...(context.getState<string[]>('notes') ?? []), text];
    context.setState('notes', notes);
    return { notes };
  }
}

@Tool({ name: 'limited', description: 'Twice an hour', input: TextInput, rateLimit: { limit: 2, windowMs: 3_600_000, per: 'session' } })
class LimitedTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput): object {
    return { text };
  }
}

@Tool({ name: 'per_user', description: 'Twice an hour per user', input: TextInput, rateLimit: { limit: 2, windowMs: 3_600_000 } })
class PerUserTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput): object {
    return { text };
  }
}

const refunds: string[] = [];

@Tool({ name: 'refund', description: 'Refund, after a human approves', input: TextInput, approval: true })
class RefundTool implements ToolInterface<TextInput> {
  execute({ text }: TextInput): object {
    refunds.push(text);
    return { refunded: text };
  }
}

class WaitInput {
  @Param() @IsInt() @Min(0) ms!: number;
}

const aborted: string[] = [];

@Tool({ name: 'wait', description: 'Wait until cancelled or done', input: WaitInput })
class WaitTool implements ToolInterface<WaitInput> {
  async execute({ ms }: WaitInput, context: AgentContext): Promise<object> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      context.signal.addEventListener('abort', () => {
        aborted.push(String(context.signal.reason));
        clearTimeout(timer);
        resolve();
      });
    });
    return { waited: ms };
  }
}

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

let server: HttpHandle;
const reported: unknown[] = [];
beforeAll(async () => {
  const registry = ToolRegistry.build({
    tools: [NoteTool, LimitedTool, PerUserTool, RefundTool, WaitTool],
    rateCounters: new MemoryRateCounters(),
  });
  server = await serveHttp(registry, {
    store: new InMemoryStore(),
    onError: (error) => reported.push(error),
    auth: tokenAuth({ 'token-a': { userId: 'alice' }, 'token-b': { userId: 'bob' } }),
  });
});
afterAll(() => server.close());

async function call(
  token: string | undefined,
  id: number,
  name: string,
  args: object,
  meta: object = {},
  signal?: AbortSignal,
  extra: object = {},
) {
  const res = await fetch(server.url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...extra, _meta: { ...ENVELOPE, ...meta } },
    }),
  });
  const text = await res.text();
  const body = res.headers.get('content-type')?.includes('text/event-stream')
    ? (JSON.parse(
        text
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .pop()!
          .slice(6),
      ) as Record<string, unknown>)
    : (JSON.parse(text) as Record<string, unknown>);
  const result = body.result as { content?: [{ text: string }]; isError?: boolean } | undefined;
  return { status: res.status, body, value: result?.content ? (JSON.parse(result.content[0].text) as Record<string, unknown>) : undefined };
}

async function legacySession(token: string): Promise<(id: number, name: string, args: object) => Promise<Record<string, unknown>>> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
  const init = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await init.text();
  const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  return async (id, name, args) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
    });
    const text = await res.text();
    const data = text.includes('data: ')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6)
      : text;
    const result = (JSON.parse(data) as { result: { content: [{ text: string }] } }).result;
    return JSON.parse(result.content[0].text) as Record<string, unknown>;
  };
}

it('refuses a 2026-07-28 request without a valid token (401), as a 2025 one', async () => {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }),
  });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
});

it("keeps each identity's state across its 2026 requests, apart from another identity's", async () => {
  expect((await call('token-a', 1, 'note', { text: 'a1' })).value).toEqual({ notes: ['a1'] });
  expect((await call('token-b', 2, 'note', { text: 'b1' })).value).toEqual({ notes: ['b1'] });
  expect((await call('token-a', 3, 'note', { text: 'a2' })).value).toEqual({ notes: ['a1', 'a2'] });
});

it('counts a per-session rate limit per identity across 2026 requests: no session id to drop, and the limit holds', async () => {
  expect((await call('token-a', 10, 'limited', { text: '1' })).value).toEqual({ text: '1' });
  expect((await call('token-a', 11, 'limited', { text: '2' })).value).toEqual({ text: '2' });
  const third = await call('token-a', 12, 'limited', { text: '3' });
  expect(third.value).toMatchObject({ code: 'RATE_LIMITED' });
  // Another identity has its own count.
  expect((await call('token-b', 13, 'limited', { text: '1' })).value).toEqual({ text: '1' });
});

it('runs a 2025 session and 2026 requests of one identity through the same gate', async () => {
  expect((await call('token-b', 30, 'per_user', { text: '1' })).value).toEqual({ text: '1' });
  const legacy = await legacySession('token-b');
  expect(await legacy(1, 'per_user', { text: '2' })).toEqual({ text: '2' });
  // Two calls an hour for bob, whichever revision made them.
  expect((await call('token-b', 31, 'per_user', { text: '3' })).value).toMatchObject({ code: 'RATE_LIMITED' });
  expect(await legacy(2, 'per_user', { text: '4' })).toMatchObject({ code: 'RATE_LIMITED' });
});

it('cancels the call when its client closes the stream', async () => {
  const controller = new AbortController();
  const pending = call('token-a', 20, 'wait', { ms: 10_000 }, { progressToken: 'p' }, controller.signal).catch((e: Error) => e.name);
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  expect(await pending).toBe('AbortError');
  for (let i = 0; i < 50 && aborted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(aborted).toHaveLength(1);
});

describe('a tool that needs approval, on 2026-07-28', () => {
  const elicitation = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

  it('answers APPROVAL_REQUIRED to a client that declared no elicitation, and does not run', async () => {
    const { value } = await call('token-a', 40, 'refund', { text: 'r0' });
    expect(value).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(refunds).toEqual([]);
  });

  it('asks with input_required, then runs only when the retried request carries the approval', async () => {
    const first = await call('token-a', 41, 'refund', { text: 'r1' }, elicitation);
    const result = first.body.result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: { message: string } }>;
    };
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests)).toEqual(['input-0']);
    expect(result.inputRequests['input-0'].method).toBe('elicitation/create');
    expect(result.inputRequests['input-0'].params.message).toMatch(/"refund" needs your approval/);
    expect(refunds).toEqual([]);

    const rejectedCall = await call('token-a', 42, 'refund', { text: 'r1' }, elicitation, undefined, {
      inputResponses: { 'input-0': { action: 'accept', content: { decision: 'reject', reason: 'not today' } } },
    });
    expect(rejectedCall.value).toMatchObject({ code: 'REJECTED' });
    expect(refunds).toEqual([]);

    const approved = await call('token-a', 43, 'refund', { text: 'r1' }, elicitation, undefined, {
      inputResponses: { 'input-0': { action: 'accept', content: { decision: 'approve' } } },
    });
    expect(approved.value).toEqual({ refunded: 'r1' });
    expect(approved.body.result).toMatchObject({ resultType: 'complete' });
    expect(refunds).toEqual(['r1']);
  });

  it('refuses an answer that is not an elicitation result: the tool does not run', async () => {
    const { body, value } = await call('token-a', 44, 'refund', { text: 'r2' }, elicitation, undefined, {
      inputResponses: { 'input-0': { action: 5 } },
    });
    // The SDK refuses the answer (an action that is none of accept, decline, cancel): a failed call, reported.
    expect(value).toMatchObject({ code: 'INTERNAL' });
    expect(body.error).toBeUndefined();
    expect(reported.splice(0)).toHaveLength(1);
    for (const [n, inputResponses] of [
      [45, 5],
      [46, null],
      [47, { 'input-0': 'yes' }],
    ] as const) {
      const refused = await call('token-a', n, 'refund', { text: 'r2' }, elicitation, undefined, { inputResponses });
      expect(refused).toMatchObject({ status: 400, body: { id: n, error: { code: -32602 } } });
    }
    expect(refunds).toEqual(['r1']);
  });
});

describe('without an auth hook', () => {
  let open: HttpHandle;
  beforeAll(async () => {
    open = await serveHttp(ToolRegistry.build({ tools: [NoteTool] }), { store: new InMemoryStore() });
  });
  afterAll(() => open.close());

  it('gives each 2026 request a context of its own: callers it cannot tell apart share no state', async () => {
    const note = async (id: number, text: string) => {
      const res = await fetch(open.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'note',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'note', arguments: { text }, _meta: ENVELOPE } }),
      });
      const body = (await res.json()) as { result: { content: [{ text: string }] } };
      return JSON.parse(body.result.content[0].text) as unknown;
    };
    expect(await note(1, 'first caller')).toEqual({ notes: ['first caller'] });
    expect(await note(2, 'second caller')).toEqual({ notes: ['second caller'] });
  });
});
