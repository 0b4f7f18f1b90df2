/**
 * The Traces page in a real browser: an agent runs while the studio is up (the studio registered
 * the tracer provider), its trace is found in the list, opened as a timeline, read with the
 * keyboard alone; the API answers typed errors; closing the studio unregisters its provider.
 */
import 'reflect-metadata';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { IsString, MinLength } from 'class-validator';
import type { Browser, Page } from 'playwright-core';
import { Agent, AgentContext, InMemoryStore, Param, ScriptedModel, Tool, type ToolRegistry } from 'toolwright';
import { createStudio, type Studio } from 'toolwright/studio';
import { axeViolations, launchBrowser, newPage, screenshot, tabTo } from '../support/studio-browser';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
class LookupOrder {
  execute({ order_id }: OrderInput) {
    return { order_id, total_cents: 2000 };
  }
}

let charges = 0;
/** Fails its first call (the card network times out), succeeds after. */
@Tool({ name: 'charge_card', description: 'Charge the card on file for an order', input: OrderInput })
class ChargeCard {
  execute({ order_id }: OrderInput) {
    if (charges++ === 0) throw new Error('card network timed out');
    return { order_id, charged: true };
  }
}

const script = () =>
  new ScriptedModel(
    [
      { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-1' } }] },
      { toolCalls: [{ id: 'c2', name: 'charge_card', arguments: { order_id: 'A-1' } }] },
      { toolCalls: [{ id: 'c3', name: 'charge_card', arguments: { order_id: 'A-1' } }] },
      { text: 'Charged 20.00 for A-1.' },
    ],
    { name: 'acme:clerk-1' },
  );

let browser: Browser;
let studio: Studio | undefined;
let traceId: string;
let registry: ToolRegistry;

const get = (path: string, token = studio!.token) => fetch(`${studio!.origin}${path}`, { headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  browser = await launchBrowser();
  const agent = new Agent({
    name: 'clerk',
    model: script(),
    tools: [LookupOrder, ChargeCard],
    store: new InMemoryStore(),
    errorPolicy: 'redact',
  });
  registry = agent.registry;
  studio = await createStudio(agent);
  const result = await agent.run('Charge order A-1', { sessionId: 'traces-1', userId: 'alice' });
  expect(result.status).toBe('completed');
});
afterAll(async () => {
  await studio?.close();
  await browser?.close();
});

test('GET /api/traces lists the run: root span, agent, duration, status, token totals, span count', async () => {
  const res = await get('/api/traces');
  expect(res.status).toBe(200);
  const body = (await res.json()) as { collector: { mode: string }; traces: Array<Record<string, any>> };
  expect(body.collector.mode).toBe('in-process');
  expect(body.traces).toHaveLength(1);
  const [run] = body.traces;
  traceId = run.traceId;
  expect(run).toMatchObject({ name: 'invoke_agent clerk', agent: 'clerk', status: 'ok', errorCount: 1, spanCount: 8, complete: true });
  expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(run.durationMs).toBeGreaterThan(0);
  expect(run.tokens.input).toBeGreaterThan(0);
  expect(run.tokens.output).toBeGreaterThan(0);
});

test('GET /api/traces/:traceId: the spans in tree order, with offsets, status, error type and GenAI attributes', async () => {
  const res = await get(`/api/traces/${traceId}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { spans: Array<Record<string, any>>; tokens: { input: number; output: number } };
  expect(body.spans.map((s) => [s.depth, s.name])).toEqual([
    [0, 'invoke_agent clerk'],
    [1, 'chat clerk-1'],
    [1, 'execute_tool lookup_order'],
    [1, 'chat clerk-1'],
    [1, 'execute_tool charge_card'],
    [1, 'chat clerk-1'],
    [1, 'execute_tool charge_card'],
    [1, 'chat clerk-1'],
  ]);
  const [root, ...children] = body.spans;
  for (const child of children) expect(child.parentSpanId).toBe(root.spanId);
  const offsets = children.map((s) => s.startOffsetMs);
  expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
  const failed = body.spans.filter((s) => s.status === 'error');
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ name: 'execute_tool charge_card', errorType: 'TOOL_FAILED', kind: 'internal' });
  expect(failed[0].attributes['error.type']).toBe('TOOL_FAILED');
  const chats = body.spans.filter((s) => s.operation === 'chat');
  expect(chats.every((s) => s.kind === 'client' && s.tokens.input > 0)).toBe(true);
  expect(chats.reduce((n, s) => n + s.tokens.input, 0)).toBe(body.tokens.input);
  expect(root.attributes['gen_ai.usage.input_tokens']).toBe(body.tokens.input);
  expect(children[1].attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' });
  expect(root.durationMs).toBeGreaterThanOrEqual(Math.max(...children.map((s) => s.endOffsetMs)) - 0.001);
});

test('a tool called outside a run (as the Tools page does) is a trace of its own, named by its tool', async () => {
  await registry.call('lookup_order', { order_id: 'B-7' }, new AgentContext({ sessionId: 'tools-page', userId: 'studio' }));
  const body = (await (await get('/api/traces')).json()) as { traces: Array<Record<string, any>> };
  expect(body.traces[0]).toMatchObject({
    name: 'execute_tool lookup_order',
    tool: 'lookup_order',
    agent: null,
    tokens: null,
    spanCount: 1,
  });
  expect(body.traces[1].traceId).toBe(traceId);
});

test('bad input gets a typed error: unknown trace 404, malformed id 400, bad limit 400, no token 401', async () => {
  const unknown = await get(`/api/traces/${'0'.repeat(31)}1`);
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as any).error.code).toBe('RUN_NOT_FOUND');
  const malformed = await get('/api/traces/not-a-trace');
  expect(malformed.status).toBe(400);
  expect(((await malformed.json()) as any).error.code).toBe('INVALID_ID');
  for (const limit of ['0', '-1', 'ten', '1e3']) {
    const res = await get(`/api/traces?limit=${limit}`);
    expect([res.status, ((await res.json()) as any).error.code]).toEqual([400, 'INVALID_REQUEST']);
  }
  expect(((await (await get('/api/traces?limit=1')).json()) as any).traces).toHaveLength(1);
  expect((await get('/api/traces', 'x'.repeat(32))).status).toBe(401);
});

async function openList(page: Page): Promise<void> {
  await page.goto(`${studio!.url}#/traces`);
  await page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
  await page.getByRole('link', { name: 'invoke_agent clerk' }).waitFor();
}

test('keyboard only: from the list into the trace, then a span’s details; the timeline tells turns, calls and the error apart', async () => {
  const page = await newPage(browser);
  await openList(page);
  const row = page.getByRole('row', { name: /invoke_agent clerk/ });
  await expect(row.textContent()).resolves.toMatch(/clerk.*OK \(1 failed span\)/);
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'traces-list');

  await page.locator('body').focus();
  await tabTo(page, `a.trace-link[href="#/traces/${traceId}"]`);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Trace: invoke_agent clerk' }).waitFor();
  expect(page.url()).toContain(`#/traces/${traceId}`);

  const rows = page.locator('.timeline .span-row');
  const labels = await rows.locator('.span-kind').allTextContents();
  expect(labels).toEqual(['Agent run', 'Model turn', 'Tool call', 'Model turn', 'Tool call', 'Model turn', 'Tool call', 'Model turn']);
  const names = await rows.locator('.span-name').allTextContents();
  expect(names.filter((n) => n.startsWith('execute_tool'))).toEqual([
    'execute_tool lookup_order',
    'execute_tool charge_card',
    'execute_tool charge_card',
  ]);
  // The failed call says so in text (not by colour alone); the retry does not.
  expect(await rows.nth(4).locator('.span-error-mark').textContent()).toBe('✕ Error TOOL_FAILED');
  expect(await rows.locator('.span-error-mark').count()).toBe(1);
  expect(await rows.nth(4).getAttribute('class')).toContain('span-failed');
  // Each model turn shows its tokens, each row its duration.
  for (const i of [1, 3, 5, 7])
    expect(await rows.nth(i).locator('.span-facts').textContent()).toMatch(/^[\d.]+ (ms|s) · \d+ in \/ \d+ out tokens$/);
  expect(await rows.nth(2).locator('.span-facts').textContent()).toMatch(/^[\d.]+ (ms|s)$/);
  await expect(page.locator('.trace-summary').textContent()).resolves.toMatch(/8 spans · took .* · \d+ input and \d+ output tokens/);
  expect(await axeViolations(page)).toEqual([]);

  // Tab into the timeline, arrow down to the failed call, Enter: its details.
  await tabTo(page, '.timeline button.span-label');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
  expect(await page.evaluate('document.activeElement.closest(".span-row").dataset.spanId')).toBe(
    await rows.nth(4).getAttribute('data-span-id'),
  );
  await page.keyboard.press('Enter');
  const details = page.locator('#span-details');
  await details.getByRole('heading', { name: 'Span details: execute_tool charge_card' }).waitFor();
  await expect(details.textContent()).resolves.toMatch(/Error: TOOL_FAILED/);
  expect(await details.getByRole('row', { name: /gen_ai\.tool\.name/ }).textContent()).toContain('charge_card');
  expect(await rows.nth(4).locator('button').getAttribute('aria-current')).toBe('true');
  await screenshot(page, 'traces-timeline');
  expect(await axeViolations(page)).toEqual([]);

  // Space on a model turn shows its token usage among its attributes.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Space');
  await details.getByRole('heading', { name: 'Span details: chat clerk-1' }).waitFor();
  expect(await details.getByRole('row', { name: /gen_ai\.usage\.input_tokens/ }).textContent()).toMatch(/\d+$/);
  await page.context().close();
});

test('bars are placed by start and sized by duration through the CSSOM, under the studio’s CSP (not bypassed)', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(
    'globalThis.__cspViolations = []; addEventListener("securitypolicyviolation", (e) => __cspViolations.push(e.violatedDirective));',
  );
  await page.goto(`${studio!.url}#/traces/${traceId}`);
  await page.locator('.timeline .span-row').nth(7).waitFor();
  const boxes = await page.evaluate<
    Array<{ left: number; width: number; track: number }>
  >(`[...document.querySelectorAll('.span-bar')].map((b) => {
    const r = b.getBoundingClientRect(), t = b.parentElement.getBoundingClientRect();
    return { left: r.left - t.left, width: r.width, track: t.width };
  })`);
  expect(boxes).toHaveLength(8);
  const [root, ...children] = boxes;
  expect(root.left).toBeCloseTo(0, 0);
  expect(root.width).toBeCloseTo(root.track, 0);
  // Children start later, one after another, and lie within the root.
  for (let i = 1; i < children.length; i++) expect(children[i].left).toBeGreaterThanOrEqual(children[i - 1].left);
  expect(children[children.length - 1].left).toBeGreaterThan(0);
  for (const child of children) expect(child.left + child.width).toBeLessThanOrEqual(root.track + 1);
  const indents = await page.evaluate<number[]>(
    `[...document.querySelectorAll('.span-label')].map((b) => parseFloat(getComputedStyle(b).paddingLeft))`,
  );
  expect(indents[1]).toBeGreaterThan(indents[0]);
  expect(await page.evaluate('globalThis.__cspViolations')).toEqual([]);
  await context.close();
});

test('a new run appears after Refresh', async () => {
  const page = await newPage(browser);
  await openList(page);
  const agent = new Agent({
    name: 'second',
    model: new ScriptedModel([{ text: 'Hi.' }]),
    tools: [LookupOrder],
    store: new InMemoryStore(),
  });
  await agent.run('Hello', { sessionId: 'traces-2' });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('link', { name: 'invoke_agent second' }).waitFor();
  // Newest first.
  expect(await page.locator('a.trace-link').allTextContents()).toEqual([
    'invoke_agent second',
    'execute_tool lookup_order',
    'invoke_agent clerk',
  ]);
  await page.context().close();
});

test('an unknown trace in the URL says so', async () => {
  const page = await newPage(browser);
  await page.goto(`${studio!.url}#/traces/${'f'.repeat(32)}`);
  await page.getByRole('heading', { level: 1, name: 'Trace not found' }).waitFor();
  expect(await page.getByRole('alert').textContent()).toContain('No trace');
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('after close() the studio’s provider is unregistered: spans are no longer recorded', async () => {
  const registrations = () => (globalThis as Record<symbol, object>)[Symbol.for('opentelemetry.js.api.1')];
  expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBeInstanceOf(BasicTracerProvider);
  expect(trace.getTracer('t').startSpan('s').isRecording()).toBe(true);
  await studio!.close();
  studio = undefined;
  expect(trace.getTracer('t').startSpan('s').isRecording()).toBe(false);
  expect(trace.getTracerProvider()).toBeInstanceOf(ProxyTracerProvider);
  expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).not.toBeInstanceOf(BasicTracerProvider);
  // Neither the provider nor the context manager is left registered: an app may register its own.
  expect(Object.keys(registrations())).toEqual(['version']);
});
