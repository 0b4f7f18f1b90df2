import { join } from 'node:path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type CallToolResult, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { AgentContext, AgentMemory, InMemoryStore, type ToolProgress } from '../../src';
import { createMcpServer, serveHttp, type HttpHandle } from '../../src/mcp';
import { ROOT } from '../cli/build-cli';
import { observed, progressRegistry, type Observation } from '../support/progress-tools';

const WORKER = join(ROOT, 'tests/support/progress-stdio-worker.ts');

const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;

/** A client that approves every elicited approval (so `wait_approved` runs). */
function approvingClient(): Client {
  const client = new Client({ name: 'progress-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { decision: 'approve' } }));
  return client;
}

describe('registry: CallOptions.onProgress reaches context.reportProgress on every call path', () => {
  const context = () => new AgentContext({ sessionId: 'progress' });
  const memory = () => new AgentMemory({ agentName: 'progress', userId: 'u' });
  const expected: ToolProgress[] = [
    { progress: 1, total: 3, message: 'step 1 of 3' },
    { progress: 2, total: 3, message: 'step 2 of 3' },
    { progress: 1, total: 3, message: 'stale' }, // the registry passes reports on as they come
    { progress: 3, total: 3, message: 'step 3 of 3' },
  ];

  it.each([
    ['fast path (onProgress only)', {}],
    ['fast path with a tool call id', { toolCallId: 'c1' }],
    ['signal path', { signal: new AbortController().signal }],
    ['guarded path (timeout)', { timeoutMs: 60_000 }],
    ['guarded path (timeout and signal)', { timeoutMs: 60_000, signal: new AbortController().signal }],
  ])('%s', async (_label, options) => {
    const seen: ToolProgress[] = [];
    const text = await progressRegistry.call('count', { steps: 3 }, context(), memory(), { ...options, onProgress: (p) => seen.push(p) });
    expect(JSON.parse(text)).toEqual({ done: 3 });
    expect(seen).toEqual(expected);
  });

  it('the approved path: check, then call with approved', async () => {
    const ctx = context();
    const check = await progressRegistry.check('wait_approved', { label: 'approved' }, ctx);
    expect(check.approvalRequired).toBe(true);
    const seen: ToolProgress[] = [];
    const controller = new AbortController();
    const pending = progressRegistry.call('wait_approved', { label: 'approved' }, ctx, memory(), {
      approved: true,
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p);
        controller.abort('stop');
      },
    });
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toEqual([{ progress: 1, total: undefined, message: 'waiting for cancellation' }]);
  });

  it('a throwing or rejecting onProgress never fails the tool', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const options of [{}, { timeoutMs: 60_000 }, { signal: new AbortController().signal }]) {
        const throwing = await progressRegistry.call('count', { steps: 3 }, context(), memory(), {
          ...options,
          onProgress: () => {
            throw new Error('observer failed');
          },
        });
        expect(JSON.parse(throwing)).toEqual({ done: 3 });
        const rejecting = await progressRegistry.call('count', { steps: 3 }, context(), memory(), {
          ...options,
          onProgress: (async () => Promise.reject(new Error('async observer failed'))) as unknown as (p: ToolProgress) => void,
        });
        expect(JSON.parse(rejecting)).toEqual({ done: 3 });
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('without onProgress, reportProgress is a no-op', async () => {
    expect(JSON.parse(await progressRegistry.call('count', { steps: 2 }))).toEqual({ done: 2 });
  });
});

interface Surface {
  /** A new connected client. */
  connect(): Promise<Client>;
  /** Elicitation reaches a human here (not stateless). */
  approvals: boolean;
}

const surfaces: Array<[string, () => Promise<{ surface: Surface; close: () => Promise<void> }>]> = [
  [
    'stdio (SDK client spawning a server process)',
    async () => {
      const clients: Client[] = [];
      return {
        surface: {
          approvals: true,
          connect: async () => {
            const transport = new StdioClientTransport({
              command: process.execPath,
              args: ['-r', 'ts-node/register/transpile-only', WORKER],
              cwd: ROOT,
              stderr: 'inherit',
            });
            const client = approvingClient();
            await client.connect(transport);
            clients.push(client);
            return client;
          },
        },
        close: async () => void (await Promise.all(clients.map((c) => c.close()))),
      };
    },
  ],
  ...(['stateful', 'stateless'] as const).map((mode): [string, () => Promise<{ surface: Surface; close: () => Promise<void> }>] => [
    `Streamable HTTP (${mode})`,
    async () => {
      const handle = await serveHttp(progressRegistry, { stateless: mode === 'stateless', store: new InMemoryStore() });
      const clients: Client[] = [];
      return {
        surface: {
          approvals: mode === 'stateful',
          connect: async () => {
            const client = approvingClient();
            await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
            clients.push(client);
            return client;
          },
        },
        close: async () => {
          await Promise.all(clients.map((c) => c.close()));
          await handle.close();
        },
      };
    },
  ]),
];

describe.each(surfaces)('MCP progress and cancellation over %s', (_name, start) => {
  let surface: Surface;
  let close: () => Promise<void>;
  let client: Client;
  let labels = 0;

  beforeAll(async () => {
    ({ surface, close } = await start());
    client = await surface.connect();
  }, 60_000);

  afterAll(async () => {
    await close?.();
  });

  /** What the server's waiting tools saw for this label (asked through the server itself). */
  const observations = async (label: string): Promise<Observation[]> => {
    const result = (await client.callTool({ name: 'observed', arguments: {} })) as CallToolResult;
    return (textOf(result).observed as Observation[]).filter((o) => o.label === label);
  };
  /** Asks until the tool recorded `phase` (a cancellation travels asynchronously); the test's timeout bounds it. */
  const waitFor = async (label: string, phase: Observation['phase']): Promise<Observation> => {
    for (;;) {
      const found = (await observations(label)).find((o) => o.phase === phase);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('sends notifications/progress in order with total and message, dropping a value that does not increase', async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: 'count', arguments: { steps: 4 } }, undefined, {
      onprogress: (p) => seen.push(p),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toEqual({ done: 4 });
    expect(seen).toEqual([1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i} of 4` })));
  });

  it('sends no progress when the client sent no progress token', async () => {
    const result = (await client.callTool({ name: 'count', arguments: { steps: 2 } })) as CallToolResult;
    expect(textOf(result)).toEqual({ done: 2 });
  });

  it.each(['wait', 'wait_guarded', 'wait_approved'])(
    "aborting the client request fires %s's context.signal, and the server keeps serving",
    async (tool) => {
      if (tool === 'wait_approved' && !surface.approvals) {
        // Stateless servers cannot ask a human: the call is refused before it runs.
        const refused = (await client.callTool({ name: tool, arguments: {} })) as CallToolResult;
        expect(textOf(refused)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
        return;
      }
      const label = `${tool}-${++labels}`;
      const controller = new AbortController();
      const progress: Progress[] = [];
      const pending = client.callTool({ name: tool, arguments: { label } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p);
          controller.abort('user stopped');
        },
      });
      await expect(pending).rejects.toThrow();
      expect(progress).toEqual([{ progress: 1, message: 'waiting for cancellation' }]);
      const ended = await waitFor(label, 'ended');
      expect(ended).toMatchObject({ tool, hadSignal: true, aborted: true, reason: 'user stopped' });

      // The same client and server go on serving.
      const after = (await client.callTool({ name: 'count', arguments: { steps: 2 } }, undefined, {
        onprogress: () => undefined,
      })) as CallToolResult;
      expect(textOf(after)).toEqual({ done: 2 });
    },
  );

  it('cancels a call that asked for no progress (aborted once the tool has started)', async () => {
    const label = `quiet-${++labels}`;
    const controller = new AbortController();
    const pending = client.callTool({ name: 'wait', arguments: { label } }, undefined, { signal: controller.signal });
    pending.catch(() => undefined);
    expect(await waitFor(label, 'started')).toMatchObject({ hadSignal: true, aborted: false });
    controller.abort('no longer needed');
    await expect(pending).rejects.toThrow();
    expect(await waitFor(label, 'ended')).toMatchObject({ aborted: true, reason: 'no longer needed' });
    expect(textOf((await client.callTool({ name: 'count', arguments: { steps: 1 } })) as CallToolResult)).toEqual({ done: 1 });
  });
});

describe('MCP progress is monotonic (property, in-process transport pair)', () => {
  let client: Client;

  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(progressRegistry).connect(serverSide);
    client = new Client({ name: 'property', version: '1.0.0' });
    await client.connect(clientSide);
  });

  afterAll(async () => {
    await client.close();
  });

  it('forwards exactly the reports that exceed every earlier one, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), { maxLength: 20 }),
        fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        async (values, total) => {
          const seen: Progress[] = [];
          const args = total === undefined ? { values } : { values, total };
          await client.callTool({ name: 'reports', arguments: args }, undefined, { onprogress: (p) => seen.push(p) });
          const expected: Progress[] = [];
          let last = -Infinity;
          values.forEach((value, i) => {
            if (value <= last) return;
            last = value;
            expected.push(total === undefined ? { progress: value, message: `#${i}` } : { progress: value, total, message: `#${i}` });
          });
          // -0 and 0 travel as the same JSON number.
          expect(seen.map((p) => ({ ...p, progress: p.progress + 0 }))).toEqual(expected.map((p) => ({ ...p, progress: p.progress + 0 })));
        },
      ),
      { numRuns: 40 },
    );
  });
});

/**
 * The client side of an in-memory pair that reads like a slow stdio client: notifications wait,
 * and are handed over with the next request or response in one synchronous burst (one chunk).
 */
function chunkingClientTransport(inner: InMemoryTransport): Transport {
  const held: JSONRPCMessage[] = [];
  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => inner.send(message, options),
  };
  inner.onmessage = (message) => {
    held.push(message);
    if ('method' in message && !('id' in message)) return;
    for (const m of held.splice(0)) outer.onmessage?.(m);
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  return outer;
}

describe('MCP progress reaches an SDK client that reads notifications and the response in one chunk', () => {
  it('every notification is handled before the response arrives', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(progressRegistry).connect(serverSide);
    const client = new Client({ name: 'chunked', version: '1.0.0' });
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(chunkingClientTransport(clientSide));
    try {
      const seen: Progress[] = [];
      const result = (await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, {
        onprogress: (p) => seen.push(p),
      })) as CallToolResult;
      expect(textOf(result)).toEqual({ done: 3 });
      expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i} of 3` })));
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('MCP cancellation while a human is asked (in-process transport pair)', () => {
  it('stops waiting for the elicitation answer, reports no failure, and runs nothing', async () => {
    const reported: unknown[] = [];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(progressRegistry, { onError: (error) => reported.push(error) }).connect(serverSide);
    const client = new Client({ name: 'asked', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const controller = new AbortController();
    let elicitationSignal: AbortSignal | undefined;
    let asked = 0;
    // First the human declines (so the next elicitation's id is not 0: the SDK ignores a
    // cancellation of request id 0); then never answers, and the client gives up on the call.
    client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
      if (asked++ === 0) return { action: 'decline' };
      elicitationSignal = extra.signal;
      controller.abort('gave up');
      return new Promise<never>(() => undefined);
    });
    await client.connect(clientSide);
    try {
      const declined = (await client.callTool({ name: 'wait_approved', arguments: { label: 'never-approved' } })) as CallToolResult;
      expect(textOf(declined)).toMatchObject({ code: 'REJECTED' });
      const pending = client.callTool({ name: 'wait_approved', arguments: { label: 'never-approved' } }, undefined, {
        signal: controller.signal,
      });
      await expect(pending).rejects.toThrow();
      // The server cancels its elicitation request in turn (the client's handler sees it aborted).
      while (!elicitationSignal?.aborted) await new Promise((resolve) => setTimeout(resolve, 10));
      const after = (await client.callTool({ name: 'count', arguments: { steps: 1 } })) as CallToolResult;
      expect(textOf(after)).toEqual({ done: 1 });
      expect(observed.filter((o) => o.label === 'never-approved')).toEqual([]);
      expect(reported).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('Streamable HTTP: a cancelled call leaves nothing running', () => {
  it('a stateful session whose call was cancelled still idles out (its request stream was closed)', async () => {
    const handle: HttpHandle = await serveHttp(progressRegistry, { sessionIdleTimeoutMs: 200 });
    const client = new Client({ name: 'idle', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const controller = new AbortController();
      const pending = client.callTool({ name: 'wait', arguments: { label: 'idle' } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('stop'),
      });
      await expect(pending).rejects.toThrow();
      expect(handle.sessionCount()).toBe(1);
      // A call in flight keeps a session from idling out: a cancelled one must not count as in flight forever.
      while (handle.sessionCount() > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(handle.sessionCount()).toBe(0);
    } finally {
      await client.close();
      await handle.close();
    }
  });

  it('a stateless JSON-mode call that is cancelled gets its HTTP request answered', async () => {
    const handle = await serveHttp(progressRegistry, { stateless: true, store: new InMemoryStore() });
    const post = (body: object, session?: string) =>
      fetch(handle.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    try {
      const init = await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const call = post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: { label: 'raw' } } }, session);
      // Once the tool runs (asked through another request), cancel it.
      while (!observed.some((o) => o.label === 'raw' && o.phase === 'started')) await new Promise((resolve) => setTimeout(resolve, 20));
      const cancel = await post(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'raw stop' } },
        session,
      );
      expect(cancel.status).toBe(202);
      const answered = await call;
      expect(answered.status).toBe(202);
      await answered.text();
      while (!observed.some((o) => o.label === 'raw' && o.phase === 'ended')) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(observed.find((o) => o.label === 'raw' && o.phase === 'ended')).toMatchObject({ aborted: true, reason: 'raw stop' });
    } finally {
      await handle.close();
    }
  });
});
