/**
 * ToolContent: a result of text, images, audio and resources. The factories make MCP's shapes
 * and refuse what MCP could not carry; MCP clients get the parts on every transport; everyone
 * else (`registry.call`'s answer, the agent's model) gets a text form that names each part.
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Equals, IsIn, IsInt } from 'class-validator';
import fc from 'fast-check';
import {
  Agent,
  AgentContext,
  AgentMemory,
  InMemoryStore,
  Param,
  ScriptedModel,
  Tool,
  ToolContent,
  ToolRegistry,
  ToolwrightError,
  type CallOptions,
  type ToolInterface,
} from 'toolwright';
import { createMcpServer, serveHttp } from 'toolwright/mcp';
import type { ModelRequest } from 'toolwright/models';
import type { ContentPart } from 'toolwright/providers';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const MIXED: ContentPart[] = [
  { type: 'text', text: 'Your chart:' },
  { type: 'image', data: PIXEL, mimeType: 'image/png' },
  { type: 'audio', data: 'AAEC', mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///report.txt', mimeType: 'text/plain', text: 'Q3: up' } },
  { type: 'resource', resource: { uri: 'file:///raw.bin', blob: 'AAEC' } },
  { type: 'resource_link', uri: 'https://example.com/full.pdf', name: 'full report', mimeType: 'application/pdf' },
];

class KindInput {
  @Param({ description: 'What to return' }) @IsIn(['mixed', 'broken']) kind!: string;
}

@Tool({ name: 'chart', description: 'Returns mixed content', input: KindInput })
class ChartTool implements ToolInterface<KindInput> {
  execute({ kind }: KindInput): ToolContent {
    if (kind === 'broken') return ToolContent.of(ToolContent.image('not base64!', 'image/png'));
    return ToolContent.of([
      ToolContent.text('Your chart:'),
      ToolContent.image(PIXEL, 'image/png'),
      ToolContent.audio(new Uint8Array([0, 1, 2]), 'audio/wav'),
      ToolContent.resource({ uri: 'file:///report.txt', mimeType: 'text/plain', text: 'Q3: up' }),
      ToolContent.resource({ uri: 'file:///raw.bin', blob: Buffer.from([0, 1, 2]) }),
      ToolContent.resourceLink({ uri: 'https://example.com/full.pdf', name: 'full report', mimeType: 'application/pdf' }),
    ]);
  }
}

class Summary {
  @Equals('ok') status!: 'ok';
  @IsInt() points!: number;
}

class StructuredInput {
  @Param({ description: 'Which structured result' }) @IsIn(['valid', 'invalid', 'missing']) which!: string;
}

@Tool({ name: 'summary', description: 'A chart with a structured result', input: StructuredInput, output: Summary })
class SummaryTool implements ToolInterface<StructuredInput> {
  execute({ which }: StructuredInput): ToolContent {
    const image = ToolContent.image(PIXEL, 'image/png');
    if (which === 'missing') return ToolContent.of(image);
    return ToolContent.of(image, { structured: which === 'valid' ? { status: 'ok', points: 3 } : { status: 'ok', points: 'three' } });
  }
}

const TOOLS = [ChartTool, SummaryTool];
const DESCRIBED = {
  content: [
    { type: 'text', text: 'Your chart:' },
    { type: 'image', mimeType: 'image/png', bytes: Buffer.from(PIXEL, 'base64').length },
    { type: 'audio', mimeType: 'audio/wav', bytes: 3 },
    { type: 'resource', uri: 'file:///report.txt', mimeType: 'text/plain', text: 'Q3: up' },
    { type: 'resource', uri: 'file:///raw.bin', bytes: 3 },
    { type: 'resource_link', uri: 'https://example.com/full.pdf', name: 'full report', mimeType: 'application/pdf' },
  ],
};

const session = () => ({
  context: new AgentContext({ sessionId: 'content-1', userId: 'u-1' }),
  memory: new AgentMemory({ agentName: 'content', userId: 'u-1' }),
});

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ToolwrightError ? `${error.code}: ${error.message}` : `not a ToolwrightError: ${String(error)}`;
  }
  return undefined;
}

describe('the factories', () => {
  it('make MCP’s content shapes; bytes become base64', () => {
    expect(ToolContent.of(MIXED).parts).toEqual(MIXED);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const part = ToolContent.image(bytes, 'image/png') as { data: string };
        expect([...Buffer.from(part.data, 'base64')]).toEqual([...bytes]);
      }),
    );
  });

  it.each([
    ['no part', () => ToolContent.of([])],
    ['data that is not base64', () => ToolContent.image('a b c', 'image/png')],
    ['a MIME type that is none', () => ToolContent.audio('AAEC', 'wav')],
    ['a resource URI that is not absolute', () => ToolContent.resource({ uri: 'report.txt', text: 'x' })],
    ['a resource with neither text nor blob', () => ToolContent.resource({ uri: 'file:///x' } as never)],
    ['a link without a name', () => ToolContent.resourceLink({ uri: 'https://example.com', name: '' })],
    ['a part of an unknown type', () => ToolContent.of([{ type: 'video', data: 'AAEC' } as never])],
    ['a part that is not an object', () => ToolContent.of([null as never])],
    ['structured that is not an object', () => ToolContent.of(ToolContent.text('x'), { structured: 3 as never })],
  ])('refuse %s with INVALID_CONFIG', (_what, make) => {
    expect(refusal(make)).toMatch(/^INVALID_CONFIG: ToolContent: /);
  });

  it('a result is frozen: its parts cannot be changed after the tool returned it', () => {
    const content = ToolContent.of([ToolContent.text('a')]);
    expect(Object.isFrozen(content)).toBe(true);
    expect(Object.isFrozen(content.parts)).toBe(true);
    // A factory's part is frozen too, so `of` may take it without checking it again.
    const resource = ToolContent.resource({ uri: 'file:///a', text: 'a' }) as { resource: object };
    expect([Object.isFrozen(ToolContent.image(PIXEL, 'image/png')), Object.isFrozen(resource), Object.isFrozen(resource.resource)]).toEqual(
      [true, true, true],
    );
  });
});

describe('registry.call', () => {
  const registry = ToolRegistry.build({ tools: TOOLS });
  const PATHS: Record<string, () => CallOptions | undefined> = {
    direct: () => undefined,
    'call id': () => ({ toolCallId: 'c-1' }),
    signal: () => ({ signal: new AbortController().signal }),
    timeout: () => ({ timeoutMs: 5_000 }),
  };

  it.each(Object.keys(PATHS))('on the %s path answers the text form naming every part, and onContent gets the parts', async (path) => {
    const { context, memory } = session();
    expect(JSON.parse(await registry.call('chart', { kind: 'mixed' }, context, memory, PATHS[path]()))).toEqual(DESCRIBED);
    let parts: readonly ContentPart[] | undefined;
    const options = { ...PATHS[path](), onContent: (content: ToolContent) => (parts = content.parts) };
    await registry.call('chart', { kind: 'mixed' }, context, memory, options);
    expect(parts).toEqual(MIXED);
  });

  it('a tool that builds a part wrong fails with TOOL_FAILED, the reason as its cause', async () => {
    const { context, memory } = session();
    const error = (await registry.call('chart', { kind: 'broken' }, context, memory).catch((e: unknown) => e)) as ToolwrightError;
    expect(error.code).toBe('TOOL_FAILED');
    expect((error.cause as Error).message).toContain('base64');
  });

  it('with an output contract, structured is checked and is the text; missing or invalid is INVALID_OUTPUT', async () => {
    const { context, memory } = session();
    expect(JSON.parse(await registry.call('summary', { which: 'valid' }, context, memory))).toEqual({ status: 'ok', points: 3 });
    for (const which of ['invalid', 'missing']) {
      const error = (await registry.call('summary', { which }, context, memory).catch((e: unknown) => e)) as ToolwrightError;
      expect(error.code).toBe('INVALID_OUTPUT');
    }
  });
});

describe('MCP', () => {
  const registry = ToolRegistry.build({ tools: TOOLS });

  async function viaInMemory(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const server = createMcpServer(registry);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  async function viaHttp(stateless: boolean, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const handle = await serveHttp(registry, { port: 0, stateless, store: new InMemoryStore() });
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
      await handle.close();
    }
  }

  const TRANSPORTS: Record<string, (name: string, args: Record<string, unknown>) => Promise<CallToolResult>> = {
    'in memory': viaInMemory,
    'Streamable HTTP': (name, args) => viaHttp(false, name, args),
    'stateless HTTP': (name, args) => viaHttp(true, name, args),
  };

  it.each(Object.keys(TRANSPORTS))('over %s the client gets the parts themselves, in order', async (transport) => {
    const result = await TRANSPORTS[transport]('chart', { kind: 'mixed' });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual(MIXED);
  });

  it.each(Object.keys(TRANSPORTS))('over %s an output contract adds structuredContent beside the parts', async (transport) => {
    const result = await TRANSPORTS[transport]('summary', { which: 'valid' });
    expect(result.content).toEqual([{ type: 'image', data: PIXEL, mimeType: 'image/png' }]);
    expect(result.structuredContent).toEqual({ status: 'ok', points: 3 });
  });

  it('a tool that builds a part wrong is an isError result, as any failing tool', async () => {
    const result = await viaInMemory('chart', { kind: 'broken' });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0].text)).toMatchObject({ code: 'TOOL_FAILED' });
  });
});

describe('the agent runner', () => {
  it('shows its model the text form (a tool message carries text only): every part named, none dropped', async () => {
    const seen: ModelRequest[] = [];
    const model = new ScriptedModel([
      (request: ModelRequest) => {
        seen.push(request);
        return { toolCalls: [{ id: 'c1', name: 'chart', arguments: { kind: 'mixed' } }] };
      },
      (request: ModelRequest) => {
        seen.push(request);
        return { text: 'Here it is.' };
      },
    ]);
    const agent = new Agent({ name: 'desk', model, tools: TOOLS, store: new InMemoryStore() });
    const result = await agent.run('Chart please', { sessionId: 's-1', userId: 'u-1' });
    expect(result.output).toBe('Here it is.');
    const toolMessage = seen[1].messages.find((m) => m.role === 'tool');
    expect(JSON.parse(String(toolMessage?.content))).toEqual(DESCRIBED);
  });
});
