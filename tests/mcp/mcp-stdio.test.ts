import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, ROOT, type BuiltCli } from '../cli/build-cli';

/** `toolwright mcp` over stdio: the SDK's client spawns the built CLI as a real process. */
describe('MCP over stdio (SDK client spawning the built CLI)', () => {
  let cli: BuiltCli;
  const clients: Client[] = [];

  beforeAll(() => {
    cli = buildCli();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  async function spawnServer(user: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli.main, 'mcp', '--module', cli.fixture, '--user', user, '--name', 'fixture-stdio'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text);

  it('lists, calls, and reports invalid and unknown calls as isError results', async () => {
    const client = await spawnServer('u-1');
    expect(client.getServerVersion()?.name).toBe('fixture-stdio');

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'note', 'explode']);
    expect(tools[0].annotations).toEqual({ title: 'Add numbers', readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(tools[2].annotations).toBeUndefined();

    const valid = await call(client, 'add', { a: 20, b: 22 });
    expect(valid.isError).toBeFalsy();
    expect(valid.structuredContent).toEqual({ sum: 42 });

    const invalid = await call(client, 'add', { a: 1 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatchObject({ code: 'INVALID_ARGUMENTS', errors: [expect.objectContaining({ path: 'b' })] });

    const unknown = await call(client, 'nope', {});
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('keeps session state per server process, and serves two clients at once', async () => {
    const [one, two] = await Promise.all([spawnServer('u-one'), spawnServer('u-two')]);
    const [a, b] = await Promise.all([call(one, 'note', { text: 'first' }), call(two, 'note', { text: 'other' })]);
    expect(textOf(a)).toMatchObject({ notes: ['first'], userId: 'u-one' });
    expect(textOf(b)).toMatchObject({ notes: ['other'], userId: 'u-two' });
    expect(textOf(await call(one, 'note', { text: 'second' }))).toMatchObject({ notes: ['first', 'second'] });

    const sums = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 ? one : two, 'add', { a: i, b: i })));
    expect(sums.map((r) => r.structuredContent)).toEqual(Array.from({ length: 10 }, (_, i) => ({ sum: 2 * i })));
  });
});
