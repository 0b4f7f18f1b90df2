/**
 * Where the Traces page's spans come from: the studio's own provider only when the app registered
 * none (an app's provider is left in place, before and after), the OpenTelemetry SDK loaded only
 * when a studio starts, the page naming the packages to install when they cannot be loaded, and
 * the span buffer's bounds.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import * as otelApi from '@opentelemetry/api';
import { context, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { Browser } from 'playwright-core';
import { Agent, AgentContext, InMemoryStore, ScriptedModel } from 'toolwright';
import { createStudio } from 'toolwright/studio';
import { createSupportApp } from '../../samples/tools';
import { tracesPageWith } from '../../src/studio/traces-api';
import { TraceBuffer } from '../../src/studio/traces-buffer';
import type { StudioContext, StudioRequest } from '../../src/studio/routes';
import * as asyncHooksV1 from '@opentelemetry/context-async-hooks-v1';
import * as sdkV1 from '@opentelemetry/sdk-trace-base-v1';
import { axeViolations, launchBrowser, newPage } from '../support/studio-browser';
import { startTracing } from '../support/tracing';

const ROOT = resolve(__dirname, '../..');
const registrations = () => (globalThis as Record<symbol, { trace?: unknown; context?: unknown }>)[Symbol.for('opentelemetry.js.api.1')];
const get = async (studio: { origin: string; token: string }, path: string) =>
  (await (await fetch(`${studio.origin}${path}`, { headers: { authorization: `Bearer ${studio.token}` } })).json()) as any;

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

test('a provider the app registered first stays: the page says traces go to its collector, and close() leaves it', async () => {
  const tracing = startTracing();
  try {
    const appProvider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
    const { registry } = createSupportApp();
    const studio = await createStudio(registry);
    expect((await get(studio, '/api/traces')).collector).toEqual({ mode: 'app-collector', shown: false, kept: null });
    await registry.call('order_lookup', { order_id: 'A-100' }, new AgentContext({ sessionId: 'c-1', userId: 'alice' }));
    expect(tracing.spans().map((s) => s.name)).toContain('execute_tool order_lookup');
    expect((await get(studio, '/api/traces')).traces).toEqual([]);
    await studio.close();
    // Still the app's: its exporter gets the spans made after the studio closed.
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBe(appProvider);
    trace.getTracer('app').startSpan('after-close').end();
    expect(tracing.spans().map((s) => s.name)).toContain('after-close');
  } finally {
    await tracing.stop();
  }
});

test('a context manager the app registered (without a provider) stays when the studio closes', async () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  expect(context.setGlobalContextManager(manager)).toBe(true);
  try {
    const studio = await createStudio(createSupportApp().registry);
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBeInstanceOf(BasicTracerProvider);
    await studio.close();
    expect(registrations()?.context).toBe(manager);
    expect(registrations()?.trace).toBeUndefined();
  } finally {
    context.disable();
  }
});

const request = (query = ''): StudioRequest =>
  ({
    params: {},
    query: new URLSearchParams(query),
    body: undefined,
    identity: { userId: 'u' },
    raw: undefined,
  }) as unknown as StudioRequest;

test('the SDK packages cannot be loaded: nothing is registered and the page names the packages to install', async () => {
  const asked: string[] = [];
  const loader = (name: string) => {
    asked.push(name);
    if (name !== '@opentelemetry/api') throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    return otelApi;
  };
  const factory = tracesPageWith(loader);
  expect(asked).toEqual([]); // nothing is loaded until a studio starts
  const page = factory({} as StudioContext);
  expect(asked).toEqual(['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/context-async-hooks']);
  expect(registrations()?.trace).toBeUndefined();
  expect(registrations()?.context).toBeUndefined();
  const list = page.routes.find((r) => r.path === '/api/traces')!;
  const answer = await list.handle!(request());
  expect(answer.json).toMatchObject({
    collector: {
      mode: 'unavailable',
      missing: ['@opentelemetry/sdk-trace-base', '@opentelemetry/context-async-hooks'],
      install: 'npm install @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks',
    },
    traces: [],
  });
  const one = page.routes.find((r) => r.path === '/api/traces/:traceId')!;
  await expect(one.handle!({ ...request(), params: { traceId: 'a'.repeat(32) } })).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
  await page.close?.();

  // The page as a browser shows that answer (served in place of this studio's own).
  browser = await launchBrowser();
  const studio = await createStudio(createSupportApp().registry);
  try {
    const tab = await newPage(browser);
    await tab.route('**/api/traces', (route) => route.fulfill({ json: answer.json }));
    await tab.goto(`${studio.url}#/traces`);
    await tab.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
    const note = tab.getByRole('note');
    await note.waitFor();
    expect(await note.getByRole('listitem').allTextContents()).toEqual([
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/context-async-hooks',
    ]);
    expect(await note.locator('pre').textContent()).toBe('npm install @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks');
    expect(await axeViolations(tab)).toEqual([]);
    await tab.context().close();
  } finally {
    await studio.close();
  }
});

/** A run of a small agent over the sample tools: an invoke_agent span, two chat spans, one execute_tool span. */
async function runDesk(): Promise<void> {
  const agent = new Agent({
    name: 'desk',
    model: new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'order_lookup', arguments: { order_id: 'A-100' } }] }, { text: 'Shipped.' }]),
    tools: createSupportApp().registry,
    store: new InMemoryStore(),
    errorPolicy: 'redact',
  });
  expect((await agent.run('Where is A-100?', { sessionId: 'v1', userId: 'alice' })).status).toBe('completed');
}

/** The page's API answers, called in-process. */
async function answers(page: ReturnType<ReturnType<typeof tracesPageWith>>) {
  const list = (await page.routes.find((r) => r.path === '/api/traces')!.handle!(request())).json as any;
  const traceId = list.traces[0]?.traceId as string | undefined;
  const one = traceId
    ? ((await page.routes.find((r) => r.path === '/api/traces/:traceId')!.handle!({ ...request(), params: { traceId } })).json as any)
    : undefined;
  return { list, one };
}

// The previous major of the SDK (1.x, installed under an alias): the loader hands it to the studio.
const SDK_V1: Record<string, unknown> = {
  '@opentelemetry/api': otelApi,
  '@opentelemetry/sdk-trace-base': sdkV1,
  '@opentelemetry/context-async-hooks': asyncHooksV1,
};

test('SDK 1 (the previous major): the studio registers a provider built with it, spans nest, close() unregisters it', async () => {
  const page = tracesPageWith((name) => SDK_V1[name])({} as StudioContext);
  expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBeInstanceOf(sdkV1.BasicTracerProvider);
  await runDesk();
  const { list, one } = await answers(page);
  expect(list.collector.mode).toBe('in-process');
  expect(list.traces[0]).toMatchObject({ name: 'invoke_agent desk', agent: 'desk', spanCount: 4, status: 'ok' });
  expect(one.spans.map((s: any) => [s.depth, s.name])).toEqual([
    [0, 'invoke_agent desk'],
    [1, 'chat scripted'],
    [1, 'execute_tool order_lookup'],
    [1, 'chat scripted'],
  ]);
  expect(one.spans[1].parentSpanId).toBe(one.spans[0].spanId);
  await page.close!();
  expect(registrations()?.trace).toBeUndefined();
  expect(registrations()?.context).toBeUndefined();
});

test('an app’s SDK 1 provider takes the page’s processor too: its spans go to the app and show here; after close only to the app', async () => {
  const provider = new sdkV1.BasicTracerProvider();
  const exporter = new sdkV1.InMemorySpanExporter();
  provider.addSpanProcessor(new sdkV1.SimpleSpanProcessor(exporter));
  const manager = new asyncHooksV1.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(provider);
  try {
    const page = tracesPageWith()({} as StudioContext);
    await runDesk();
    const { list } = await answers(page);
    expect(list.collector).toEqual({ mode: 'app-collector', shown: true, kept: { traces: 100, spansPerTrace: 500 } });
    expect(list.traces.map((t: any) => t.name)).toEqual(['invoke_agent desk']);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('invoke_agent desk');
    await page.close!();
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBe(provider);
    await runDesk();
    expect((await answers(page)).list.traces).toHaveLength(1);
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent desk')).toHaveLength(2);
  } finally {
    trace.disable();
    context.disable();
    await provider.shutdown();
  }
});

/** Five traces of a root and three children each, through a provider (not registered) that feeds `buffer`. */
function fiveTraces(buffer: TraceBuffer): string[] {
  const tracer = new BasicTracerProvider({ spanProcessors: [buffer] }).getTracer('t');
  const traceIds: string[] = [];
  for (let i = 0; i < 5; i++) {
    const root = tracer.startSpan(`root-${i}`);
    traceIds.push(root.spanContext().traceId);
    const ctx = trace.setSpan(context.active(), root);
    for (let j = 0; j < 3; j++) tracer.startSpan(`child-${i}-${j}`, { attributes: { note: 'x'.repeat(25) } }, ctx).end();
    root.end();
  }
  return traceIds;
}

test('the buffer keeps the newest traces and a bounded number of spans per trace, and cuts long attributes', () => {
  const buffer = new TraceBuffer({ traces: 3, spansPerTrace: 2, attributeChars: 10 });
  const traceIds = fiveTraces(buffer);
  expect([...buffer.all().keys()]).toEqual(traceIds.slice(2));
  for (const [id, stored] of buffer.all()) {
    const i = traceIds.indexOf(id);
    expect(stored.spans.map((s) => s.name)).toEqual([`child-${i}-0`, `child-${i}-1`]);
    expect(stored.dropped).toBe(2);
    expect(stored.spans[0].attributes.note).toBe('xxxxxxxxxx… (15 more characters)');
  }
  expect(buffer.get(traceIds[0])).toBeUndefined();
});

test('the buffer drops whole traces, oldest first, to keep its total of spans', async () => {
  const buffer = new TraceBuffer({ traces: 100, totalSpans: 9 });
  const traceIds = fiveTraces(buffer);
  // Four spans a trace: two traces (8 spans) fit under 9.
  expect([...buffer.all().keys()]).toEqual(traceIds.slice(3));
  expect([...buffer.all().values()].map((t) => t.spans.length)).toEqual([4, 4]);
  await buffer.shutdown();
  fiveTraces(buffer);
  expect([...buffer.all().keys()]).toEqual(traceIds.slice(3)); // a shut buffer keeps nothing more
});

test('the OpenTelemetry SDK is loaded when a studio starts, not when toolwright/studio is imported', () => {
  const script = `
const loaded = () => ['sdk-trace-base', 'context-async-hooks'].filter((p) => Object.keys(require.cache).some((f) => f.includes('node_modules/@opentelemetry/' + p + '/')));
const { createStudio } = require('./src/studio/index.ts');
const { ToolRegistry } = require('./src/index.ts');
const before = loaded();
(async () => {
  const studio = await createStudio(ToolRegistry.build({ tools: [] }));
  const during = loaded();
  await studio.close();
  process.stdout.write(JSON.stringify({ before, during }));
})();`;
  const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'reflect-metadata', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual({ before: [], during: ['sdk-trace-base', 'context-async-hooks'] });
});
