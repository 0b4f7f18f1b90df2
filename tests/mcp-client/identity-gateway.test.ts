/**
 * Per-user credentials and the gateway: a toolwright MCP server (HTTP, bearer tokens) is the remote
 * server of a second registry, whose toolset sends each caller's own token. That second registry,
 * served over MCP itself, passes an official SDK client's calls and elicitation answers through.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IsString } from 'class-validator';
import { AgentContext, Param, Tool, ToolRegistry, type ToolInterface } from '../../src';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import { McpToolset } from '../../src/mcp-client';

class NoInput {}
class Name {
  @Param({ description: 'Your name' })
  @IsString()
  name!: string;
}

@Tool({ name: 'whoami', description: 'Who the server thinks is calling', input: NoInput })
class WhoAmI implements ToolInterface {
  execute(_: object, context: AgentContext) {
    return { user: context.userId ?? null, tenant: context.tenantId ?? null };
  }
}

@Tool({ name: 'ask_name', description: 'Asks the person their name', input: NoInput })
class AskName implements ToolInterface {
  async execute(_: object, context: AgentContext) {
    const answer = await context.elicit('What is your name?', Name);
    return answer.action === 'accept' ? { hello: answer.content.name } : { action: answer.action };
  }
}

@Tool({ name: 'local_ping', description: 'A local tool beside the remote ones', input: NoInput })
class LocalPing implements ToolInterface {
  execute() {
    return { pong: true };
  }
}

const USERS: Record<string, { userId: string; tenantId: string }> = {
  'token-lister': { userId: 'lister', tenantId: 'ops' },
  'token-alice': { userId: 'alice', tenantId: 't1' },
  'token-bob': { userId: 'bob', tenantId: 't2' },
};

let backend: HttpHandle;
let front: ToolRegistry;
let toolset: McpToolset;
beforeAll(async () => {
  backend = await serveHttp(ToolRegistry.build({ tools: [WhoAmI, AskName] }), { auth: ({ token }) => USERS[token ?? ''] });
  toolset = McpToolset.http({
    name: 'backend',
    url: backend.url,
    prefix: 'b_',
    // Each caller's own token; the registry lists the tools with a service token.
    headers: (context) => ({ Authorization: `Bearer token-${context?.userId ?? 'lister'}` }),
    idleMs: 300,
  });
  front = await ToolRegistry.buildAsync({ tools: [LocalPing], mcp: [toolset] });
}, 30_000);
afterAll(async () => {
  await front?.close();
  await backend?.close();
});

const as = (userId: string) => new AgentContext({ sessionId: `s-${userId}`, userId });
/** The remote text part of a registry answer (a content result's text form: `{ content: [...] }`). */
const remote = (answer: string) => JSON.parse((JSON.parse(answer) as { content: [{ text: string }] }).content[0].text) as unknown;

describe('credentials per caller', () => {
  it("sends each caller's own credentials, on a connection of their own, closed when idle", async () => {
    expect(front.names()).toEqual(['local_ping', 'b_whoami', 'b_ask_name']);
    expect(remote(await front.call('b_whoami', {}, as('alice')))).toEqual({ user: 'alice', tenant: 't1' });
    expect(remote(await front.call('b_whoami', {}, as('bob')))).toEqual({ user: 'bob', tenant: 't2' });
    expect(remote(await front.call('b_whoami', {}, as('alice')))).toEqual({ user: 'alice', tenant: 't1' });
    // The lister's (kept open to hear list changes), alice's and bob's: never one shared.
    expect(toolset.connections).toBe(3);
    await new Promise((r) => setTimeout(r, 600));
    expect(toolset.connections).toBe(1);
    // Reopened on the next call.
    expect(remote(await front.call('b_whoami', {}, as('bob')))).toEqual({ user: 'bob', tenant: 't2' });
  });

  it('a caller the remote server refuses gets a typed error, not another identity', async () => {
    const refused = await front.call('b_whoami', {}, as('mallory')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'TOOL_FAILED' });
    // Refused credentials are final: no reconnect attempts with them.
    expect((refused as { cause: unknown }).cause).toMatchObject({
      code: 'REMOTE_FAILED',
      reason: 'unavailable',
      final: true,
      message: 'MCP server "backend": The MCP server refused the credentials (HTTP 401).',
    });
  });
});

describe('toolwright as a gateway', () => {
  let gateway: HttpHandle;
  beforeAll(async () => {
    gateway = await serveHttp(front, { auth: ({ token }) => (token === 'token-alice' ? USERS[token] : undefined) });
  });
  afterAll(() => gateway?.close());

  it("serves local and remote tools to an MCP client, as that client's user, elicitation passed through", async () => {
    const client = new Client({ name: 'app', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: 'Bearer token-alice' } } }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['local_ping', 'b_whoami', 'b_ask_name']);
      const who = (await client.callTool({ name: 'b_whoami', arguments: {} })) as CallToolResult;
      expect(JSON.parse((who.content[0] as { text: string }).text)).toEqual({ user: 'alice', tenant: 't1' });
      const hello = (await client.callTool({ name: 'b_ask_name', arguments: {} })) as CallToolResult;
      expect(hello.isError).toBeFalsy();
      expect(JSON.parse((hello.content[0] as { text: string }).text)).toEqual({ hello: 'Ada' });
      expect(asked).toEqual(['What is your name?']);
      const bad = (await client.callTool({ name: 'b_whoami', arguments: { extra: 1 } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.parse((bad.content[0] as { text: string }).text).code).toBe('INVALID_ARGUMENTS');
    } finally {
      await client.close();
    }
  });
});
