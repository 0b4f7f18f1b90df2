/**
 * MCP 2026-07-28 multi-round requests (SEP-2322): a tool names its questions (`{ key }`), questions
 * asked together go out in one `input_required`, and the answers of earlier rounds come back in a
 * requestState signed with the server's secret and bound to the caller and the request: altered,
 * forged, expired, another caller's or another request's state is refused (-32602, HTTP 400).
 * A tool that needs a capability the client did not declare ends the request with -32021 (HTTP 400).
 * The same tool asks a 2025 client directly, and any caller of the registry through its sinks.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { IsString } from 'class-validator';
import {
  InputUnavailableError,
  InvalidRequestStateError,
  Param,
  Tool,
  ToolRegistry,
  ToolwrightConfigError,
  type AgentContext,
  type InputRequest,
  type ToolInterface,
} from '../../src';
import { createMcpServer, McpServeConfigError, serveHttp, tokenAuth, type HttpHandle } from '../../src/mcp';
import { RequestStateSeal, REQUEST_STATE_TTL_MS } from '../../src/mcp/http/request-state';
import { InMemoryStore } from '../../src/stores';

class NameForm {
  @Param() @IsString() name!: string;
}
class ColorForm {
  @Param() @IsString() color!: string;
}
class TextInput {
  @Param() @IsString() text!: string;
}

const runs: string[] = [];

@Tool({ name: 'two_steps', description: 'Asks a name, then a color', input: TextInput })
class TwoStepsTool implements ToolInterface<TextInput> {
  async execute({ text }: TextInput, context: AgentContext): Promise<object> {
    runs.push(text);
    const name = await context.elicit('Your name?', NameForm, { key: 'who' });
    const color = await context.elicit('Your color?', ColorForm, { key: 'color' });
    return {
      text,
      name: name.action === 'accept' ? name.content.name : null,
      color: color.action === 'accept' ? color.content.color : null,
    };
  }
}

@Tool({ name: 'all_at_once', description: 'Asks the user, the model and the client together', input: TextInput })
class AllAtOnceTool implements ToolInterface<TextInput> {
  async execute(_input: TextInput, context: AgentContext): Promise<object> {
    const [name, answer, roots] = await Promise.all([
      context.elicit('Your name?', NameForm, { key: 'who' }),
      context.sample('Say hi', { maxTokens: 10, key: 'hi' }),
      context.roots({ key: 'roots' }),
    ]);
    return { name: name.action === 'accept' ? name.content.name : null, hi: answer.text, roots: roots.map((r) => r.uri) };
  }
}

@Tool({ name: 'needs_model', description: 'Needs sampling', input: TextInput })
class NeedsModelTool implements ToolInterface<TextInput> {
  async execute(_input: TextInput, context: AgentContext): Promise<object> {
    return { said: (await context.sample('Say hi', { maxTokens: 10 })).text };
  }
}

@Tool({ name: 'model_or_not', description: 'Uses sampling when it can', input: TextInput })
class ModelOrNotTool implements ToolInterface<TextInput> {
  async execute(_input: TextInput, context: AgentContext): Promise<object> {
    try {
      return { said: (await context.sample('Say hi', { maxTokens: 10 })).text };
    } catch (error) {
      if (error instanceof InputUnavailableError) return { said: 'no model' };
      throw error;
    }
  }
}

@Tool({ name: 'bad_key', description: 'Names its question badly', input: TextInput })
class BadKeyTool implements ToolInterface<TextInput> {
  async execute(_input: TextInput, context: AgentContext): Promise<object> {
    await context.elicit('?', NameForm, { key: 'input-0' });
    return {};
  }
}

const TOOLS = [TwoStepsTool, AllAtOnceTool, NeedsModelTool, ModelOrNotTool, BadKeyTool];
const SECRET = 'a shared secret of at least 32 bytes, for both replicas';
const ALL = { elicitation: {}, sampling: {}, roots: {} };

let a: HttpHandle;
let b: HttpHandle;
let other: HttpHandle;
beforeAll(async () => {
  const auth = tokenAuth({ 'token-a': { userId: 'alice' }, 'token-b': { userId: 'bob' } });
  const store = new InMemoryStore();
  // Two replicas sharing the secret, and a server with another secret.
  a = await serveHttp(ToolRegistry.build({ tools: TOOLS }), { store, auth, requestStateSecret: SECRET, onError: () => undefined });
  b = await serveHttp(ToolRegistry.build({ tools: TOOLS }), { store, auth, requestStateSecret: SECRET, onError: () => undefined });
  other = await serveHttp(ToolRegistry.build({ tools: TOOLS }), { store, auth, onError: () => undefined });
});
afterAll(() => Promise.all([a.close(), b.close(), other.close()]));

interface Rpc {
  status: number;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

async function call(
  server: HttpHandle,
  name: string,
  args: object,
  extra: object = {},
  capabilities: object = ALL,
  token = 'token-a',
): Promise<Rpc> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...extra,
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities },
      },
    }),
  });
  const body = (await res.json()) as Rpc;
  return { status: res.status, result: body.result, error: body.error };
}

const valueOf = (rpc: Rpc) => JSON.parse(rpc.result!.content[0].text as string) as Record<string, unknown>;
const accept = (content: object) => ({ action: 'accept', content });

describe('named questions and requestState', () => {
  it('asks by the names the tool gave, carrying earlier answers in the signed state to the last round', async () => {
    const first = await call(a, 'two_steps', { text: 't1' });
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    expect(Object.keys(first.result!.inputRequests)).toEqual(['who']);
    expect(first.result!.inputRequests.who.params).toEqual({
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    expect(typeof first.result!.requestState).toBe('string');

    const second = await call(
      a,
      'two_steps',
      { text: 't1' },
      { inputResponses: { who: accept({ name: 'Ada' }) }, requestState: first.result!.requestState },
    );
    expect(Object.keys(second.result!.inputRequests)).toEqual(['color']);
    expect(second.result!.requestState).not.toBe(first.result!.requestState);

    // The last round sends only the last answer: the name comes from the state, and another replica with the secret reads it.
    const third = await call(
      b,
      'two_steps',
      { text: 't1' },
      { inputResponses: { color: accept({ color: 'teal' }) }, requestState: second.result!.requestState },
    );
    expect(third.result!.resultType).toBe('complete');
    expect(valueOf(third)).toEqual({ text: 't1', name: 'Ada', color: 'teal' });
  });

  it('asks questions made together in one input_required, and answers them all in the next round', async () => {
    const first = await call(a, 'all_at_once', { text: 'x' });
    expect(first.result!.inputRequests).toEqual({
      who: expect.objectContaining({ method: 'elicitation/create' }),
      hi: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 },
      },
      roots: { method: 'roots/list', params: {} },
    });
    const answers = {
      who: accept({ name: 'Ada' }),
      hi: { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'm' },
      roots: { roots: [{ uri: 'file:///work', name: 'work' }] },
    };
    const done = await call(a, 'all_at_once', { text: 'x' }, { inputResponses: answers, requestState: first.result!.requestState });
    expect(valueOf(done)).toEqual({ name: 'Ada', hi: 'hi!', roots: ['file:///work'] });
  });

  it('refuses an altered state with a typed error (-32602, HTTP 400), and the tool does not run', async () => {
    const first = await call(a, 'two_steps', { text: 'tamper' });
    const state = first.result!.requestState as string;
    const [body, mac] = state.split('.');
    const forgedBody = Buffer.from(
      Buffer.from(body, 'base64url')
        .toString('utf8')
        .replace(/"x":\d+/, '"x":99999999999999'),
    ).toString('base64url');
    runs.length = 0;
    for (const altered of [`${state}-TAMPERED`, `${forgedBody}.${mac}`, 'not-a-state', `${body}.`, `${body}.${mac}.${mac}`]) {
      const refused = await call(
        a,
        'two_steps',
        { text: 'tamper' },
        { inputResponses: { color: accept({ color: 'red' }) }, requestState: altered },
      );
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ code: -32602, data: { code: 'INVALID_REQUEST_STATE' } });
      expect(refused.error!.message).toMatch(/^Invalid requestState: /);
    }
    const notString = await call(a, 'two_steps', { text: 'tamper' }, { requestState: { answers: {} } });
    expect(notString.error).toMatchObject({ code: -32602, data: { code: 'INVALID_REQUEST_STATE' } });
    expect(runs).toEqual([]);
  });

  it("refuses a state signed with another server's secret (a forgery), another caller's, and one carried to another request", async () => {
    const first = await call(a, 'two_steps', { text: 'mine' }, { inputResponses: { who: accept({ name: 'Ada' }) } });
    const state = first.result!.requestState as string;
    const next = { inputResponses: { color: accept({ color: 'red' }) }, requestState: state };
    const forged = await call(other, 'two_steps', { text: 'mine' }, next);
    expect(forged.error!.message).toMatch(/integrity check failed/);
    const bob = await call(a, 'two_steps', { text: 'mine' }, next, ALL, 'token-b');
    expect(bob.error!.message).toMatch(/another caller or for another request/);
    const otherArgs = await call(a, 'two_steps', { text: 'yours' }, next);
    expect(otherArgs.error!.message).toMatch(/another caller or for another request/);
    const otherTool = await call(a, 'all_at_once', { text: 'mine' }, next);
    expect(otherTool.error!.message).toMatch(/another caller or for another request/);
    for (const refused of [forged, bob, otherArgs, otherTool]) expect(refused.status).toBe(400);
    // The owner, the same request: accepted.
    expect(valueOf(await call(a, 'two_steps', { text: 'mine' }, next))).toEqual({ text: 'mine', name: 'Ada', color: 'red' });
  });

  it('a state of the same request stays valid until it expires (not a one-time ticket), and is refused after', () => {
    let now = 1_000_000;
    const seal = new RequestStateSeal(SECRET, () => now);
    const binding = { owner: 'o', method: 'tools/call', target: 't', args: { a: 1, b: [1, 2] } };
    const state = seal.seal(binding, { who: { action: 'accept' } });
    expect(seal.open(state, { ...binding, args: { b: [1, 2], a: 1 } })).toEqual({ who: { action: 'accept' } });
    expect(seal.open(state, binding)).toEqual({ who: { action: 'accept' } });
    now += REQUEST_STATE_TTL_MS;
    expect(() => seal.open(state, binding)).toThrow(InvalidRequestStateError);
    expect(() => seal.open(state, binding)).toThrow(/expired/);
  });

  it('refuses a requestStateSecret shorter than 32 bytes', async () => {
    await expect(serveHttp(ToolRegistry.build({ tools: TOOLS }), { requestStateSecret: 'short' })).rejects.toThrow(McpServeConfigError);
  });

  it("refuses a key that is not a plain name, or is one of the numbered names (the tool author's bug)", async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    const failed = registry.call('bad_key', { text: 'x' }, undefined, undefined, { onElicit: async () => ({ action: 'cancel' }) });
    await expect(failed).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(failed).rejects.toMatchObject({ cause: expect.any(ToolwrightConfigError) });
  });
});

describe('capabilities the client did not declare', () => {
  it('answers -32021 (HTTP 400) naming the capability when the tool needs it, and runs a tool that does without', async () => {
    const refused = await call(a, 'needs_model', { text: 'x' }, {}, { elicitation: {} });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    const recovered = await call(a, 'model_or_not', { text: 'x' }, {}, { elicitation: {} });
    expect(valueOf(recovered)).toEqual({ said: 'no model' });
    // Declared: the tool asks instead.
    const asked = await call(a, 'needs_model', { text: 'x' }, {}, { sampling: {} });
    expect(Object.keys(asked.result!.inputRequests)).toEqual(['input-0']);
    // The roots of a client that has none to give: -32021 too, naming roots.
    const noRoots = await call(
      a,
      'all_at_once',
      { text: 'x' },
      { inputResponses: { who: accept({ name: 'A' }) } },
      { elicitation: {}, sampling: {} },
    );
    expect(noRoots.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
  });
});

describe('the same tools elsewhere', () => {
  it('asks a 2025 client directly, with the key in _meta', async () => {
    const server = createMcpServer(ToolRegistry.build({ tools: TOOLS }), { onError: () => undefined });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    const asked: ElicitRequest[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request);
      return { action: 'accept', content: request.params.message === 'Your name?' ? { name: 'Ada' } : { color: 'blue' } };
    });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const result = (await client.callTool({ name: 'two_steps', arguments: { text: 'old' } })) as CallToolResult;
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ text: 'old', name: 'Ada', color: 'blue' });
      expect(asked.map((r) => r.params._meta)).toEqual([{ 'io.toolwright/inputKey': 'who' }, { 'io.toolwright/inputKey': 'color' }]);
      const noModel = (await client.callTool({ name: 'needs_model', arguments: { text: 'x' } })) as CallToolResult;
      expect(noModel.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('passes the key to any surface that asks (the agent runner, useChat), which may ignore it', async () => {
    const registry = ToolRegistry.build({ tools: TOOLS });
    const requests: InputRequest[] = [];
    const out = await registry.call('two_steps', { text: 'agent' }, undefined, undefined, {
      onElicit: async (request) => {
        requests.push(request);
        return {
          action: 'accept',
          content: request.mode === 'form' && 'name' in request.requestedSchema.properties ? { name: 'Ada' } : { color: 'red' },
        };
      },
    });
    expect(JSON.parse(out)).toEqual({ text: 'agent', name: 'Ada', color: 'red' });
    expect(requests.map((r) => r.key)).toEqual(['who', 'color']);
    await expect(registry.call('all_at_once', { text: 'x' })).rejects.toThrow(InputUnavailableError);
  });
});
