import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryStore } from '../../src';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import { registry } from '../fixtures/toolwright.config';

const TOKENS: Record<string, { userId: string; tenantId?: string }> = {
  'token-alice': { userId: 'alice', tenantId: 't1' },
  'token-bob': { userId: 'bob', tenantId: 't1' },
};

describe('MCP over Streamable HTTP (SDK client, loopback)', () => {
  let server: HttpHandle;
  const store = new InMemoryStore();
  const reported: unknown[] = [];
  const clients: Client[] = [];

  async function connect(token?: string): Promise<Client> {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text);

  beforeAll(async () => {
    server = await serveHttp(registry, {
      name: 'fixture',
      version: '1.2.3',
      store,
      auth: ({ token }) => (token ? TOKENS[token] : undefined),
      onError: (error) => reported.push(error),
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
  });

  it('lists tools with schemas, output schemas and only the annotations a tool declared', async () => {
    const client = await connect('token-alice');
    expect(client.getServerVersion()).toEqual({ name: 'fixture', version: '1.2.3' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'note', 'explode']);
    const add = tools.find((t) => t.name === 'add')!;
    expect(add.description).toBe('Add two numbers.');
    expect(add.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number', description: 'First addend' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    expect(add.annotations).toEqual({ title: 'Add numbers', readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(add.title).toBe('Add numbers');
    const note = tools.find((t) => t.name === 'note')!;
    // Declares nothing, so it is labelled nothing (MCP clients would otherwise assume defaults).
    expect(note.annotations).toBeUndefined();
    expect(note.outputSchema).toBeUndefined();
    expect(note.inputSchema).toMatchObject({ properties: { text: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['text'] });
  });

  it('runs a valid call, returning text and structuredContent for a declared output', async () => {
    const client = await connect('token-alice');
    const result = await call(client, 'add', { a: 2, b: 3.5 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: 5.5 });
    expect(textOf(result)).toEqual({ sum: 5.5 });
  });

  it('returns invalid arguments as an isError result with field errors', async () => {
    const client = await connect('token-alice');
    const result = await call(client, 'add', { a: 'two', b: 3, extra: true });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const body = textOf(result);
    expect(body).toMatchObject({ status: 'error', code: 'INVALID_ARGUMENTS' });
    expect(body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['a']));
  });

  it('returns an unknown tool as an isError TOOL_NOT_FOUND result naming the available tools', async () => {
    const client = await connect('token-alice');
    const result = await call(client, 'refund_everything', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toEqual({
      status: 'error',
      code: 'TOOL_NOT_FOUND',
      message: 'Tool "refund_everything" does not exist. Available tools: add, note, explode.',
    });
  });

  it('redacts an unexpected tool failure and reports it to onError', async () => {
    const client = await connect('token-alice');
    const result = await call(client, 'explode', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toEqual({ status: 'error', code: 'TOOL_FAILED', message: 'Tool "explode" failed unexpectedly.' });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(reported.some((e) => String((e as Error).message).includes('hunter2'))).toBe(true);
  });

  it('gives each MCP session its own AgentContext, scoped to the authenticated user and tenant', async () => {
    const [alice, bob] = await Promise.all([connect('token-alice'), connect('token-bob')]);
    const [a1, b1] = await Promise.all([call(alice, 'note', { text: 'alice-1' }), call(bob, 'note', { text: 'bob-1' })]);
    const a2 = await call(alice, 'note', { text: 'alice-2' });
    expect(textOf(a1)).toMatchObject({ notes: ['alice-1'], userId: 'alice', tenantId: 't1' });
    expect(textOf(b1)).toMatchObject({ notes: ['bob-1'], userId: 'bob', tenantId: 't1' });
    expect(textOf(a2)).toMatchObject({ notes: ['alice-1', 'alice-2'] });

    // The state went through the store, under the MCP session id.
    const sessionId = (alice as unknown as { transport: StreamableHTTPClientTransport }).transport.sessionId!;
    expect(textOf(a2).sessionId).toBe(sessionId);
    const snapshot = await store.loadSession({ sessionId, tenantId: 't1' });
    expect(snapshot?.state.notes).toEqual(['alice-1', 'alice-2']);
    // A call that changes nothing writes nothing.
    await call(alice, 'add', { a: 1, b: 1 });
    expect((await store.loadSession({ sessionId, tenantId: 't1' }))?.version).toBe(snapshot!.version);

    // A new MCP session starts with fresh state, while the user's memory carries over.
    const alice2 = await connect('token-alice');
    expect(textOf(await call(alice2, 'note', { text: 'again' }))).toMatchObject({ notes: ['again'], facts: 3 });
  });

  it('serves concurrent calls from two clients without mixing results', async () => {
    const [one, two] = await Promise.all([connect('token-alice'), connect('token-bob')]);
    const jobs = Array.from({ length: 20 }, (_, i) => call(i % 2 ? one : two, 'add', { a: i, b: 1000 }));
    const results = await Promise.all(jobs);
    expect(results.map((r) => r.structuredContent)).toEqual(Array.from({ length: 20 }, (_, i) => ({ sum: i + 1000 })));
  });

  it('denies requests without a valid bearer token', async () => {
    await expect(connect()).rejects.toThrow(/401|Unauthorized/);
    await expect(connect('token-mallory')).rejects.toThrow(/401|Unauthorized/);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it("does not let one user use another user's session id", async () => {
    const alice = await connect('token-alice');
    const sessionId = (alice as unknown as { transport: StreamableHTTPClientTransport }).transport.sessionId!;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer token-bob',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'note', arguments: { text: 'x' } } }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/Session not found/) } });
  });

  it('answers a request that is not initialize and has no session with 400', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer token-bob' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});
