/**
 * Resources, resource templates, prompts, completions and subscriptions over MCP, with the
 * official SDK client as the peer: in process (InMemoryTransport) and over Streamable HTTP with an
 * auth hook, so the identity a token maps to decides what the caller sees, as it does for tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ReadResourceResultSchema,
  GetPromptResultSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Prompt, StoreUnavailableError, Tool, ToolRegistry, type AgentContext, type PromptInterface, type ToolInterface } from '../../src';
import { createMcpServer, serveHttp, tokenAuth, type HttpHandle, type McpIdentity } from '../../src/mcp';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { featureRegistry, ReadmeResource, SummarizePrompt } from '../support/feature-fixtures';

const registry = featureRegistry();

interface Session {
  client: Client;
  updated: string[];
  logs: { logger?: string; data: unknown }[];
}

async function connect(
  identity: McpIdentity = { userId: 'alice' },
  store = new InMemoryStore(),
  reg: ToolRegistry = registry,
): Promise<Session> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(reg, { identity, store, onError: () => undefined }).connect(serverSide);
  const session: Session = { client: new Client({ name: 'features', version: '1.0.0' }), updated: [], logs: [] };
  session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void session.updated.push(n.params.uri));
  session.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void session.logs.push(n.params));
  await session.client.connect(clientSide);
  return session;
}

/** The JSON-RPC error a request got. */
async function rpcError(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const textOf = (read: { contents: unknown[] }) => JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
const flush = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('MCP resources and prompts, in process', () => {
  it('declares resources (with subscribe), prompts and completions only for a registry that has them', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true }, prompts: {}, completions: {}, tools: {} });
    const bare = await connect(undefined, undefined, ToolRegistry.build({ tools: [] }));
    const capabilities = bare.client.getServerCapabilities()!;
    expect(capabilities.resources).toBeUndefined();
    expect(capabilities.prompts).toBeUndefined();
    // The raw request: the SDK client would refuse to send it to a server without the capability.
    const refused = await rpcError(bare.client.request({ method: 'resources/list', params: {} }, ReadResourceResultSchema));
    expect(refused.code).toBe(ErrorCode.MethodNotFound);
  });

  it('lists what this identity may use: admin-tagged entries for root only', async () => {
    const alice = (await connect()).client;
    expect((await alice.listResources()).resources).toEqual([
      { uri: 'notes://readme', name: 'readme', description: 'How the notes work', mimeType: 'text/markdown' },
      { uri: 'notes://logo', name: 'logo', description: 'The logo', mimeType: 'image/png' },
      { uri: 'notes://fails', name: 'fails', description: 'Always fails' },
    ]);
    expect((await alice.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'notes://{owner}/{noteId}', name: 'note', description: 'One note' },
    ]);
    expect((await alice.listPrompts()).prompts.map((p) => p.name)).toEqual(['summarize', 'broken']);
    expect((await alice.listPrompts()).prompts[0].arguments).toEqual([
      { name: 'topic', description: 'What to summarize', required: true },
      { name: 'style', description: 'How long', required: false },
    ]);
    const root = (await connect({ userId: 'root' })).client;
    expect((await root.listResources()).resources.map((r) => r.name)).toContain('admin_notes');
    expect((await root.listPrompts()).prompts.map((p) => p.name)).toContain('admin_prompt');
    // Hidden reads as unknown: -32002, and -32602 for a prompt, as for one that does not exist.
    expect((await rpcError(alice.readResource({ uri: 'notes://admin' }))).code).toBe(-32002);
    await expect(root.readResource({ uri: 'notes://admin' })).resolves.toMatchObject({ contents: [{ text: 'root only' }] });
    const hidden = await rpcError(alice.getPrompt({ name: 'admin_prompt' }));
    expect(hidden.code).toBe(ErrorCode.InvalidParams);
    expect(hidden.data).toEqual({ code: 'PROMPT_NOT_FOUND' });
    expect(hidden.message).not.toContain('admin_prompt.');
  });

  it("reads text, bytes and a template's JSON; what a read writes to the session is kept", async () => {
    const store = new InMemoryStore();
    const { client } = await connect({ userId: 'alice' }, store);
    await expect(client.readResource({ uri: 'notes://readme' })).resolves.toEqual({
      contents: [{ uri: 'notes://readme', mimeType: 'text/markdown', text: '# Notes\nOne note per owner and id.' }],
    });
    expect((await client.readResource({ uri: 'notes://logo' })).contents[0]).toMatchObject({ mimeType: 'image/png', blob: 'iVBORwD/' });
    expect(textOf(await client.readResource({ uri: 'notes://bob/n1' }))).toEqual({ owner: 'bob', noteId: 'n1', reads: 1, user: 'alice' });
    expect(textOf(await client.readResource({ uri: 'notes://bob/n2' }))).toMatchObject({ reads: 2 });
  });

  it('answers an invalid variable with its field errors, an unknown URI with -32002, a failure redacted', async () => {
    const { client } = await connect();
    const invalid = await rpcError(client.readResource({ uri: 'notes://carol/n1' }));
    expect(invalid.code).toBe(ErrorCode.InvalidParams);
    expect(invalid.data).toMatchObject({ code: 'INVALID_ARGUMENTS', errors: [expect.objectContaining({ path: 'owner' })] });
    const unknown = await rpcError(client.readResource({ uri: 'notes://nowhere' }));
    expect(unknown.code).toBe(-32002);
    expect(unknown.data).toMatchObject({ code: 'RESOURCE_NOT_FOUND', uri: 'notes://nowhere' });
    const failed = await rpcError(client.readResource({ uri: 'notes://fails' }));
    expect(failed.code).toBe(ErrorCode.InternalError);
    expect(failed.message).toContain('Resource "fails" failed unexpectedly.');
    expect(JSON.stringify(failed)).not.toContain('hunter2');
  });

  it('gets prompts, refuses bad arguments and invalid answers, completes arguments', async () => {
    const { client } = await connect();
    await expect(client.getPrompt({ name: 'summarize', arguments: { topic: 'bugs' } })).resolves.toEqual({
      description: 'A short summary',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Summarize bugs (short).' } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'notes://readme', name: 'readme' } },
      ],
    });
    const missing = await rpcError(client.getPrompt({ name: 'summarize', arguments: {} }));
    expect(missing.data).toMatchObject({ code: 'INVALID_ARGUMENTS', errors: [expect.objectContaining({ path: 'topic' })] });
    const broken = await rpcError(client.getPrompt({ name: 'broken' }));
    expect(broken).toMatchObject({ code: ErrorCode.InternalError, data: { code: 'INVALID_OUTPUT' } });
    expect(broken.message).toContain('Prompt "broken" returned an invalid result.');
    await expect(
      client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'bu' } }),
    ).resolves.toEqual({
      completion: { values: ['bugs', 'build'], total: 2, hasMore: false },
    });
    await expect(
      client.complete({ ref: { type: 'ref/resource', uri: 'notes://{owner}/{noteId}' }, argument: { name: 'owner', value: 'b' } }),
    ).resolves.toMatchObject({ completion: { values: ['bob'] } });
  });

  it('refuses hostile requests with -32602 and loses nothing: wrong types, nested values, prototype keys', async () => {
    const { client } = await connect();
    const cases: { method: string; params: unknown }[] = [
      { method: 'resources/read', params: { uri: 5 } },
      { method: 'resources/read', params: {} },
      { method: 'prompts/get', params: { name: 'summarize', arguments: { topic: { deep: { deeper: 'x' } } } } },
      { method: 'prompts/get', params: JSON.parse('{"name":"summarize","arguments":{"topic":"x","__proto__":"polluted"}}') },
      { method: 'completion/complete', params: { ref: { type: 'ref/prompt' }, argument: { name: 'topic', value: 'b' } } },
    ];
    for (const request of cases) {
      const error = await rpcError(client.request(request as never, GetPromptResultSchema));
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A huge URI: its variable refused as any invalid one, in a bounded answer; the session still serves.
    const huge = await rpcError(client.readResource({ uri: `notes://${'a'.repeat(500_000)}/n1` }));
    expect(huge.data).toMatchObject({ code: 'INVALID_ARGUMENTS', errors: [expect.objectContaining({ path: 'owner' })] });
    expect(JSON.stringify(huge).length).toBeLessThan(2000);
    expect(JSON.stringify(await rpcError(client.readResource({ uri: `nowhere://${'a'.repeat(500_000)}` }))).length).toBeLessThan(1000);
    await expect(client.readResource({ uri: 'notes://readme' })).resolves.toBeDefined();
  });

  it('tells a subscriber when its resource changes, and no one else; unsubscribing stops it', async () => {
    const watcher = await connect();
    const other = await connect();
    await watcher.client.subscribeResource({ uri: 'notes://alice/n1' });
    await other.client.callTool({ name: 'touch_note', arguments: { uri: 'notes://alice/n1' } });
    await other.client.callTool({ name: 'touch_note', arguments: { uri: 'notes://bob/n1' } });
    await flush();
    expect(watcher.updated).toEqual(['notes://alice/n1']);
    expect(other.updated).toEqual([]);
    await watcher.client.unsubscribeResource({ uri: 'notes://alice/n1' });
    await other.client.callTool({ name: 'touch_note', arguments: { uri: 'notes://alice/n1' } });
    await flush();
    expect(watcher.updated).toEqual(['notes://alice/n1']);
    // Only what the caller could read: a hidden or unknown URI is refused.
    expect((await rpcError(watcher.client.subscribeResource({ uri: 'notes://admin' }))).code).toBe(-32002);
    expect((await rpcError(watcher.client.subscribeResource({ uri: 'notes://nowhere' }))).code).toBe(-32002);
  });

  it("sends a read's context.log at the session's level, named by the URI", async () => {
    const session = await connect();
    await session.client.readResource({ uri: 'notes://alice/n3' });
    await session.client.setLoggingLevel('info');
    await session.client.readResource({ uri: 'notes://alice/n4' });
    await flush();
    expect(session.logs).toEqual([{ level: 'info', logger: 'notes://alice/n4', data: 'read alice/n4' }]);
  });

  it('answers STORE_UNAVAILABLE while the store is down, and serves again once it is back', async () => {
    const store = new InMemoryStore();
    let down = true;
    const load = store.loadSession.bind(store);
    store.loadSession = (...args) => (down ? Promise.reject(new StoreUnavailableError('memory', new Error('down'))) : load(...args));
    const { client } = await connect({ userId: 'alice' }, store);
    for (const request of [
      client.readResource({ uri: 'notes://readme' }),
      client.listPrompts(),
      client.getPrompt({ name: 'summarize', arguments: { topic: 'x' } }),
    ]) {
      const error = await rpcError(request);
      expect(error.data).toEqual({ code: 'STORE_UNAVAILABLE' });
    }
    down = false;
    await expect(client.readResource({ uri: 'notes://readme' })).resolves.toBeDefined();
  });
});

describe('list_changed: a request that changes what the session may see announces it', () => {
  class None {}
  const member = (context: AgentContext) => context.getState('member') === true;

  @Tool({ name: 'join', description: 'Become a member', input: None })
  class JoinTool implements ToolInterface {
    execute(_args: object, context: AgentContext): object {
      context.setState('member', true);
      return { joined: true };
    }
  }

  @Tool({ name: 'members_only', description: 'For members', input: None })
  class MembersTool implements ToolInterface {
    isEnabled = member;
    execute(): object {
      return { ok: true };
    }
  }

  @Prompt({ name: 'members_prompt', description: 'For members', input: None })
  class MembersPrompt implements PromptInterface {
    isEnabled = member;
    get(): string {
      return 'welcome';
    }
  }

  const gated = ToolRegistry.build({ tools: [JoinTool, MembersTool], prompts: [MembersPrompt], resources: [ReadmeResource] });

  it('declares listChanged for the lists that depend on the caller, and sends each that changed once', async () => {
    const changed: string[] = [];
    const session = await connect({ userId: 'u' }, new InMemoryStore(), gated);
    for (const schema of [ToolListChangedNotificationSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema]) {
      session.client.setNotificationHandler(schema, (n) => void changed.push(n.method));
    }
    expect(session.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true } });
    expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual(['join']);
    expect((await session.client.listPrompts()).prompts).toEqual([]);
    await session.client.callTool({ name: 'join', arguments: {} });
    await flush();
    expect(changed.sort()).toEqual(['notifications/prompts/list_changed', 'notifications/tools/list_changed']);
    expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual(['join', 'members_only']);
    // Nothing changed this time: nothing announced.
    await session.client.callTool({ name: 'join', arguments: {} });
    await flush();
    expect(changed).toHaveLength(2);
  });

  it('declares none for a registry whose lists are the same for everyone', async () => {
    const { client } = await connect(undefined, undefined, ToolRegistry.build({ tools: [JoinTool], prompts: [SummarizePrompt] }));
    expect(client.getServerCapabilities()?.tools).toEqual({});
    expect(client.getServerCapabilities()?.prompts).toEqual({});
  });
});

describe('MCP resources and prompts over Streamable HTTP, identity from the auth hook', () => {
  let handle: HttpHandle;
  beforeAll(async () => {
    handle = await serveHttp(featureRegistry(), {
      auth: tokenAuth({ 'token-alice': { userId: 'alice' }, 'token-root': { userId: 'root' } }),
      onError: () => undefined,
    });
  });
  afterAll(() => handle.close());

  async function as(token: string): Promise<Session> {
    const session: Session = { client: new Client({ name: 'http', version: '1.0.0' }), updated: [], logs: [] };
    session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void session.updated.push(n.params.uri));
    await session.client.connect(
      new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return session;
  }

  it('serves each token its own view, and subscriptions on the session stream', async () => {
    const alice = await as('token-alice');
    const root = await as('token-root');
    try {
      expect((await alice.client.listResources()).resources.map((r) => r.name)).not.toContain('admin_notes');
      expect((await root.client.listResources()).resources.map((r) => r.name)).toContain('admin_notes');
      expect(textOf(await alice.client.readResource({ uri: 'notes://alice/n9' }))).toMatchObject({ user: 'alice', reads: 1 });
      expect((await rpcError(alice.client.readResource({ uri: 'notes://admin' }))).code).toBe(-32002);
      await alice.client.subscribeResource({ uri: 'notes://readme' });
      await root.client.callTool({ name: 'touch_note', arguments: { uri: 'notes://readme' } });
      for (let i = 0; i < 50 && alice.updated.length === 0; i++) await flush();
      expect(alice.updated).toEqual(['notes://readme']);
    } finally {
      await alice.client.close();
      await root.client.close();
    }
  });
});
