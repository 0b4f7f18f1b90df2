/**
 * A remote server nobody should trust (tests/support/hostile-mcp-server.js, raw JSON-RPC over
 * stdio): its tools go through the registry's boundary like local ones, and whatever it does
 * (garbage, silence, death, a flood, lying hints) ends in a typed error, never a hang.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Agent, AgentContext, InMemoryStore, ScriptedModel, ToolRegistry, ToolwrightError } from '../../src';
import { serveHttp } from '../../src/mcp';
import { IDEMPOTENCY_META, McpToolset, RemoteToolError } from '../../src/mcp-client';
import { SERVER } from '../support/remote-servers';
import { startTracing } from '../support/tracing';

const problems: string[] = [];
const hostile = (options: Partial<Parameters<typeof McpToolset.stdio>[0]> = {}) =>
  McpToolset.stdio({
    name: 'hostile',
    command: process.execPath,
    args: [SERVER.hostile],
    requestTimeoutMs: 5_000,
    reconnect: { attempts: 3, backoffMs: 50 },
    onProblem: (problem) => problems.push(problem),
    ...options,
  });

const codeOf = async (promise: Promise<unknown>): Promise<{ code?: string; message: string; cause?: unknown }> => {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string; cause?: unknown };
  }
  throw new Error('the call did not fail');
};

let registry: ToolRegistry;
const count = async () => JSON.parse(await registry.call('h_count', {})) as { calls: number };

beforeAll(async () => {
  registry = await ToolRegistry.buildAsync({ tools: [], mcp: [hostile({ prefix: 'h_' })] });
});
afterAll(() => registry.close());

describe('a hostile MCP server behind the registry', () => {
  it('leaves out the tools whose schema or name cannot be served, saying why', () => {
    expect(registry.names()).toContain('h_record');
    expect(registry.names()).not.toContain('h_bad_schema');
    expect(problems.some((p) => p.includes('n'.repeat(70)) && p.includes('not accepted by model providers'))).toBe(true);
    // A name MCP allows and providers refuse: its `.` replaced.
    expect(registry.names()).toContain('h_bad_name');
    expect(registry.describe('h_bad_name').origin).toEqual({ source: 'hostile', name: 'bad.name' });
    expect(problems.some((p) => p.includes('"bad_schema"') && p.includes('inputSchema'))).toBe(true);
    expect(registry.describe('h_record').origin).toEqual({ source: 'hostile', name: 'record' });
  });

  it('refuses invalid arguments with the bounded INVALID_ARGUMENTS answer before anything is sent', async () => {
    const before = await count();
    const tooLong = await codeOf(registry.call('h_record', { note: 'far more than ten characters' }));
    expect(tooLong.code).toBe('INVALID_ARGUMENTS');
    expect(tooLong.message).toMatch(/note/);
    expect((await codeOf(registry.call('h_record', '{"note":"a","__proto__":{}}'))).code).toBe('INVALID_ARGUMENTS');
    expect((await codeOf(registry.call('h_record', '{"note":"a","note":"b"}'))).code).toBe('INVALID_JSON');
    expect((await codeOf(registry.call('h_record', '{"note":'))).code).toBe('INVALID_JSON');
    expect((await codeOf(registry.call('h_record', { note: 'ok', extra: 1 }))).code).toBe('INVALID_ARGUMENTS');
    // Only the two count calls reached the server.
    expect((await count()).calls).toBe(before.calls + 1);
    expect(await registry.call('h_record', { note: 'fine' })).toBe(JSON.stringify({ content: [{ type: 'text', text: 'noted fine' }] }));
  });

  it('checks structuredContent against the outputSchema', async () => {
    const wrong = await codeOf(registry.call('h_wrong_output', {}));
    expect(wrong.code).toBe('INVALID_OUTPUT');
    expect(typeof (await count()).calls).toBe('number');
  });

  it('answers garbage and error results with TOOL_FAILED the model can read', async () => {
    const garbage = await codeOf(registry.call('h_garbage', {}));
    expect(garbage.code).toBe('TOOL_FAILED');
    expect(garbage.cause).toBeInstanceOf(RemoteToolError);
    expect((garbage.cause as RemoteToolError).reason).toBe('protocol');
    const failed = (await codeOf(registry.call('h_fail', {}))) as unknown as { code: string; toToolResult(): string };
    expect(failed.code).toBe('TOOL_FAILED');
    expect(JSON.parse(failed.toToolResult())).toEqual({
      status: 'error',
      code: 'TOOL_FAILED',
      message: 'MCP server "hostile": the disk is full',
    });
  });

  it('refuses a huge result', async () => {
    const huge = await codeOf(registry.call('h_huge', { mb: 6 }));
    expect(huge.code).toBe('TOOL_FAILED');
    expect((huge.cause as RemoteToolError).reason).toBe('too_large');
  });

  it('times out a call that never answers and tells the server it was cancelled', async () => {
    const late = await codeOf(registry.call('h_hang', {}, undefined, undefined, { timeoutMs: 300 }));
    expect(late.code).toBe('TOOL_TIMEOUT');
    const controller = new AbortController();
    const aborted = codeOf(registry.call('h_hang', {}, undefined, undefined, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect((await aborted).code).toBe('ABORTED');
    await new Promise((r) => setTimeout(r, 100));
    const told = JSON.parse(await registry.call('h_cancelled', {})) as { content: [{ text: string }] };
    expect(JSON.parse(told.content[0].text)).toHaveLength(2);
  });

  it('fails a call in flight when the server dies, then reconnects for the next', async () => {
    const died = await codeOf(registry.call('h_die', {}));
    expect(died.code).toBe('TOOL_FAILED');
    expect((died.cause as RemoteToolError).reason).toBe('closed');
    // A new process: its count starts again.
    expect((await count()).calls).toBe(1);
  });

  it('a server that cannot start fails the build with a clear error', async () => {
    const broken = McpToolset.stdio({ name: 'nowhere', command: '/nonexistent/server', reconnect: { attempts: 2, backoffMs: 10 } });
    const error = await codeOf(ToolRegistry.buildAsync({ tools: [], mcp: [broken] }));
    expect(error).toBeInstanceOf(RemoteToolError);
    expect(error).toBeInstanceOf(ToolwrightError);
    expect(error).toMatchObject({ code: 'REMOTE_FAILED', reason: 'unavailable' });
    expect(error.message).toMatch(/MCP server "nowhere" is unavailable \(2 attempts\)/);
  });

  it('never loosens a policy on a hint: destructive tools need approval, a "read-only" one keeps the toolset\'s', async () => {
    const strict = await ToolRegistry.buildAsync({ tools: [], mcp: [hostile({ approval: true, include: ['wipe', 'peek', 'count'] })] });
    try {
      const context = new AgentContext({ sessionId: 's' });
      expect((await strict.check('peek', {}, context)).approvalRequired).toBe(true);
      expect((await codeOf(strict.call('peek', {}))).code).toBe('APPROVAL_REQUIRED');
      expect(strict.describe('peek').annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
      expect(strict.names()).toEqual(['count', 'wipe', 'peek']);
    } finally {
      await strict.close();
    }
    const open = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [hostile({ exclude: ['record'], tools: { count: { approval: false } } })],
    });
    try {
      expect(open.has('record')).toBe(false);
      expect((await codeOf(open.call('wipe', {}))).code).toBe('APPROVAL_REQUIRED');
      expect(await open.call('wipe', {}, undefined, undefined, { approved: true })).toContain('ran wipe');
      expect((await open.check('peek', {}, new AgentContext({ sessionId: 's' }))).approvalRequired).toBe(false);
    } finally {
      await open.close();
    }
  });

  it('traces remote calls as execute_tool spans, and sends the idempotency key in _meta', async () => {
    const tracing = startTracing();
    let spans: ReturnType<typeof tracing.spans>;
    try {
      await registry.call('h_record', { note: 'traced' }, new AgentContext({ sessionId: 's-trace' }), undefined, { toolCallId: 'call-9' });
      // The same model call again (a retry): the same key, for the server to deduplicate.
      await registry.call('h_record', { note: 'traced' }, new AgentContext({ sessionId: 's-trace' }), undefined, { toolCallId: 'call-9' });
      await expect(registry.call('h_fail', {})).rejects.toMatchObject({ code: 'TOOL_FAILED' });
      spans = tracing.spans();
    } finally {
      await tracing.stop();
    }
    expect(spans.map((s) => s.name)).toEqual(['execute_tool h_record', 'execute_tool h_record', 'execute_tool h_fail']);
    const metas = JSON.parse((JSON.parse(await registry.call('h_metas', {})) as { content: [{ text: string }] }).content[0].text) as Array<
      Record<string, string>
    >;
    const keys = metas.slice(-2).map((m) => m[IDEMPOTENCY_META]);
    expect(keys[0]).toMatch(/.{8,}/);
    expect(keys[1]).toBe(keys[0]);
    // The private marker that ties a call to its server requests is taken off before sending.
    expect(metas.length).toBeGreaterThan(0);
    expect(metas.filter((m) => m !== null && Object.keys(m).some((k) => k.startsWith('io.toolwright/caller')))).toEqual([]);
    expect(spans[0].attributes['gen_ai.tool.call.id']).toBe('call-9');
    expect(spans[2].status.code).toBe(2);
  });

  it('refreshes the catalog on tools/list_changed', async () => {
    const changing = await ToolRegistry.buildAsync({ tools: [], mcp: [hostile()] });
    try {
      expect(changing.has('added')).toBe(false);
      const changed = new Promise<void>((resolve) => changing.onToolsChanged(resolve));
      await changing.call('change', {});
      await changed;
      expect(changing.has('added')).toBe(true);
      expect(changing.definitions().map((d) => d.name)).toContain('added');
      expect(await changing.call('added', {})).toContain('ran added');
    } finally {
      await changing.close();
    }
  });

  it("an Agent offers a remote server's new tools on its next turn, and runs them", async () => {
    const changing = await ToolRegistry.buildAsync({ tools: [], mcp: [hostile({ include: (n) => n !== 'hang' })] });
    try {
      const refreshed = new Promise<void>((resolve) => changing.onToolsChanged(resolve));
      const model = new ScriptedModel([
        { toolCalls: [{ id: 'c-1', name: 'change', arguments: {} }] },
        async () => {
          await refreshed;
          return { toolCalls: [{ id: 'c-2', name: 'count', arguments: {} }] };
        },
        (request) => {
          expect(request.tools.map((t) => t.name)).toContain('added');
          return { toolCalls: [{ id: 'c-3', name: 'added', arguments: {} }] };
        },
        { text: 'done' },
      ]);
      const agent = new Agent({ name: 'watcher', model, tools: changing, store: new InMemoryStore() });
      const result = await agent.run('go', { sessionId: 's-agent' });
      expect(result.status).toBe('completed');
      expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
        ['change', 'ok'],
        ['count', 'ok'],
        ['added', 'ok'],
      ]);
    } finally {
      await changing.close();
    }
  });

  it("toolwright's MCP server announces a remote list change to its clients", async () => {
    const changing = await ToolRegistry.buildAsync({ tools: [], mcp: [hostile({ include: (n) => n !== 'hang' })] });
    const gateway = await serveHttp(changing);
    const client = new Client({ name: 'watcher', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('added');
      const announced = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const refreshed = new Promise<void>((resolve) => changing.onToolsChanged(resolve));
      await client.callTool({ name: 'change', arguments: {} });
      await refreshed;
      await client.callTool({ name: 'count', arguments: {} });
      await announced;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('added');
    } finally {
      await client.close();
      await gateway.close();
      await changing.close();
    }
  });
});
