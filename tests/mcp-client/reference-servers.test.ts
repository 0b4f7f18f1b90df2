/**
 * Remote tools from MCP servers nobody here wrote, installed from npm: server-everything over
 * stdio and Streamable HTTP (the same suite on both), server-filesystem and server-memory over stdio.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentContext, ToolRegistry, type InputRequest, type SampleRequest, type ToolProgress } from '../../src';
import type { ToolLog } from '../../src/session/tool-log';
import { McpToolset } from '../../src/mcp-client';
import { SERVER, startEverythingHttp, type HttpServer } from '../support/remote-servers';

let http: HttpServer;
beforeAll(async () => {
  http = await startEverythingHttp();
}, 30_000);
afterAll(() => http?.stop());

const everything = {
  stdio: () => McpToolset.stdio({ name: 'everything', command: process.execPath, args: [SERVER.everything, 'stdio'], prefix: 'ev_' }),
  http: () => McpToolset.http({ name: 'everything', url: http.url, prefix: 'ev_' }),
};

describe.each(['stdio', 'http'] as const)('server-everything over %s', (transport) => {
  let registry: ToolRegistry;
  beforeAll(async () => {
    registry = await ToolRegistry.buildAsync({ tools: [], mcp: [everything[transport]()] });
  }, 30_000);
  afterAll(() => registry.close());

  it('lists its tools, prefixed, with their schemas, in definitions() and the catalog', () => {
    expect(registry.names()).toEqual(expect.arrayContaining(['ev_echo', 'ev_get-sum', 'ev_get-structured-content']));
    const sum = registry.definitions().find((d) => d.name === 'ev_get-sum')!;
    expect(sum.parameters.required).toEqual(['a', 'b']);
    expect(registry.describe('ev_get-sum').origin).toEqual({ source: 'everything', name: 'get-sum' });
  });

  it('calls a tool, and refuses bad arguments before sending them', async () => {
    expect(JSON.parse(await registry.call('ev_get-sum', { a: 2, b: 3 }))).toEqual({
      content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
    });
    await expect(registry.call('ev_get-sum', { a: 'two', b: 3 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });

  it('answers a structured result checked against the outputSchema', async () => {
    const weather = JSON.parse(await registry.call('ev_get-structured-content', { location: 'Chicago' })) as Record<string, unknown>;
    expect(typeof weather.temperature).toBe('number');
    expect(registry.describe('ev_get-structured-content').definition.outputSchema).toBeDefined();
  });

  it("passes the server's progress to the calling tool's context", async () => {
    const progress: ToolProgress[] = [];
    const text = await registry.call('ev_trigger-long-running-operation', { duration: 0.3, steps: 3 }, undefined, undefined, {
      onProgress: (p) => progress.push(p),
    });
    expect(text).toContain('Long running operation completed');
    // Steps 1 and 2 arrive before the result; the SDK client may drop the last one when the result
    // overtakes it on a loaded machine (it handles notifications a tick later), so it is not required.
    expect(progress.slice(0, 2).map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(progress.length).toBeLessThanOrEqual(3);
  });

  it("passes the server's elicitation to the calling tool's surface, and its answer back", async () => {
    const asked: InputRequest[] = [];
    const text = await registry.call('ev_trigger-elicitation-request', {}, undefined, undefined, {
      onElicit: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 3 } };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0].mode).toBe('form');
    expect(text).toContain('Ada Lovelace');
    // No one there to ask: the server hears a decline, the call still answers.
    expect(await registry.call('ev_trigger-elicitation-request', {})).toContain('decline');
  });

  it("passes the server's sampling request to the calling tool's model, and the completion back", async () => {
    const asked: SampleRequest[] = [];
    const text = await registry.call('ev_trigger-sampling-request', { prompt: 'Say hi', maxTokens: 20 }, undefined, undefined, {
      onSample: async (request) => {
        asked.push(request);
        return { text: 'hi there', content: [{ type: 'text', text: 'hi there' }], model: 'scripted', stopReason: 'endTurn' };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ maxTokens: 20, systemPrompt: 'You are a helpful test server.' });
    expect(asked[0].messages[0].content).toMatchObject({ type: 'text', text: expect.stringContaining('Say hi') });
    expect(text).toContain('hi there');
    // No model there: the server hears an error and reports the call failed; it never hangs.
    const failed = await registry.call('ev_trigger-sampling-request', { prompt: 'x' }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringMatching(/no model/) });
  });

  it('cancels a long call: the registry fails it with ABORTED at once', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = registry.call('ev_trigger-long-running-operation', { duration: 20, steps: 20 }, undefined, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('server-everything: logging reaches the calling tool', () => {
  it('sends log messages at the level asked to context.log, others to onLog', async () => {
    const outside: ToolLog[] = [];
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [
        McpToolset.stdio({
          command: process.execPath,
          args: [SERVER.everything, 'stdio'],
          logLevel: 'debug',
          onLog: (log) => outside.push(log),
          include: ['toggle-simulated-logging', 'trigger-long-running-operation'],
        }),
      ],
    });
    try {
      await registry.call('toggle-simulated-logging', {});
      const inside: ToolLog[] = [];
      await registry.call('trigger-long-running-operation', { duration: 6, steps: 3 }, undefined, undefined, {
        onLog: (log) => inside.push(log),
      });
      expect(inside.length).toBeGreaterThan(0);
    } finally {
      await registry.close();
    }
  }, 30_000);
});

describe('server-filesystem over stdio', () => {
  let dir: string;
  let registry: ToolRegistry;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'tw-fs-')));
    writeFileSync(join(dir, 'hello.txt'), 'hello from disk');
    registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [McpToolset.stdio({ name: 'fs', command: process.execPath, args: [SERVER.filesystem, dir], prefix: 'fs_' })],
    });
  }, 30_000);
  afterAll(async () => {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a file; writing one (destructiveHint) waits for an approval', async () => {
    expect(await registry.call('fs_read_text_file', { path: join(dir, 'hello.txt') })).toContain('hello from disk');
    await expect(registry.call('fs_write_file', { path: join(dir, 'new.txt'), content: 'x' })).rejects.toMatchObject({
      code: 'APPROVAL_REQUIRED',
    });
    await registry.call('fs_write_file', { path: join(dir, 'new.txt'), content: 'approved' }, undefined, undefined, { approved: true });
    expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('approved');
  });

  it("passes on the server's own refusal as TOOL_FAILED the model can read", async () => {
    const refused = registry.call('fs_read_text_file', { path: '/etc/passwd' });
    await expect(refused).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    const error = (await refused.catch((e: unknown) => e)) as { toToolResult(): string };
    expect(JSON.parse(error.toToolResult()).message).toMatch(/denied|outside|not allowed/i);
  });
});

describe('server-memory over stdio', () => {
  it('keeps a knowledge graph through remote calls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-mem-'));
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [
        McpToolset.stdio({
          command: process.execPath,
          args: [SERVER.memory],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          tools: { create_entities: { approval: false } },
        }),
      ],
    });
    try {
      const context = new AgentContext({ sessionId: 's', userId: 'u' });
      await registry.call(
        'create_entities',
        { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
        context,
      );
      const graph = await registry.call('read_graph', {}, context);
      expect(graph).toContain('wrote the first program');
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
