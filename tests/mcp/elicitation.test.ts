/**
 * `context.elicit`, `elicitUrl` and `sample` over MCP, with the official SDK client as the person and
 * the model: in process (linked transports) and on Streamable HTTP. The form is the input class's
 * schema; the answer goes through the class's pipeline before the tool sees it.
 */
import 'reflect-metadata';
import { IsEmail, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { Param, Tool, ToolContent, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';
import { createMcpServer, serveHttp } from '../../src/mcp';
import { InMemoryStore } from '../../src/stores/in-memory.store';

class NoInput {}

class Contact {
  @Param({ title: 'Name', description: 'Your name' })
  @IsString()
  name!: string;

  @Param({ description: 'Where we reach you', format: 'email' })
  @IsEmail()
  email!: string;

  @Param({ description: 'Seats', default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  seats?: number;
}

class Address {
  @Param()
  @IsString()
  city!: string;
}

class Nested {
  @Param({ type: () => Address })
  address!: Address;
}

/** What the tool got back from `context.elicit`, as the client reads it. */
function report(result: { action: string; content?: object }): ToolContent {
  const content = result.content && { instance: result.content.constructor.name, ...result.content };
  return ToolContent.of(ToolContent.text(JSON.stringify({ action: result.action, content })));
}

@Tool({ name: 'book', description: 'Asks for contact details', input: NoInput })
class BookTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return report(await context.elicit('Who is booking?', Contact));
  }
}

@Tool({ name: 'nested', description: 'Asks for a nested class', input: NoInput })
class NestedTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return report(await context.elicit('Where?', Nested));
  }
}

@Tool({ name: 'login', description: 'Sends the user to a sign-in page', input: NoInput })
class LoginTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return report(await context.elicitUrl('Sign in to the provider', 'https://example.com/oauth/start?state=1'));
  }
}

@Tool({ name: 'ask_model', description: "Asks the client's model", input: NoInput })
class AskModelTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const answer = await context.sample('Say hi', { maxTokens: 50, systemPrompt: 'Be brief' });
    return ToolContent.of(ToolContent.text(JSON.stringify(answer)));
  }
}

@Tool({ name: 'book_quickly', description: 'Asks, but gives the user 100 ms', input: NoInput, timeoutMs: 100 })
class QuickBookTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return report(await context.elicit('Quick: who is booking?', Contact));
  }
}

const registry = ToolRegistry.build({ tools: [BookTool, NestedTool, LoginTool, AskModelTool, QuickBookTool] });

const FULL: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {} };

async function connect(capabilities: ClientCapabilities): Promise<Client> {
  const server = createMcpServer(registry, { onError: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'elicit-test', version: '1.0.0' }, { capabilities });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** The client answers every elicitation with `answer` and keeps what it was asked. */
function answering(client: Client, answer: (request: ElicitRequest) => object): ElicitRequest[] {
  const asked: ElicitRequest[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request);
    return answer(request);
  });
  return asked;
}

const call = (client: Client, name: string) => client.callTool({ name, arguments: {} }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});
const open = async (capabilities: ClientCapabilities = FULL) => {
  const client = await connect(capabilities);
  clients.push(client);
  return client;
};

describe('context.elicit over MCP', () => {
  it('sends the input class as a form and hands the tool the accepted answer as an instance', async () => {
    const client = await open();
    const asked = answering(client, () => ({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com', seats: 2 } }));
    const result = await call(client, 'book');
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toEqual({ action: 'accept', content: { instance: 'Contact', name: 'Ada', email: 'ada@example.com', seats: 2 } });
    expect(asked).toHaveLength(1);
    expect(asked[0].params).toEqual({
      mode: 'form',
      message: 'Who is booking?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', description: 'Your name' },
          email: { type: 'string', description: 'Where we reach you', format: 'email' },
          seats: { type: 'integer', description: 'Seats', default: 1, minimum: 1, maximum: 8 },
        },
        required: ['name', 'email'],
      },
    });
  });

  it.each(['decline', 'cancel'] as const)('tells the tool the user chose %s, with no content', async (action) => {
    const client = await open();
    answering(client, () => ({ action }));
    expect(textOf(await call(client, 'book'))).toEqual({ action });
  });

  it.each([
    ['a wrong type', { name: 'Ada', email: 'ada@example.com', seats: 'two' }, 'seats'],
    ['a value out of range', { name: 'Ada', email: 'ada@example.com', seats: 9 }, 'seats'],
    ['a broken email', { name: 'Ada', email: 'not-an-email' }, 'email'],
    ['a missing required field', { name: 'Ada' }, 'email'],
    ['an extra key', { name: 'Ada', email: 'ada@example.com', admin: true }, 'admin'],
  ])('refuses an answer with %s (INVALID_INPUT): the tool never sees it', async (_what, content, path) => {
    const client = await open();
    answering(client, () => ({ action: 'accept', content }));
    const result = await call(client, 'book');
    expect(result.isError).toBe(true);
    const error = textOf(result);
    expect(error).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect((error.errors as Array<{ path: string }>).map((e) => e.path)).toContain(path);
  });

  it('refuses an answer carrying a __proto__ key, as it refuses such tool arguments', async () => {
    // The SDK client copies its own answer through zod (a `__proto__` key would vanish): a hostile client
    // is played by rewriting the response on the wire, as JSON.parse reads it (an own `__proto__` key).
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => {
      const text = JSON.stringify(message).replace('"content":{', '"content":{"__proto__":{"admin":true},');
      return send(JSON.parse(text) as typeof message, options);
    };
    const client = new Client({ name: 'hostile', version: '1.0.0' }, { capabilities: FULL });
    clients.push(client);
    await Promise.all([createMcpServer(registry, { onError: () => undefined }).connect(serverSide), client.connect(clientSide)]);
    answering(client, () => ({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } }));
    const result = await call(client, 'book');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ code: 'INVALID_INPUT', errors: [{ constraint: 'forbiddenKey' }] });
  });

  it('says no one can answer (INPUT_UNAVAILABLE) when the client has no elicitation capability', async () => {
    // Such a client cannot even register an elicitation handler: nothing could answer a request sent anyway.
    const client = await open({ sampling: {} });
    const result = await call(client, 'book');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ code: 'INPUT_UNAVAILABLE' });
    expect(textOf(result).message).toContain('does not support elicitation');
  });

  it('refuses a nested class with a ToolwrightConfigError, before asking anyone', async () => {
    const client = await open();
    const asked = answering(client, () => ({ action: 'accept', content: {} }));
    const result = await call(client, 'nested');
    expect(result.isError).toBe(true);
    // A configuration mistake is the tool's bug: redacted as TOOL_FAILED for the model.
    expect(textOf(result)).toMatchObject({ code: 'TOOL_FAILED' });
    expect(asked).toHaveLength(0);
  });

  it('stops waiting for the user when the call is cancelled', async () => {
    const client = await open();
    // The SDK ignores the cancellation of a request whose id is 0 (`if (!requestId)`): a first round uses that id up.
    answering(client, () => ({ action: 'decline' }));
    expect(textOf(await call(client, 'book'))).toEqual({ action: 'decline' });
    let askedSignal: AbortSignal | undefined;
    let release!: () => void;
    const pending = new Promise<void>((resolve) => (release = resolve));
    client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
      askedSignal = extra.signal;
      release();
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
      return { action: 'cancel' };
    });
    const controller = new AbortController();
    const calling = client.callTool({ name: 'book', arguments: {} }, undefined, { signal: controller.signal });
    await pending;
    controller.abort(new Error('the user closed the chat'));
    await expect(calling).rejects.toThrow();
    // The server cancelled its own request to the client: the form goes away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(askedSignal?.aborted).toBe(true);
  });
});

describe('an elicitation outliving its call', () => {
  it("is cancelled on the client when the tool's timeout passes: the call fails with TOOL_TIMEOUT", async () => {
    const client = await open();
    // As above: the first server request (id 0) cannot be cancelled in the SDK.
    answering(client, () => ({ action: 'decline' }));
    await call(client, 'book');
    let askedSignal: AbortSignal | undefined;
    client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
      askedSignal = extra.signal;
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
      return { action: 'cancel' };
    });
    const result = await call(client, 'book_quickly');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ code: 'TOOL_TIMEOUT' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(askedSignal?.aborted).toBe(true);
  });
});

describe('context.elicitUrl over MCP', () => {
  it('asks the client in URL mode, with an elicitation id, and tells the tool the action only', async () => {
    const client = await open();
    const asked = answering(client, () => ({ action: 'accept' }));
    expect(textOf(await call(client, 'login'))).toEqual({ action: 'accept' });
    expect(asked[0].params).toEqual({
      mode: 'url',
      message: 'Sign in to the provider',
      url: 'https://example.com/oauth/start?state=1',
      elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('is INPUT_UNAVAILABLE for a client that declared form mode only', async () => {
    const client = await open({ elicitation: {} });
    const asked = answering(client, () => ({ action: 'accept' }));
    const result = await call(client, 'login');
    expect(textOf(result)).toMatchObject({ code: 'INPUT_UNAVAILABLE' });
    expect(textOf(result).message).toContain('URL elicitation');
    expect(asked).toHaveLength(0);
  });
});

describe('context.sample over MCP', () => {
  it("asks the client's model and gives the tool its text and model", async () => {
    const client = await open();
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'Hi!' }, model: 'test-model', stopReason: 'endTurn' };
    });
    expect(textOf(await call(client, 'ask_model'))).toEqual({
      text: 'Hi!',
      content: [{ type: 'text', text: 'Hi!' }],
      model: 'test-model',
      stopReason: 'endTurn',
    });
    expect(asked).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 50, systemPrompt: 'Be brief' },
    ]);
  });

  it('is INPUT_UNAVAILABLE for a client without the sampling capability', async () => {
    const client = await open({ elicitation: {} });
    const result = await call(client, 'ask_model');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ code: 'INPUT_UNAVAILABLE' });
    expect(textOf(result).message).toContain('does not offer sampling');
  });
});

describe('elicitation on Streamable HTTP', () => {
  it("asks on the call's own stream and gets the answer back", async () => {
    const handle = await serveHttp(registry, { name: 'elicit-http', onError: () => undefined });
    const client = new Client({ name: 'elicit-http', version: '1.0.0' }, { capabilities: FULL });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      answering(client, () => ({ action: 'accept', content: { name: 'Grace', email: 'grace@example.com' } }));
      expect(textOf(await call(client, 'book'))).toEqual({
        action: 'accept',
        content: { instance: 'Contact', name: 'Grace', email: 'grace@example.com' },
      });
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

describe('elicitation on stateless Streamable HTTP', () => {
  it('is INPUT_UNAVAILABLE: a stateless server does not know what the client declared, and could not route its answer back', async () => {
    const handle = await serveHttp(registry, { stateless: true, store: new InMemoryStore(), onError: () => undefined });
    const client = new Client({ name: 'elicit-stateless', version: '1.0.0' }, { capabilities: FULL });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const asked = answering(client, () => ({ action: 'accept', content: { name: 'Grace', email: 'grace@example.com' } }));
      const result = await call(client, 'book');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatchObject({ code: 'INPUT_UNAVAILABLE' });
      expect(asked).toHaveLength(0);
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

describe('context.elicit with nothing to answer it', () => {
  it('is INPUT_UNAVAILABLE from registry.call without an onElicit sink', async () => {
    const { AgentContext, AgentMemory } = await import('../../src');
    const context = new AgentContext({ sessionId: 's' });
    await expect(registry.call('book', {}, context, new AgentMemory({ agentName: 'a', userId: 'u' }))).rejects.toMatchObject({
      code: 'INPUT_UNAVAILABLE',
    });
  });
});
