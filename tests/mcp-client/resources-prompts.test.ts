/**
 * A remote server's resources, resource templates and prompts, read through the toolset: the same
 * per-identity connections, a gate (`authorize`) and the registry's error types. server-everything
 * over stdio and Streamable HTTP, the same suite on both.
 */
import { AgentContext } from '../../src';
import { McpToolset, type RemoteFeature } from '../../src/mcp-client';
import { SERVER, startEverythingHttp, type HttpServer } from '../support/remote-servers';

let http: HttpServer;
beforeAll(async () => {
  http = await startEverythingHttp();
}, 30_000);
afterAll(() => http?.stop());

const as = (userId: string) => new AgentContext({ sessionId: `s-${userId}`, userId });
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

/** Guests see no prompt and no template: the gate a user would write. */
const authorize = (feature: RemoteFeature, context: AgentContext | undefined) =>
  context?.userId !== 'guest' || (feature.kind === 'resource' && feature.uri!.startsWith('demo://resource/static/'));

const everything = {
  stdio: (gated = false) =>
    McpToolset.stdio({
      name: 'everything',
      command: process.execPath,
      args: [SERVER.everything, 'stdio'],
      ...(gated && { authorize }),
    }),
  http: (gated = false) =>
    McpToolset.http({
      name: 'everything',
      url: http.url,
      headers: (context) => ({ 'x-user': context?.userId ?? 'app' }),
      ...(gated && { authorize }),
    }),
};

describe.each(['stdio', 'http'] as const)('server-everything over %s', (transport) => {
  let toolset: McpToolset;
  beforeAll(() => {
    toolset = everything[transport]();
  });
  afterAll(() => toolset.close());

  it('lists its resources and templates, and reads a fixed resource, a text and a blob one through a template', async () => {
    const resources = await toolset.resources(as('ada'));
    const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'));
    expect(doc).toMatchObject({ name: expect.any(String), mimeType: expect.stringMatching(/^(text|application)\//) });
    const templates = await toolset.resourceTemplates(as('ada'));
    expect(templates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining([TEXT_TEMPLATE, 'demo://resource/dynamic/blob/{resourceId}']),
    );

    const [read] = await toolset.readResource(doc!.uri, as('ada'));
    expect(read).toMatchObject({ uri: doc!.uri, text: expect.any(String) });
    expect((read as { text: string }).text.length).toBeGreaterThan(0);
    const [text] = await toolset.readResource('demo://resource/dynamic/text/7', as('ada'));
    expect(text).toMatchObject({ uri: 'demo://resource/dynamic/text/7', mimeType: 'text/plain', text: expect.stringContaining('7') });
    const [blob] = await toolset.readResource('demo://resource/dynamic/blob/7', as('ada'));
    expect(Buffer.from((blob as { blob: string }).blob, 'base64').toString()).toContain('7');
  });

  it('answers RESOURCE_NOT_FOUND for a URI the server has no resource at', async () => {
    await expect(toolset.readResource('demo://resource/nowhere', as('ada'))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(toolset.readResource('', as('ada'))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('lists its prompts with their arguments and gets one, checking the arguments before sending them', async () => {
    const prompts = await toolset.prompts(as('ada'));
    expect(prompts.find((p) => p.name === 'args-prompt')).toMatchObject({
      description: expect.any(String),
      arguments: [expect.objectContaining({ name: 'city', required: true }), expect.objectContaining({ name: 'state', required: false })],
    });
    const read = await toolset.getPrompt('args-prompt', { city: 'Paris', state: 'Texas' }, as('ada'));
    expect(read.messages).toEqual([{ role: 'user', content: { type: 'text', text: "What's weather in Paris, Texas?" } }]);

    await expect(toolset.getPrompt('args-prompt', {}, as('ada'))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      errors: [expect.objectContaining({ path: 'city' })],
    });
    await expect(toolset.getPrompt('args-prompt', { city: 'Paris', zip: '75001' }, as('ada'))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      errors: [expect.objectContaining({ path: 'zip' })],
    });
    await expect(toolset.getPrompt('args-prompt', { city: 7 } as never, as('ada'))).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(toolset.getPrompt('no-such-prompt', {}, as('ada'))).rejects.toMatchObject({
      code: 'PROMPT_NOT_FOUND',
      message: expect.stringContaining('args-prompt'),
    });
  });
});

describe.each(['stdio', 'http'] as const)('the gate over %s', (transport) => {
  let toolset: McpToolset;
  beforeAll(() => {
    toolset = everything[transport](true);
  });
  afterAll(() => toolset.close());

  it('hides from a caller what authorize refuses; a hidden one reads as missing', async () => {
    expect(await toolset.prompts(as('guest'))).toEqual([]);
    expect(await toolset.resourceTemplates(as('guest'))).toEqual([]);
    expect((await toolset.resources(as('guest'))).length).toBeGreaterThan(0);
    await expect(toolset.getPrompt('args-prompt', { city: 'Paris' }, as('guest'))).rejects.toMatchObject({ code: 'PROMPT_NOT_FOUND' });
    // A URI only a hidden template names is not read for this caller, but is for another.
    await expect(toolset.readResource('demo://resource/dynamic/text/7', as('guest'))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect(await toolset.readResource('demo://resource/dynamic/text/7', as('ada'))).toHaveLength(1);
    expect((await toolset.getPrompt('args-prompt', { city: 'Paris' }, as('ada'))).messages).toHaveLength(1);
  });

  it("uses each caller's own connection", async () => {
    await toolset.resources(as('guest'));
    await toolset.resources(as('ada'));
    // stdio's environment is fixed here (one identity); HTTP headers differ per user (one connection each).
    expect(toolset.connections).toBe(transport === 'http' ? 2 : 1);
  });
});
