/**
 * toolwright/nestjs in real Nest apps on Express and on Fastify: tools discovered among the
 * providers and resolved by Nest's injector (singletons, an @Inject token, a request-scoped
 * service), the identity a guard set reaching `authorize` and approvals on the MCP endpoint
 * (official MCP SDK client) and the useChat endpoint (the AI SDK's chat client), shutdown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolRegistry } from 'toolwright';
import { TOOLWRIGHT_STORE } from 'toolwright/nestjs';
import { ChatClient } from '../../samples/chat-desk/chat-client';
import { appModule, refunds, RequestTrace } from './desk-app';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'tw-nest-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function mcpClient(url: string, user: string, trace?: string): Promise<Client> {
  const headers: Record<string, string> = { authorization: `Bearer ${user}` };
  if (trace) headers['x-trace'] = trace;
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: { type: string; text: string }[] }).content[0] ?? { text: '' }).text;
}

describe.each([
  ['express', () => new ExpressAdapter()],
  ['fastify', () => new FastifyAdapter()],
])('a Nest app on %s', (platform, adapter) => {
  let app: INestApplication;
  let base: string;

  beforeEach(async () => {
    refunds.length = 0;
    app = await NestFactory.create(appModule({ sqlite: { path: join(dir, `${platform}-${Date.now()}.db`) } }), adapter(), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterEach(async () => {
    await app.close();
  });

  it('discovers every @Tool provider into one registry', () => {
    const registry = app.get(ToolRegistry);
    expect([...registry.names()].sort()).toEqual(['lookup_order', 'process_refund', 'trace']);
  });

  it('MCP: tools get Nest singletons and the @Inject token; the guard user is the caller', async () => {
    const client = await mcpClient(`${base}/mcp`, 'alice');
    const result = await client.callTool({ name: 'lookup_order', arguments: { order_id: 'A-1' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ order_id: 'A-1', status: 'shipped' });
    expect(app.get('AUDIT_LOG')).toEqual(['alice looked up A-1']);
    await client.close();
  });

  it('MCP: a request-scoped service is the one of the request that made the call', async () => {
    const before = RequestTrace.built;
    const first = await mcpClient(`${base}/mcp`, 'alice', 'trace-1');
    const second = await mcpClient(`${base}/mcp`, 'alice', 'trace-2');
    expect(JSON.parse(textOf(await first.callTool({ name: 'trace', arguments: {} })))).toEqual({ trace: 'trace-1' });
    expect(JSON.parse(textOf(await second.callTool({ name: 'trace', arguments: {} })))).toEqual({ trace: 'trace-2' });
    expect(RequestTrace.built - before).toBe(2);
    await Promise.all([first.close(), second.close()]);
  });

  it('MCP: authorize sees the guard user (carol is not offered the refund); no user is refused by the guard', async () => {
    const carol = await mcpClient(`${base}/mcp`, 'carol');
    expect((await carol.listTools()).tools.map((t) => t.name)).not.toContain('process_refund');
    const denied = await carol.callTool({ name: 'process_refund', arguments: { order_id: 'A-1' } });
    expect(denied.isError).toBe(true);
    expect(refunds).toEqual([]);
    await carol.close();
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('chat: the approval round-trips for the guard user and the refund runs once', async () => {
    const chat = new ChatClient(`${base}/api/chat`, { id: `chat-${platform}`, headers: { authorization: 'Bearer alice' } });
    await chat.sendMessage({ text: 'Refund A-1 please' });
    expect(chat.error).toBeUndefined();
    expect(chat.pendingApprovals).toEqual([expect.objectContaining({ type: 'tool-process_refund', input: { order_id: 'A-1' } })]);
    expect(refunds).toEqual([]);
    await chat.decideAll(true);
    expect(chat.error).toBeUndefined();
    expect(refunds).toEqual(['A-1 for alice']);
  });

  it('chat: carol (refused by authorize) cannot get the refund run', async () => {
    const chat = new ChatClient(`${base}/api/chat`, { id: `chat-carol-${platform}`, headers: { authorization: 'Bearer carol' } });
    await chat.sendMessage({ text: 'Refund A-1 please' });
    expect(chat.pendingApprovals).toEqual([]);
    expect(refunds).toEqual([]);
  });

  it('closing the app closes the store', async () => {
    const store = app.get<{ close(): Promise<void> }>(TOOLWRIGHT_STORE);
    const close = jest.spyOn(store, 'close');
    await app.close();
    expect(close).toHaveBeenCalledTimes(1);
    app = await NestFactory.create(appModule({ sqlite: { path: ':memory:' } }), adapter(), { logger: false }); // for afterEach
  });
});
