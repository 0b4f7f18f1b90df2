/**
 * SEP-2243 on MCP 2026-07-28: a tool argument declared `@Param({ mcpHeader })` is listed with
 * `x-mcp-header`, and a tools/call whose `Mcp-Param-*` header is missing, malformed or says
 * something else than the body is refused (400, -32020) before the tool runs.
 */
import 'reflect-metadata';
import { IsInt, IsString } from 'class-validator';
import { Param, Tool, ToolDefinitionError, ToolRegistry, type ToolInterface } from '../../src';
import { serveHttp, type HttpHandle } from '../../src/mcp';

class RouteInput {
  @Param({ mcpHeader: 'Region' }) @IsString() region!: string;
  @Param({ mcpHeader: 'Shard' }) @IsInt() shard!: number;
  @Param() @IsString() note!: string;
}

const ran: string[] = [];

@Tool({ name: 'route', description: 'Routed by region and shard', input: RouteInput })
class RouteTool implements ToolInterface<RouteInput> {
  execute({ region, shard }: RouteInput): object {
    ran.push(`${region}/${shard}`);
    return { region, shard };
  }
}

class NestedInput {
  @Param({ mcpHeader: 'Tags', type: () => [String] }) @IsString({ each: true }) tags!: string[];
}
@Tool({ name: 'bad', description: 'An array cannot be a header', input: NestedInput })
class BadHeaderTool implements ToolInterface<NestedInput> {
  execute(): object {
    return {};
  }
}

let server: HttpHandle;
beforeAll(async () => {
  server = await serveHttp(ToolRegistry.build({ tools: [RouteTool] }), { onError: () => undefined });
});
afterAll(() => server.close());

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function post(method: string, params: object, headers: Record<string, string> = {}) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } }),
  });
  return { status: res.status, body: (await res.json()) as { result?: any; error?: { code: number; message: string; data?: any } } };
}

const call = (args: object, headers: Record<string, string>) =>
  post('tools/call', { name: 'route', arguments: args }, { 'mcp-name': 'route', ...headers });

it('lists the mirrored arguments with x-mcp-header', async () => {
  const { body } = await post('tools/list', {});
  const properties = body.result.tools[0].inputSchema.properties;
  expect(properties.region['x-mcp-header']).toBe('Region');
  expect(properties.shard['x-mcp-header']).toBe('Shard');
  expect(properties.note['x-mcp-header']).toBeUndefined();
});

it('runs a call whose headers say what the body says (literal, Base64, padded with spaces)', async () => {
  ran.length = 0;
  const ok = await call({ region: 'eu-west', shard: 3, note: 'x' }, { 'mcp-param-region': 'eu-west', 'Mcp-Param-Shard': ' 3 ' });
  expect(ok.status).toBe(200);
  const encoded = `=?base64?${Buffer.from('zürich').toString('base64')}?=`;
  const utf8 = await call({ region: 'zürich', shard: 0, note: 'x' }, { 'mcp-param-region': encoded, 'mcp-param-shard': '0' });
  expect(utf8.status).toBe(200);
  expect(ran).toEqual(['eu-west/3', 'zürich/0']);
});

it('refuses a missing, malformed or disagreeing header with 400 and -32020, and the tool does not run', async () => {
  ran.length = 0;
  const cases: [object, Record<string, string>, RegExp][] = [
    [
      { region: 'eu', shard: 1, note: 'x' },
      { 'mcp-param-shard': '1' },
      /arguments\.region is set but the Mcp-Param-Region header is missing/,
    ],
    [
      { region: 'eu', shard: 1, note: 'x' },
      { 'mcp-param-region': 'us', 'mcp-param-shard': '1' },
      /arguments\.region is "eu" but the Mcp-Param-Region header says "us"/,
    ],
    [{ region: 'eu', shard: 1, note: 'x' }, { 'mcp-param-region': 'eu', 'mcp-param-shard': '2' }, /Mcp-Param-Shard/],
    [{ region: 'Hello', shard: 1, note: 'x' }, { 'mcp-param-region': '=?base64?SGVsbG8?=', 'mcp-param-shard': '1' }, /invalid Base64/],
    [{ region: 'Hello', shard: 1, note: 'x' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=', 'mcp-param-shard': '1' }, /invalid Base64/],
    [{ shard: 1, note: 'x' }, { 'mcp-param-region': 'eu', 'mcp-param-shard': '1' }, /arguments\.region is null/],
  ];
  for (const [args, headers, message] of cases) {
    const refused = await call(args, headers);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32020, data: { mismatch: expect.any(Object) } });
    expect(refused.body.error!.message).toMatch(message);
  }
  expect(ran).toEqual([]);
});

it('refuses to register a header on a parameter that is not a string, number or boolean', () => {
  expect(() => ToolRegistry.build({ tools: [BadHeaderTool] })).toThrow(ToolDefinitionError);
});
