/**
 * `subscriptions/listen` on MCP 2026-07-28 (SEP-2575), over raw HTTP (the SDK's v1 client speaks
 * no 2026-07-28): the stream opens with the acknowledgement of what is honoured, then carries only
 * the requested notifications, each tagged with the listen request's id; a resource update reaches
 * only a caller who may read the resource at that moment; closing the stream removes its listeners;
 * malformed filters are refused (-32602, HTTP 400).
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Param, Resource, Tool, ToolRegistry, type AgentContext, type ResourceInterface, type ToolInterface } from '../../src';
import { serveHttp, tokenAuth, type HttpHandle } from '../../src/mcp';
import { InMemoryStore } from '../../src/stores';
import { MAX_LISTENS_PER_CALLER } from '../../src/mcp/http/listen';

jest.setTimeout(30_000);

let locked = false;

class EchoInput {
  @Param() @IsString() text!: string;
}

@Tool({ name: 'echo', description: 'Echoes its text', input: EchoInput })
class EchoTool implements ToolInterface<EchoInput> {
  execute({ text }: EchoInput): string {
    return text;
  }
}

@Resource({ uri: 'docs://public', name: 'public', description: 'Anyone may read it' })
class PublicDoc implements ResourceInterface {
  read(): string {
    return 'public';
  }
}

@Resource({ uri: 'docs://secret', name: 'secret', description: 'Root only' })
class SecretDoc implements ResourceInterface {
  isEnabled(context: AgentContext): boolean {
    return context.userId === 'root';
  }
  read(): string {
    return 'secret';
  }
}

@Resource({ uri: 'docs://lockable', name: 'lockable', description: 'Readable until locked' })
class LockableDoc implements ResourceInterface {
  isEnabled(): boolean {
    return !locked;
  }
  read(): string {
    return 'lockable';
  }
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const registry = ToolRegistry.build({ tools: [EchoTool], resources: [PublicDoc, SecretDoc, LockableDoc] });
const listeners = () => (registry as unknown as { resourceListeners: Set<unknown> }).resourceListeners.size;
let handle: HttpHandle;

beforeAll(async () => {
  const auth = tokenAuth({ 'token-alice': { userId: 'alice' }, 'token-root': { userId: 'root' } });
  handle = await serveHttp(registry, { store: new InMemoryStore(), auth, onError: () => undefined });
});
afterAll(() => handle.close());
afterEach(() => {
  locked = false;
});

function post(token: string, id: number | string, method: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  return fetch(handle.url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  });
}

interface Frame {
  method: string;
  params: Record<string, unknown> & { _meta: Record<string, unknown> };
}

/** An open listen stream: its frames as they arrive, and its closing. */
async function open(token: string, id: number | string, notifications: unknown) {
  const abort = new AbortController();
  const res = await post(token, id, 'subscriptions/listen', { notifications }, abort.signal);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const frames: Frame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) frames.push(JSON.parse(data.slice(6)) as Frame);
      }
    }
  })();
  const close = async () => {
    abort.abort();
    await reading;
  };
  return { frames, close };
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('subscriptions/listen on 2026-07-28', () => {
  it('advertises resources.subscribe in server/discover', async () => {
    const res = await post('token-alice', 1, 'server/discover', {});
    const body = (await res.json()) as { result: { capabilities: Record<string, unknown> } };
    expect(body.result.capabilities.resources).toEqual({ subscribe: true });
    // No remote tools here: the tool list never changes, so list_changed is not offered.
    expect(body.result.capabilities.tools).toEqual({});
  });

  it('acknowledges first, with the honoured subset, then sends updates of subscribed URIs tagged with the request id', async () => {
    const stream = await open('token-alice', 'listen-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['docs://public', 'docs://missing'],
    });
    try {
      await until(() => stream.frames.length >= 1, 'the acknowledgement');
      expect(stream.frames[0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { resourceSubscriptions: ['docs://public'] }, _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      });
      registry.resourceUpdated('docs://lockable');
      registry.resourceUpdated('docs://public');
      await until(() => stream.frames.length >= 2, 'the update');
      await settle();
      expect(stream.frames.slice(1)).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: 'docs://public', _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
        },
      ]);
    } finally {
      await stream.close();
    }
  });

  it('sends nothing that was not requested', async () => {
    const stream = await open('token-alice', 7, { promptsListChanged: true, toolsListChanged: true });
    try {
      await until(() => stream.frames.length >= 1, 'the acknowledgement');
      expect(stream.frames[0].params).toEqual({ notifications: {}, _meta: { [SUBSCRIPTION_ID]: 7 } });
      registry.resourceUpdated('docs://public');
      await settle();
      expect(stream.frames).toHaveLength(1);
    } finally {
      await stream.close();
    }
  });

  it('gives no update of a resource the caller may not read, at subscription or later', async () => {
    const alice = await open('token-alice', 2, { resourceSubscriptions: ['docs://secret', 'docs://lockable'] });
    const root = await open('token-root', 3, { resourceSubscriptions: ['docs://secret'] });
    try {
      await until(() => alice.frames.length >= 1 && root.frames.length >= 1, 'the acknowledgements');
      // A hidden URI is acknowledged as a missing one is: left out.
      expect(alice.frames[0].params.notifications).toEqual({ resourceSubscriptions: ['docs://lockable'] });
      expect(root.frames[0].params.notifications).toEqual({ resourceSubscriptions: ['docs://secret'] });
      registry.resourceUpdated('docs://secret');
      await until(() => root.frames.length >= 2, "root's update");
      locked = true;
      registry.resourceUpdated('docs://lockable');
      await settle();
      expect(alice.frames).toHaveLength(1);
      expect(root.frames[1].params.uri).toBe('docs://secret');
      locked = false;
      registry.resourceUpdated('docs://lockable');
      await until(() => alice.frames.length >= 2, "alice's update once readable again");
      expect(alice.frames[1].params.uri).toBe('docs://lockable');
    } finally {
      await Promise.all([alice.close(), root.close()]);
    }
  });

  it('removes its listeners when the client closes the stream', async () => {
    await until(() => listeners() === 0, 'earlier streams to be gone');
    const streams = await Promise.all([1, 2, 3].map((id) => open('token-alice', id, { resourceSubscriptions: ['docs://public'] })));
    await until(() => streams.every((s) => s.frames.length >= 1), 'the acknowledgements');
    expect(listeners()).toBe(3);
    await Promise.all(streams.map((s) => s.close()));
    await until(() => listeners() === 0, 'the listeners to be removed');
    expect(listeners()).toBe(0);
  });

  it('holds at most MAX_LISTENS_PER_CALLER streams for one caller (503, -32000); closing one frees its slot, and others are not affected', async () => {
    await until(() => listeners() === 0, 'earlier streams to be gone');
    const streams = await Promise.all(
      Array.from({ length: MAX_LISTENS_PER_CALLER }, (_, i) =>
        open('token-alice', `cap-${i}`, { resourceSubscriptions: ['docs://public'] }),
      ),
    );
    await until(() => streams.every((s) => s.frames.length >= 1), 'the acknowledgements');
    const refused = await post('token-alice', 'cap-over', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['docs://public'] },
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ id: 'cap-over', error: { code: -32000 } });
    // Another caller has slots of its own.
    const root = await open('token-root', 'cap-root', { resourceSubscriptions: ['docs://public'] });
    await streams[0].close();
    // alice's streams less the closed one, and root's.
    await until(() => listeners() === MAX_LISTENS_PER_CALLER - 1 + 1, 'the closed stream to free its slot');
    const again = await open('token-alice', 'cap-again', { resourceSubscriptions: ['docs://public'] });
    await until(() => again.frames.length >= 1, 'the acknowledgement');
    await Promise.all([...streams.slice(1), root, again].map((s) => s.close()));
    await until(() => listeners() === 0, 'the listeners to be removed');
  });

  it.each([
    ['no notifications', {}],
    ['notifications not an object', { notifications: ['docs://public'] }],
    ['notifications null', { notifications: null }],
    ['a URI not a string', { notifications: { resourceSubscriptions: ['docs://public', 42] } }],
    ['resourceSubscriptions not an array', { notifications: { resourceSubscriptions: 'docs://public' } }],
    ['toolsListChanged not a boolean', { notifications: { toolsListChanged: 'yes' } }],
  ])('refuses %s (-32602, HTTP 400) and subscribes nothing', async (_what, params) => {
    const res = await post('token-alice', 9, 'subscriptions/listen', params);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body).toMatchObject({ id: 9, error: { code: -32602 } });
    expect(body.error.message).toMatch(/notifications/);
    expect(listeners()).toBe(0);
  });
});
