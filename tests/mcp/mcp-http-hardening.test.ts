import { request as httpRequest } from 'node:http';
import type { SqliteConnection } from '../../src/stores/sqlite/driver';
import { connect as netConnect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryStore, SqliteStore, type SessionStore } from '../../src';
import { McpServeConfigError, serveHttp, tokenAuth, type HttpHandle, type HttpServeOptions } from '../../src/mcp';
import { registry } from '../fixtures/toolwright.config';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const handles: HttpHandle[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.allSettled(handles.splice(0).map((h) => h.close()));
});

async function serve(options: HttpServeOptions = {}): Promise<HttpHandle> {
  const handle = await serveHttp(registry, { onError: () => undefined, ...options });
  handles.push(handle);
  return handle;
}

async function connect(url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
  });
  const client = new Client({ name: 'hardening', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const note = async (client: Client, text: string) =>
  JSON.parse(
    ((await client.callTool({ name: 'note', arguments: { text } })) as CallToolResult & { content: { text: string }[] }).content[0].text,
  );

/** Raw HTTP with headers fetch will not let us set (Host). */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends only the head of a request that declares a huge body, and returns the status line the server answers with. */
function declareHugeBody(handle: HttpHandle, extraHeaders = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(handle.port, '127.0.0.1', () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${handle.port}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: 1073741824\r\n${extraHeaders}\r\n`,
      );
    });
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      if (text.includes('\r\n')) {
        resolve(text.split('\r\n')[0]);
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

/** Waits for a condition driven by the server's own timers (no timing is asserted). */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition never held');
}

const residue = (store: InMemoryStore) => {
  const maps = store as unknown as { sessions: Map<string, unknown>; memories: Map<string, unknown> };
  return maps.sessions.size + maps.memories.size;
};

describe('MCP over HTTP: Origin and Host', () => {
  it('answers a foreign Origin with 403 and accepts its own loopback origin and configured ones', async () => {
    const handle = await serve({});
    const foreign = await fetch(handle.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'http://evil.example' },
      body: JSON.stringify(INIT),
    });
    expect(foreign.status).toBe(403);
    const own = await fetch(handle.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: `http://localhost:${handle.port}` },
      body: JSON.stringify(INIT),
    });
    expect(own.status).toBe(200);

    const configured = await serve({ allowedOrigins: ['https://app.example.com'] });
    const allowed = await fetch(configured.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'https://app.example.com' },
      body: JSON.stringify(INIT),
    });
    expect(allowed.status).toBe(200);
    const other = await fetch(configured.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: `http://localhost:${configured.port}` },
      body: JSON.stringify(INIT),
    });
    expect(other.status).toBe(403);
  });

  it('answers a foreign Host with 403 on every request, before auth', async () => {
    const handle = await serve({ auth: tokenAuth({ secret: { userId: 'u' } }) });
    const rebound = await rawPost(
      handle.url,
      { ...MCP_HEADERS, host: 'attacker.example:80', authorization: 'Bearer secret' },
      JSON.stringify(INIT),
    );
    expect(rebound.status).toBe(403);
    const ok = await rawPost(handle.url, { ...MCP_HEADERS, authorization: 'Bearer secret' }, JSON.stringify(INIT));
    expect(ok.status).toBe(200);
  });
});

describe('MCP over HTTP: bind safety and tokens', () => {
  it('refuses a non-loopback address without auth unless told so, and then wants Host and Origin allow-lists', async () => {
    await expect(serveHttp(registry, { host: '0.0.0.0' })).rejects.toThrow(McpServeConfigError);
    await expect(serveHttp(registry, { host: '0.0.0.0', allowUnauthenticated: true })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    const open = await serve({
      host: '0.0.0.0',
      allowUnauthenticated: true,
      allowedHosts: ['mcp.internal:1'],
      allowedOrigins: ['https://app.internal'],
    });
    const url = `http://127.0.0.1:${open.port}/mcp`;
    expect((await rawPost(url, MCP_HEADERS, JSON.stringify(INIT))).status).toBe(403);
    expect((await rawPost(url, { ...MCP_HEADERS, host: 'mcp.internal:1' }, JSON.stringify(INIT))).status).toBe(200);
    // With a token, a non-loopback bind is fine.
    await serve({ host: '0.0.0.0', auth: tokenAuth({ t: { userId: 'u' } }) });
    await expect(serveHttp(registry, { maxSessions: 0 })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });

  it('tokenAuth accepts only the exact token (compared in constant time)', async () => {
    const auth = tokenAuth({ 'tok-alice': { userId: 'alice' }, 'tok-bob': { userId: 'bob', tenantId: 't' } });
    const ask = (token?: string) => auth({ token, request: undefined as never });
    expect(await ask('tok-alice')).toEqual({ userId: 'alice' });
    expect(await ask('tok-bob')).toEqual({ userId: 'bob', tenantId: 't' });
    for (const wrong of [undefined, '', 'tok-alic', 'tok-alicee', 'TOK-ALICE', 'tok-alice ']) expect(await ask(wrong)).toBeUndefined();
  });
});

describe('MCP over HTTP: request size', () => {
  it('answers a declared Content-Length over maxBodyBytes with 413 without reading the body, with or without a session', async () => {
    const handle = await serve({ maxBodyBytes: 4096 });
    expect(await declareHugeBody(handle)).toMatch(/^HTTP\/1\.1 413/);
    const { transport } = await connect(handle.url);
    expect(await declareHugeBody(handle, `mcp-session-id: ${transport.sessionId}\r\n`)).toMatch(/^HTTP\/1\.1 413/);
  });

  it('answers a body that grows past maxBodyBytes (no Content-Length) with 413, also inside a session', async () => {
    const handle = await serve({ maxBodyBytes: 4096 });
    const { client, transport } = await connect(handle.url);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'note', arguments: { text: 'x'.repeat(10_000) } },
    });
    const response = await fetch(handle.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    });
    expect(response.status).toBe(413);
    // The session still serves ordinary calls.
    expect(await note(client, 'small')).toMatchObject({ notes: ['small'] });
  });
});

describe('MCP over HTTP: sessions are bounded and leave nothing behind', () => {
  it('without auth, each MCP session has its own memory (one client never reads another’s facts)', async () => {
    const store = new InMemoryStore();
    const handle = await serve({ store });
    const [a, b] = [await connect(handle.url), await connect(handle.url)];
    expect(await note(a.client, 'a secret')).toMatchObject({ facts: 1 });
    expect(await note(a.client, 'another')).toMatchObject({ facts: 2 });
    expect(await note(b.client, 'b')).toMatchObject({ facts: 1, userId: 'anonymous' });
  });

  it.each([
    ['in-memory', () => new InMemoryStore()],
    ['sqlite', () => new SqliteStore({ path: ':memory:' })],
  ])('a session the client ends (DELETE) leaves nothing in the %s store', async (_name, makeStore) => {
    const store: SessionStore = makeStore();
    const handle = await serve({ store });
    const { client, transport } = await connect(handle.url);
    await note(client, 'remember me');
    const sessionId = transport.sessionId!;
    expect(await store.loadSession({ sessionId })).toBeDefined();
    expect(await store.loadMemory({ agentName: 'mcp', userId: `mcp-session:${sessionId}` })).toBeDefined();
    await transport.terminateSession();
    await eventually(() => handle.sessionCount() === 0);
    await eventually(async () => (await store.loadSession({ sessionId })) === undefined);
    expect(await store.loadMemory({ agentName: 'mcp', userId: `mcp-session:${sessionId}` })).toBeUndefined();
    if (store instanceof InMemoryStore) expect(residue(store)).toBe(0);
    else {
      const db = (store as unknown as { db(): SqliteConnection }).db();
      for (const table of ['sessions', 'session_state', 'session_messages', 'memories', 'memory_entries']) {
        expect([table, db.prepare(`SELECT count(*) FROM ${table}`, 'pluck').get()]).toEqual([table, 0]);
      }
    }
    await store.close();
  });

  it('closes a session idle for sessionIdleTimeoutMs and removes what it stored', async () => {
    const store = new InMemoryStore();
    const handle = await serve({ store, sessionIdleTimeoutMs: 150 });
    const { client } = await connect(handle.url);
    await note(client, 'short-lived');
    expect(residue(store)).toBe(2);
    await eventually(() => handle.sessionCount() === 0 && residue(store) === 0);
    await expect(client.callTool({ name: 'note', arguments: { text: 'again' } })).rejects.toThrow(/404|Session not found/);
  });

  it('keeps at most maxSessions: the least recently used idle session is closed and removed', async () => {
    const store = new InMemoryStore();
    const handle = await serve({ store, maxSessions: 2 });
    const first = await connect(handle.url);
    const second = await connect(handle.url);
    await note(first.client, 'one');
    await note(second.client, 'two');
    await note(first.client, 'one again'); // first is now the most recently used
    const third = await connect(handle.url);
    await note(third.client, 'three');
    expect(handle.sessionCount()).toBe(2);
    expect(await store.loadSession({ sessionId: second.transport.sessionId! })).toBeUndefined();
    await expect(second.client.callTool({ name: 'note', arguments: { text: 'x' } })).rejects.toThrow(/404|Session not found/);
    expect(await note(first.client, 'still here')).toMatchObject({ notes: ['one', 'one again', 'still here'] });
  });

  it('removes what every open session stored when the server closes', async () => {
    const store = new InMemoryStore();
    const handle = await serveHttp(registry, { store });
    const { client } = await connect(handle.url);
    await note(client, 'x');
    await handle.close();
    expect(residue(store)).toBe(0);
  });
});

describe('MCP over HTTP: stateless sessions keep their owner', () => {
  it('refuses another identity the session id, from any process', async () => {
    const store = new InMemoryStore();
    const auth = tokenAuth({ 'tok-alice': { userId: 'alice', tenantId: 't1' }, 'tok-bob': { userId: 'bob', tenantId: 't1' } });
    const [one, two] = [await serve({ store, auth, stateless: true }), await serve({ store, auth, stateless: true })];
    const { client, transport } = await connect(one.url, 'tok-alice');
    expect(await note(client, 'mine')).toMatchObject({ notes: ['mine'], userId: 'alice' });
    for (const handle of [one, two]) {
      const response = await fetch(handle.url, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          authorization: 'Bearer tok-bob',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'note', arguments: { text: 'theirs' } } }),
      });
      expect(response.status).toBe(404);
    }
    expect((await store.loadSession({ sessionId: transport.sessionId!, tenantId: 't1' }))!.state.notes).toEqual(['mine']);
  });
});
