/**
 * A hostile MCP client: raw JSON-RPC over Streamable HTTP (stateful and stateless) and over stdio
 * (a real server process), plus the official SDK client. Every message gets a well-formed JSON-RPC
 * answer (an error with a clear code, or a tool error result), nothing raw reaches `onError`, the
 * session's stored state survives, and the server keeps serving.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryStore, ToolInputError } from '../../src';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import { hostileRegistry, limitedRegistry } from '../support/hostile-tools';

const ROOT = join(__dirname, '..', '..');
const WORKER = join(ROOT, 'tests/support/hostile-stdio-worker.ts');

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
};
const rpc = (id: unknown, method: string, params?: object) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const call = (id: unknown, name: string, args: unknown, meta?: object) =>
  rpc(id, 'tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });

interface Expect {
  /** A JSON-RPC error with this code, or a tool result (`isError` with this toolwright code, or a success). */
  error?: number;
  tool?: string;
  ok?: true;
  /** A notification or a response: nothing to answer. */
  none?: true;
}

/** Hostile messages on every transport: [label, the raw text, what must come back]. */
const HOSTILE: Array<[string, string, Expect]> = [
  ['not JSON', '{"jsonrpc":"2.0",', { error: -32700 }],
  ['an empty batch', '[]', { error: -32600 }],
  ['a number', '5', { error: -32600 }],
  ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 101, method: 'ping' }), { error: -32600 }],
  ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }), { error: -32600 }],
  ['an unknown method', rpc(102, 'tools/destroy'), { error: -32601 }],
  ['arguments an array', call(103, 'grant', [1]), { error: -32602 }],
  ['arguments a string', call(104, 'grant', '{"user":"u"}'), { error: -32602 }],
  ['arguments null', call(105, 'grant', null), { error: -32602 }],
  ['no params', rpc(106, 'tools/call'), { error: -32602 }],
  ['a tool name that is a number', rpc(107, 'tools/call', { name: 5 }), { error: -32602 }],
  ['tools/list with a number cursor', rpc(122, 'tools/list', { cursor: 5 }), { error: -32602 }],
  ['an object progress token', call(108, 'grant', { user: 'u' }, { progressToken: { a: 1 } }), { error: -32600 }],
  ['a boolean progress token', call(109, 'grant', { user: 'u' }, { progressToken: true }), { error: -32600 }],
  ['an unknown tool', call(110, 'nope', {}), { tool: 'TOOL_NOT_FOUND' }],
  ['a tool named __proto__', call(111, '__proto__', {}), { tool: 'TOOL_NOT_FOUND' }],
  ['a tool named constructor', call(112, 'constructor', {}), { tool: 'TOOL_NOT_FOUND' }],
  ['a tool named toString', call(113, 'toString', {}), { tool: 'TOOL_NOT_FOUND' }],
  [
    'a __proto__ key in the arguments',
    '{"jsonrpc":"2.0","id":114,"method":"tools/call","params":{"name":"grant","arguments":{"user":"u","__proto__":{"admin":true}}}}',
    { tool: 'INVALID_ARGUMENTS' },
  ],
  [
    'a nested __proto__ key',
    '{"jsonrpc":"2.0","id":115,"method":"tools/call","params":{"name":"grant","arguments":{"user":"u","x":{"__proto__":{"y":1}}}}}',
    { tool: 'INVALID_ARGUMENTS' },
  ],
  ['constructor.prototype', call(116, 'grant', { user: 'u', constructor: { prototype: { admin: true } } }), { tool: 'INVALID_ARGUMENTS' }],
  [
    '5,000 nested arrays',
    `{"jsonrpc":"2.0","id":117,"method":"tools/call","params":{"name":"grant","arguments":{"user":${'['.repeat(5000)}${']'.repeat(5000)}}}}`,
    { tool: 'INVALID_ARGUMENTS' },
  ],
  [
    '3,000 nested objects',
    `{"jsonrpc":"2.0","id":118,"method":"tools/call","params":{"name":"grant","arguments":{"user":"u","x":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}}}`,
    { tool: 'INVALID_ARGUMENTS' },
  ],
  [
    'a wide object',
    call(119, 'grant', Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))),
    { tool: 'INVALID_ARGUMENTS' },
  ],
  ['a long string', call(120, 'grant', { user: 'x'.repeat(200_000) }), { tool: 'INVALID_ARGUMENTS' }],
  [
    'a cancel for an unknown id',
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }),
    { none: true },
  ],
  [
    'a cancel with an object id',
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { a: 1 } } }),
    { none: true },
  ],
  ['an unknown notification', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever' }), { none: true }],
  ['a response to nothing', JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} }), { none: true }],
  ['a resource uri that is a number', rpc(130, 'resources/read', { uri: 5 }), { error: -32602 }],
  ['an unknown resource', rpc(131, 'resources/read', { uri: 'notes://nowhere' }), { error: -32002 }],
  ['a template variable class-validator refuses', rpc(132, 'resources/read', { uri: 'notes://mallory/n1' }), { error: -32602 }],
  ['a 200,000-character resource uri', rpc(133, 'resources/read', { uri: `notes://${'x'.repeat(200_000)}` }), { error: -32002 }],
  [
    'a __proto__ key in prompt arguments',
    '{"jsonrpc":"2.0","id":134,"method":"prompts/get","params":{"name":"summarize","arguments":{"topic":"t","__proto__":"x"}}}',
    { error: -32602 },
  ],
  [
    'a constructor key in prompt arguments',
    rpc(135, 'prompts/get', { name: 'summarize', arguments: { topic: 't', constructor: 'x' } }),
    { error: -32602 },
  ],
  ['prompt arguments an array', rpc(136, 'prompts/get', { name: 'summarize', arguments: ['t'] }), { error: -32602 }],
  ['a prompt named __proto__', rpc(137, 'prompts/get', { name: '__proto__' }), { error: -32602 }],
  [
    'a prompt argument that is an object',
    rpc(138, 'prompts/get', { name: 'summarize', arguments: { topic: { a: 1 } } }),
    { error: -32602 },
  ],
  [
    'a completion ref of no known type',
    rpc(139, 'completion/complete', { ref: { type: 'ref/tool', name: 'grant' }, argument: { name: 'a', value: '' } }),
    { error: -32602 },
  ],
  ['a valid read', rpc(140, 'resources/read', { uri: 'notes://bob/n5' }), { ok: true }],
  ['a valid prompt', rpc(141, 'prompts/get', { name: 'summarize', arguments: { topic: 'builds' } }), { ok: true }],
  ['a valid call', call(121, 'grant', { user: 'u' }), { ok: true }],
];

/** The per-request envelope every 2026-07-28 request carries in `_meta`. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
};
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28' };
const TASKS_ENVELOPE = {
  ...ENVELOPE,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

/**
 * A HOSTILE row as a 2026-07-28 request: the envelope spliced into its text (so a `__proto__` key
 * stays as sent), with the Mcp-Method and Mcp-Name headers a client sends. Undefined for a row
 * that is not a single request or notification, or names something too long for a header.
 */
function modernRow([label, body, expected]: [string, string, Expect]): [string, string, Record<string, string>, Expect] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { method?: unknown }).method !== 'string')
    return undefined;
  const message = parsed as { method: string; params?: { name?: unknown; uri?: unknown; _meta?: object } };
  const name = message.params?.name ?? message.params?.uri;
  if (typeof name === 'string' && name.length > 1000) return undefined;
  const meta = JSON.stringify({ ...ENVELOPE, ...message.params?._meta });
  const text = body.includes('"params":{')
    ? body.replace('"params":{', `"params":{"_meta":${meta},`).replace(/,"_meta":\{[^{}]*\}\}/, '}')
    : body.replace(/\}$/, `,"params":{"_meta":${meta}}}`);
  const headers: Record<string, string> = { ...MODERN_HEADERS, 'mcp-method': message.method };
  if (typeof name === 'string') headers['mcp-name'] = name;
  // 2026-07-28 answers an unknown method with HTTP 404 and -32601, the code it had.
  return [label, text, headers, expected];
}

/** 2026-07-28's own hostile requests: envelopes and headers that lie, removed methods, prototype keys. */
const modern = (id: number, method: string, params: object = {}, meta: object = ENVELOPE) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
const HOSTILE_2026: Array<[string, string, Record<string, string>, Expect & { status: number }]> = [
  ['no _meta', rpc(201, 'tools/list', {}), { ...MODERN_HEADERS, 'mcp-method': 'tools/list' }, { error: -32602, status: 400 }],
  [
    'no client capabilities',
    modern(202, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list' },
    { error: -32602, status: 400 },
  ],
  [
    'client capabilities an array',
    modern(203, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': [] }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list' },
    { error: -32602, status: 400 },
  ],
  [
    'a protocol version that is a number',
    modern(204, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': 2026 }),
    { 'mcp-method': 'tools/list' },
    { error: -32602, status: 400 },
  ],
  [
    'client capabilities only under __proto__',
    '{"jsonrpc":"2.0","id":205,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","__proto__":{"io.modelcontextprotocol/clientCapabilities":{}}}}}',
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list' },
    { error: -32602, status: 400 },
  ],
  [
    'a log level that is not one',
    modern(206, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list' },
    { error: -32602, status: 400 },
  ],
  [
    'a version the server does not speak',
    modern(207, 'tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
    { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    { error: -32022, status: 400 },
  ],
  [
    'a version header that contradicts the body',
    modern(208, 'tools/list'),
    { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
    { error: -32020, status: 400 },
  ],
  ['no Mcp-Method header', modern(209, 'tools/list'), MODERN_HEADERS, { error: -32020, status: 400 }],
  [
    'an Mcp-Method that lies',
    modern(210, 'tools/call', { name: 'grant', arguments: { user: 'u' } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list', 'mcp-name': 'grant' },
    { error: -32020, status: 400 },
  ],
  [
    'no Mcp-Name header',
    modern(211, 'tools/call', { name: 'grant', arguments: { user: 'u' } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/call' },
    { error: -32020, status: 400 },
  ],
  [
    'an Mcp-Name that lies',
    modern(212, 'tools/call', { name: 'grant', arguments: { user: 'u' } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'note' },
    { error: -32020, status: 400 },
  ],
  [
    'an Mcp-Name with broken Base64',
    modern(213, 'tools/call', { name: 'grant', arguments: { user: 'u' } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?@@@?=' },
    { error: -32020, status: 400 },
  ],
  [
    'an initialize with a 2026 header',
    JSON.stringify(INIT),
    { ...MODERN_HEADERS, 'mcp-method': 'initialize' },
    { error: -32020, status: 400 },
  ],
  [
    'initialize (removed)',
    modern(214, 'initialize', INIT.params),
    { ...MODERN_HEADERS, 'mcp-method': 'initialize' },
    { error: -32601, status: 404 },
  ],
  ['ping (removed)', modern(215, 'ping'), { ...MODERN_HEADERS, 'mcp-method': 'ping' }, { error: -32601, status: 404 }],
  [
    'logging/setLevel (removed)',
    modern(216, 'logging/setLevel', { level: 'debug' }),
    { ...MODERN_HEADERS, 'mcp-method': 'logging/setLevel' },
    { error: -32601, status: 404 },
  ],
  ['a method named __proto__', modern(217, '__proto__'), { ...MODERN_HEADERS, 'mcp-method': '__proto__' }, { error: -32601, status: 404 }],
  [
    'a method named constructor',
    modern(218, 'constructor'),
    { ...MODERN_HEADERS, 'mcp-method': 'constructor' },
    { error: -32601, status: 404 },
  ],
  [
    'a batch holding a 2026 request',
    `[${modern(219, 'tools/list')}]`,
    { ...MODERN_HEADERS, 'mcp-method': 'tools/list' },
    { error: -32600, status: 400 },
  ],
  ['server/discover', modern(220, 'server/discover'), { ...MODERN_HEADERS, 'mcp-method': 'server/discover' }, { ok: true, status: 200 }],
  [
    'an Mcp-Name in Base64',
    modern(221, 'tools/call', { name: 'grant', arguments: { user: 'u' } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('grant').toString('base64')}?=` },
    { ok: true, status: 200 },
  ],
  // The tasks extension (`slow` may run as a task): its methods refuse what they cannot take, by the revision's codes.
  [
    'tasks/get without the tasks extension declared',
    modern(260, 'tasks/get', { taskId: 'x' }),
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/get', 'mcp-name': 'x' },
    { error: -32021, status: 400 },
  ],
  [
    'tasks/get with an object taskId',
    modern(261, 'tasks/get', { taskId: { a: 1 } }, TASKS_ENVELOPE),
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/get' },
    { error: -32602, status: 200 },
  ],
  [
    'tasks/cancel of a taskId that is a path',
    modern(262, 'tasks/cancel', { taskId: '../../etc/passwd' }, TASKS_ENVELOPE),
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/cancel', 'mcp-name': '../../etc/passwd' },
    { error: -32602, status: 200 },
  ],
  [
    'tasks/update with __proto__ answers for a task never minted',
    `{"jsonrpc":"2.0","id":263,"method":"tasks/update","params":{"taskId":"00000000-0000-4000-8000-000000000000","inputResponses":{"__proto__":{"action":"accept"}},"_meta":${JSON.stringify(TASKS_ENVELOPE)}}}`,
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/update', 'mcp-name': '00000000-0000-4000-8000-000000000000' },
    { error: -32602, status: 200 },
  ],
  [
    'tasks/update with inputResponses an array',
    modern(264, 'tasks/update', { taskId: 'x', inputResponses: [] }, TASKS_ENVELOPE),
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/update', 'mcp-name': 'x' },
    { error: -32602, status: 200 },
  ],
  [
    'tasks/list (gone)',
    modern(265, 'tasks/list', {}, TASKS_ENVELOPE),
    { ...MODERN_HEADERS, 'mcp-method': 'tasks/list' },
    { error: -32601, status: 404 },
  ],
  [
    'a task tool with a task hint from a client without the extension (a plain call)',
    modern(266, 'tools/call', { name: 'slow', arguments: { ms: 1 }, task: { ttl: 5 } }),
    { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'slow' },
    { ok: true, status: 200 },
  ],
];

/** Checks one JSON-RPC answer against what was expected; returns a description of a mismatch. */
function judge(label: string, expected: Expect, answers: Array<Record<string, unknown>>): string | undefined {
  if (expected.none) return answers.length ? `${label}: answered ${JSON.stringify(answers)}` : undefined;
  if (answers.length !== 1) return `${label}: ${answers.length} answers ${JSON.stringify(answers).slice(0, 300)}`;
  const [answer] = answers;
  if (answer.jsonrpc !== '2.0') return `${label}: not JSON-RPC 2.0: ${JSON.stringify(answer).slice(0, 300)}`;
  const error = answer.error as { code: number; message: string } | undefined;
  if (expected.error !== undefined) {
    if (error?.code !== expected.error || typeof error.message !== 'string' || !error.message)
      return `${label}: wanted error ${expected.error}, got ${JSON.stringify(answer).slice(0, 300)}`;
    return undefined;
  }
  const result = answer.result as CallToolResult | undefined;
  if (!result) return `${label}: wanted a tool result, got ${JSON.stringify(answer).slice(0, 300)}`;
  // A read, a prompt or a discovery: its own result, no tool content.
  if (expected.ok && !Array.isArray(result.content))
    return 'contents' in result || 'messages' in result || 'supportedVersions' in result
      ? undefined
      : `${label}: got ${JSON.stringify(result).slice(0, 300)}`;
  const text = (result.content[0] as { text: string }).text;
  if (expected.ok) return result.isError ? `${label}: failed ${text}` : undefined;
  const body = JSON.parse(text) as { code?: string };
  return result.isError && body.code === expected.tool ? undefined : `${label}: wanted ${expected.tool}, got ${text.slice(0, 300)}`;
}

/** JSON-RPC messages in an HTTP answer: a JSON body, or the `data:` lines of an SSE stream. */
function messagesOf(contentType: string | null, text: string): Array<Record<string, unknown>> {
  if (!text) return [];
  if (contentType?.includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  }
  const value = JSON.parse(text) as Record<string, unknown> | Array<Record<string, unknown>>;
  return Array.isArray(value) ? value : [value];
}

describe.each(['stateful', 'stateless'] as const)('a hostile client over Streamable HTTP (%s)', (mode) => {
  let server: HttpHandle;
  const reported: unknown[] = [];
  const store = new InMemoryStore();

  beforeAll(async () => {
    server = await serveHttp(hostileRegistry, { store, stateless: mode === 'stateless', onError: (e) => reported.push(e) });
  });
  afterAll(() => server.close());

  const post = async (body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body,
    });
    const text = await res.text();
    return { status: res.status, session: res.headers.get('mcp-session-id'), messages: messagesOf(res.headers.get('content-type'), text) };
  };

  async function open(): Promise<Record<string, string>> {
    const init = await post(JSON.stringify(INIT));
    const headers = { 'mcp-session-id': init.session! };
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
    return headers;
  }

  it('answers every hostile message with a well-formed JSON-RPC error or a tool error, and keeps the session', async () => {
    const session = await open();
    const noted = await post(call(1, 'note', { text: 'before' }), session);
    expect(judge('note', { ok: true }, noted.messages)).toBeUndefined();

    const wrong: string[] = [];
    for (const [label, body, expected] of HOSTILE) {
      const { status, messages } = await post(body, session);
      const mismatch = judge(label, expected, messages);
      if (mismatch) wrong.push(`${mismatch} (HTTP ${status})`);
      if (status >= 500) wrong.push(`${label}: HTTP ${status}`);
    }
    expect(wrong).toEqual([]);

    // The session's state is whole, and the server still serves it and new sessions.
    const after = await post(call(2, 'note', { text: 'after' }), session);
    expect(JSON.parse((after.messages[0].result as CallToolResult & { content: [{ text: string }] }).content[0].text)).toEqual({
      notes: ['before', 'after'],
    });
    const fresh = await open();
    expect(judge('fresh', { ok: true }, (await post(call(3, 'grant', { user: 'v' }), fresh)).messages)).toBeUndefined();
    expect(reported).toEqual([]);
  });

  it('answers a session id no store can keep as an unknown session (404), not an internal error', async () => {
    for (const id of ['x'.repeat(600), 'a'.repeat(5000)]) {
      const { status, messages } = await post(rpc(1, 'tools/list'), { 'mcp-session-id': id });
      expect(status).toBe(404);
      expect(messages).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: expect.stringMatching(/Session not found/) } },
      ]);
    }
    expect(reported).toEqual([]);
  });

  it('refuses oversized headers (431) and keeps serving', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(server.url, { method: 'POST', headers: { 'x-padding': 'a'.repeat(64 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(431);
    const session = await open();
    expect(judge('after', { ok: true }, (await post(call(4, 'grant', { user: 'u' }), session)).messages)).toBeUndefined();
  });

  it('refuses a second initialize under an existing session (-32600), alone or in a batch, and keeps the session', async () => {
    const session = await open();
    for (const body of [JSON.stringify({ ...INIT, id: 90 }), JSON.stringify([{ ...INIT, id: 91 }, JSON.parse(rpc(92, 'tools/list'))])]) {
      const again = await post(body, session);
      expect(again.status).toBe(400);
      expect(again.session).toBeNull();
      expect(again.messages).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: Server already initialized' } },
      ]);
    }
    expect(judge('after', { ok: true }, (await post(call(93, 'grant', { user: 'w' }), session)).messages)).toBeUndefined();
  });

  it('refuses a request whose id is in flight in the session (-32600), answers the first, and frees the id after', async () => {
    const session = await open();
    const first = post(call(7, 'slow', { ms: 300 }), session);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await post(call(7, 'slow', { ms: 5 }), session);
    if (mode === 'stateful') {
      expect(second.status).toBe(400);
      expect(second.messages).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/already in progress/) } },
      ]);
    } else {
      // Stateless: each request has its own server and stream, so both are answered.
      expect(JSON.parse((second.messages[0].result as { content: [{ text: string }] }).content[0].text)).toEqual({ waited: 5 });
    }
    const answered = await first;
    expect(JSON.parse((answered.messages[0].result as { content: [{ text: string }] }).content[0].text)).toEqual({ waited: 300 });
    const again = await post(call(7, 'slow', { ms: 1 }), session);
    expect(JSON.parse((again.messages[0].result as { content: [{ text: string }] }).content[0].text)).toEqual({ waited: 1 });
  });
  it("answers every hostile 2026-07-28 request (no session) as its 2025 twin, and its own with the revision's codes and statuses", async () => {
    const wrong: string[] = [];
    for (const row of HOSTILE.map(modernRow)) {
      if (!row) continue;
      const [label, body, headers, expected] = row;
      const { status, session, messages } = await post(body, headers);
      const mismatch = judge(`2026 ${label}`, expected, messages);
      if (mismatch) wrong.push(`${mismatch} (HTTP ${status})`);
      if (status >= 500 || session !== null) wrong.push(`2026 ${label}: HTTP ${status}, session ${session}`);
    }
    for (const [label, body, headers, expected] of HOSTILE_2026) {
      const { status, messages } = await post(body, headers);
      const mismatch = judge(label, expected, messages);
      if (mismatch) wrong.push(`${mismatch} (HTTP ${status})`);
      if (status !== expected.status) wrong.push(`${label}: HTTP ${status}, wanted ${expected.status}`);
      // Errors carry the request's id (a batch has none to give).
      const id = (JSON.parse(body) as { id?: unknown }).id;
      if (messages[0] && id !== undefined && messages[0].id !== id) wrong.push(`${label}: answered id ${JSON.stringify(messages[0].id)}`);
    }
    expect(wrong).toEqual([]);
    // A 2025 session opened beside them still serves.
    const session = await open();
    expect(judge('after', { ok: true }, (await post(call(222, 'grant', { user: 'u' }), session)).messages)).toBeUndefined();
    expect(reported).toEqual([]);
  });

  // Without auth, two callers cannot be told apart, so a 2026-07-28 request keeps nothing for the
  // next one (tests/mcp/mcp-2026.test.ts has the state an authenticated identity keeps).
  it('keeps no state between 2026-07-28 requests of unauthenticated callers: one request writes, the next does not read it', async () => {
    const headers = { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'note' };
    const first = await post(modern(230, 'tools/call', { name: 'note', arguments: { text: `one-${mode}` } }), headers);
    const second = await post(modern(231, 'tools/call', { name: 'note', arguments: { text: `two-${mode}` } }), headers);
    expect(first.session).toBeNull();
    const notes = (m: typeof second) =>
      (JSON.parse((m.messages[0].result as { content: [{ text: string }] }).content[0].text) as { notes: string[] }).notes;
    expect(notes(first)).toEqual([`one-${mode}`]);
    expect(notes(second)).toEqual([`two-${mode}`]);
    expect(second.messages[0].result).toMatchObject({ resultType: 'complete' });
  });

  it('refuses a 2026-07-28 request from a foreign Origin (403) before reading it, as a 2025 one', async () => {
    const { status } = await post(modern(240, 'server/discover'), {
      ...MODERN_HEADERS,
      'mcp-method': 'server/discover',
      origin: 'http://evil.example',
    });
    expect(status).toBe(403);
  });
});

describe('a hostile client over stdio (a real server process)', () => {
  let child: ChildProcessWithoutNullStreams;
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';

  beforeAll(async () => {
    child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER], { cwd: ROOT });
    let pending = '';
    child.stdout.on('data', (data: Buffer) => {
      pending += data.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
    });
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    await until(() => lines.some((l) => l.id === 0));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }, 60_000);

  afterAll(() => {
    child.stdin.end();
    child.kill();
  });

  async function until(ready: () => boolean, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (!ready()) {
      if (Date.now() > end) throw new Error(`timed out; stdout ${JSON.stringify(lines).slice(0, 2000)} stderr ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Sends one line, then a ping: what the line gets without waiting arrives before the ping's answer; a call's answer by its id. */
  let pings = 0;
  async function send(line: string, waitForId = true): Promise<Array<Record<string, unknown>>> {
    const from = lines.length;
    const ping = `ping-${pings++}`;
    let id: unknown;
    try {
      const value = JSON.parse(line) as { id?: unknown; method?: unknown };
      if (waitForId && typeof value.method === 'string' && (typeof value.id === 'string' || typeof value.id === 'number')) id = value.id;
    } catch {
      id = undefined;
    }
    child.stdin.write(`${line}\n${rpc(ping, 'ping')}\n`);
    await until(() => lines.slice(from).some((l) => l.id === ping) && (id === undefined || lines.slice(from).some((l) => l.id === id)));
    return lines.slice(from).filter((l) => l.id !== ping);
  }

  it('answers every hostile line; the process and its session stay up', async () => {
    expect(judge('note', { ok: true }, await send(call(1, 'note', { text: 'before' })))).toBeUndefined();
    const wrong: string[] = [];
    for (const [label, body, expected] of HOSTILE) {
      const mismatch = judge(label, expected, await send(body));
      if (mismatch) wrong.push(mismatch);
    }
    expect(wrong).toEqual([]);
    const after = await send(call(2, 'note', { text: 'after' }));
    expect(JSON.parse((after[0].result as { content: [{ text: string }] }).content[0].text)).toEqual({ notes: ['before', 'after'] });
  }, 60_000);

  it('refuses a second initialize (-32600) and keeps the session', async () => {
    const again = await send(JSON.stringify({ ...INIT, id: 190 }));
    expect(again).toEqual([
      { jsonrpc: '2.0', id: 190, error: { code: -32600, message: expect.stringMatching(/Invalid Request: Server already initialized/) } },
    ]);
    expect(judge('after', { ok: true }, await send(call(191, 'note', { text: 'still' })))).toBeUndefined();
  }, 60_000);

  it('answers a batch message by message, and a line over the limit with -32600 without closing the session', async () => {
    const batch = await send(JSON.stringify([JSON.parse(rpc(201, 'ping')) as object, { jsonrpc: '2.0', id: 202, method: 5 }]));
    expect(batch).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 201, result: {} },
        { jsonrpc: '2.0', id: 202, error: { code: -32600, message: expect.any(String) } },
      ]),
    );
    const huge = await send(call(203, 'grant', { user: 'x'.repeat(5 * 1024 * 1024) }), false);
    expect(huge).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/over \d+ bytes/) } }]);
    expect(judge('after', { ok: true }, await send(call(204, 'grant', { user: 'u' })))).toBeUndefined();
  }, 60_000);
});

describe('arguments whose keys a parser made into a prototype', () => {
  it('are refused on a direct call, as the JSON text would be: the tool never reads an inherited value', async () => {
    // What a schema library's copy of JSON.parse('{"user":"u","__proto__":{"admin":true}}') can be.
    const smuggled = Object.assign(Object.create({ admin: true }) as object, { user: 'u' });
    const error = await hostileRegistry.call('grant', smuggled).then(
      (text) => text,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).errors[0].constraint).toBe('forbiddenKey');
    const nested = { user: 'u', x: Object.create({ y: 1 }) as object };
    await expect(hostileRegistry.call('grant', nested)).rejects.toBeInstanceOf(ToolInputError);
    // Objects of classes (a Date, an array) are values, not smuggled keys.
    expect(JSON.parse(await hostileRegistry.call('grant', { user: 'u' }))).toEqual({ user: 'u', admin: false });
  });

  it('are refused through the official SDK client', async () => {
    const server = await serveHttp(hostileRegistry, { store: new InMemoryStore() });
    const client = new Client({ name: 'hostile', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const args = JSON.parse('{"user":"u","__proto__":{"admin":true}}') as Record<string, unknown>;
      const result = (await client.callTool({ name: 'grant', arguments: args })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('a hostile client against a rate-limited tool (2025 session and 2026 requests)', () => {
  let handle: HttpHandle;

  beforeAll(async () => {
    handle = await serveHttp(limitedRegistry(), { port: 0, store: new InMemoryStore() });
  });

  afterAll(() => handle.close());

  const send = async (id: number, args: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(handle.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...MODERN_HEADERS,
        'mcp-method': 'tools/call',
        'mcp-name': 'limited',
      },
      body: modern(id, 'tools/call', { name: 'limited', arguments: args }),
    });
    return messagesOf(res.headers.get('content-type'), await res.text())[0];
  };
  const toolAnswer = (answer: Record<string, unknown>) =>
    JSON.parse(((answer.result as CallToolResult).content[0] as { text: string }).text) as Record<string, unknown>;

  it('refused arguments are not counted; over the limit every caller gets RATE_LIMITED with retryAfter, and the server keeps serving', async () => {
    // Hostile arguments first: each refused before the gate counts it.
    const hostile: unknown[] = [{ text: 5 }, { text: 'x'.repeat(200_000) }, JSON.parse('{"__proto__": {"text": "p"}}'), [], null];
    for (const [i, args] of hostile.entries()) {
      const answer = await send(300 + i, args);
      const code = (answer.error as { code?: number } | undefined)?.code ?? toolAnswer(answer).code;
      expect([-32602, 'INVALID_ARGUMENTS', 'ARGUMENTS_TOO_LARGE']).toContain(code);
    }
    // The limit (two an hour, for everyone) is still whole.
    expect(toolAnswer(await send(310, { text: 'one' }))).toEqual({ text: 'one' });
    expect(toolAnswer(await send(311, { text: 'two' }))).toEqual({ text: 'two' });
    const third = toolAnswer(await send(312, { text: 'three' }));
    expect(third).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    expect(third.retryAfter as number).toBeGreaterThan(0);
    // A 2025 client meets the same count through the SDK.
    const client = new Client({ name: 'hostile', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    const legacy = (await client.callTool({ name: 'limited', arguments: { text: 'four' } })) as CallToolResult;
    expect(legacy.isError).toBe(true);
    expect(JSON.parse((legacy.content[0] as { text: string }).text)).toMatchObject({ code: 'RATE_LIMITED' });
    await client.close();
  });
});
