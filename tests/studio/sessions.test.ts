/**
 * The Sessions page in a real browser, over sessions a real Agent stored in SQLite: browse by tenant
 * and user, open a session (history with tool calls and results, state, the paused run's approval),
 * search the user's memory; keyboard only, axe-core clean. Over HTTP: typed errors, a store that is
 * down, no store at all. The store listing itself runs on all four stores in tests/stores/listing.test.ts.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsNumber, IsString, MinLength } from 'class-validator';
import type { Browser, Page } from 'playwright-core';
import { Agent, AgentContext, AgentMemory, Param, ScriptedModel, SqliteStore, Tool, ToolRegistry } from 'toolwright';
import { RedisStore } from 'toolwright/stores';
import { createStudio, type Studio } from 'toolwright/studio';
import { freePort } from '../support/servers';
import { axeViolations, launchBrowser, newPage, screenshot, tabTo } from '../support/studio-browser';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}
class RefundInput extends OrderInput {
  @Param({ description: 'Amount in dollars' }) @IsNumber() amount!: number;
}
class FactInput {
  @Param({ description: 'A fact about the customer' }) @IsString() @MinLength(3) fact!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
class LookupTool {
  execute({ order_id }: OrderInput, context: AgentContext) {
    context.setState('last_order', { id: order_id, status: 'shipped' });
    return { order_id, status: 'shipped' };
  }
}

@Tool({ name: 'process_refund', description: 'Refund an order', input: RefundInput, approval: () => true })
class RefundTool {
  execute({ order_id, amount }: RefundInput) {
    return { refunded: order_id, amount };
  }
}

@Tool({ name: 'remember_fact', description: 'Remember a fact about the customer', input: FactInput, memory: true })
class RememberTool {
  execute({ fact }: FactInput, _context: AgentContext, memory: AgentMemory) {
    memory.addFact(fact);
    return { remembered: fact };
  }
}

jest.setTimeout(120_000);

const AGENT = 'desk';
const dir = mkdtempSync(join(tmpdir(), 'tw-studio-sessions-'));
let browser: Browser;
let store: SqliteStore;
let studio: Studio;

/** The sessions as a real agent leaves them: ada's chat with a lookup, remembered facts and a refund paused for approval; bob's; ada's in another tenant. */
async function seed(): Promise<Agent> {
  const call = (name: string, args: Record<string, unknown>, id: string) => ({ toolCalls: [{ id, name, arguments: args }] });
  const model = new ScriptedModel([
    call('lookup_order', { order_id: 'A-100' }, 'c1'),
    { text: 'Order A-100 has shipped.' },
    call('remember_fact', { fact: 'Prefers updates by email' }, 'c2'),
    call('remember_fact', { fact: 'Lives in Lisbon near the river' }, 'c3'),
    { text: 'Noted.' },
    call('process_refund', { order_id: 'A-100', amount: 20 }, 'c4'),
    { text: 'Hello Bob.' },
    { text: 'Hello from the other tenant.' },
  ]);
  const agent = new Agent({
    name: AGENT,
    instructions: 'You help.',
    model,
    tools: [LookupTool, RefundTool, RememberTool],
    store,
  });
  const ada = { sessionId: 'order-chat', userId: 'ada', tenantId: 'acme' };
  await agent.run('Where is my order A-100?', ada);
  await agent.run('Remember that I prefer email, and that I live in Lisbon.', ada);
  const paused = await agent.run('Refund 20 dollars for A-100, please.', ada);
  expect(paused.status).toBe('paused');
  await agent.run('Hi', { sessionId: 'bob-chat', userId: 'bob', tenantId: 'acme' });
  await agent.run('Hi', { sessionId: 'elsewhere', userId: 'ada', tenantId: 'globex' });
  return agent;
}

beforeAll(async () => {
  browser = await launchBrowser();
  store = new SqliteStore({ path: join(dir, 'state.db') });
  studio = await createStudio(await seed(), { userId: 'ada', tenantId: 'acme' });
});
afterAll(async () => {
  await studio?.close();
  await browser?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (s: Studio, path: string) =>
  fetch(`${s.origin}${path}`, { headers: { authorization: `Bearer ${s.token}` } }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as any,
  }));

async function openSessions(s: Studio): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${s.url}#/sessions`);
  await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
  return page;
}

test('lists the sessions of the header tenant and user, then by the filters typed, with memories; axe-clean', async () => {
  const before = await store.listSessions({ tenantId: 'acme' });
  const page = await openSessions(studio);
  expect(await page.getByLabel('Filter by tenant').inputValue()).toBe('acme');
  expect(await page.getByLabel('Filter by user').inputValue()).toBe('ada');
  const sessions = page.getByRole('table', { name: 'Sessions' });
  await sessions.getByRole('link', { name: 'order-chat' }).waitFor();
  expect(await sessions.getByRole('row').count()).toBe(2); // the header row and ada's one session in acme
  await page.getByText('1 sessions and 1 memories loaded.').waitFor();
  expect(await sessions.getByRole('row', { name: /order-chat/ }).innerText()).toMatch(/order-chat\s+ada\s+\d+\s+\d+\s+waiting/);
  expect(await page.getByRole('table', { name: 'Memories' }).getByRole('row', { name: /desk/ }).innerText()).toMatch(/desk\s+ada\s+2/);
  expect(await axeViolations(page)).toEqual([]);

  // Every user of the tenant, by keyboard: clear the user filter and press Enter.
  await page.getByLabel('Filter by user').fill('');
  await page.getByLabel('Filter by user').press('Enter');
  await sessions.getByRole('link', { name: 'bob-chat' }).waitFor();
  expect(await sessions.getByRole('link').allInnerTexts()).toEqual(['bob-chat', 'order-chat']);
  // Another tenant: only its own.
  await page.getByLabel('Filter by tenant').fill('globex');
  await page.getByRole('button', { name: 'Show' }).click();
  await sessions.getByRole('link', { name: 'elsewhere' }).waitFor();
  expect(await sessions.getByRole('link').allInnerTexts()).toEqual(['elsewhere']);
  await page.getByLabel('Filter by tenant').fill('nobody-here');
  await page.getByLabel('Filter by tenant').press('Enter');
  await page.getByText('No sessions are stored for these filters.').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
  // Browsing wrote nothing.
  expect(await store.listSessions({ tenantId: 'acme' })).toEqual(before);
});

test('opens a session by keyboard: history with tool calls and results, state, the paused approval; searches the memory', async () => {
  const page = await openSessions(studio);
  await page.getByRole('link', { name: 'order-chat' }).waitFor();
  await tabTo(page, 'a[href^="#/sessions/order-chat"]');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Session order-chat' }).waitFor();
  const historyList = page.getByRole('list', { name: 'History' });
  const text = await historyList.innerText();
  expect(text).toContain('Where is my order A-100?');
  expect(text).toMatch(/Calls lookup_order\s+\{\s+"order_id": "A-100"\s+\}/);
  expect(text).toMatch(/Result of lookup_order\s+\{\s+"order_id": "A-100",\s+"status": "shipped"\s+\}/);
  expect(text).toContain('Order A-100 has shipped.');
  // The paused call is not history yet: it is the paused run's, shown below.
  expect(text).not.toContain('Calls process_refund');
  const state = page.getByRole('table', { name: 'State' });
  expect(await state.getByRole('row', { name: /last_order/ }).innerText()).toMatch(/"status": "shipped"/);
  const approvals = page.getByRole('table', { name: 'Pending approvals' });
  expect(await approvals.getByRole('row', { name: /process_refund/ }).innerText()).toMatch(
    /process_refund\s+\{\s+"order_id": "A-100",\s+"amount": 20\s+\}\s+ada/,
  );
  expect(await page.getByRole('link', { name: 'Decide in the Chat page' }).getAttribute('href')).toBe('#/chat/order-chat');
  const entries = page.getByRole('table', { name: 'Entries (2)' });
  await entries.waitFor();
  expect(await entries.innerText()).toContain('Prefers updates by email');
  await screenshot(page, 'sessions-history');
  expect(await axeViolations(page)).toEqual([]);

  // The search box, by keyboard: its label names it, results are announced, ranked.
  await tabTo(page, '#memory-search-desk');
  await page.keyboard.type('lisbon');
  await page.keyboard.press('Enter');
  const results = page.getByRole('table', { name: 'Results for “lisbon”' });
  await results.waitFor();
  expect(await page.getByRole('status').filter({ hasText: 'result for “lisbon”' }).innerText()).toContain(
    '1 result for “lisbon”, best first.',
  );
  expect(await results.getByRole('row').nth(1).innerText()).toMatch(/^1\s+fact\s+Lives in Lisbon near the river/);
  // A typo still finds it (the store's search: prefixes, small typos).
  await page.getByLabel('Search desk memory').fill('updtes');
  await page.getByLabel('Search desk memory').press('Enter');
  await page.getByRole('table', { name: 'Results for “updtes”' }).getByText('Prefers updates by email').waitFor();
  await screenshot(page, 'sessions-memory');
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('a tenant with more sessions than a page: the next page by a "More sessions" button, none repeated', async () => {
  const ids = Array.from({ length: 53 }, (_, i) => `busy-${String(i).padStart(2, '0')}`);
  for (const sessionId of ids) await store.claimSession({ sessionId, tenantId: 'busy' }, 'carol');
  const page = await openSessions(studio);
  await page.getByLabel('Filter by tenant').fill('busy');
  await page.getByLabel('Filter by user').fill('');
  await page.getByLabel('Filter by user').press('Enter');
  const links = page.getByRole('table', { name: 'Sessions' }).getByRole('link');
  await page.getByRole('button', { name: 'More sessions' }).waitFor();
  expect(await links.count()).toBe(50);
  await page.getByRole('button', { name: 'More sessions' }).focus();
  await page.keyboard.press('Enter');
  await links.nth(52).waitFor();
  expect(await links.allInnerTexts()).toEqual(ids);
  expect(await page.getByRole('button', { name: 'More sessions' }).count()).toBe(0);
  await page.context().close();
});

test('a session that is not stored shows the typed error in the page, announced', async () => {
  const page = await newPage(browser);
  await page.goto(`${studio.url}#/sessions/no-such-session/acme`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.innerText()).toMatch(/RESOURCE_NOT_FOUND\s+No session "no-such-session" in tenant "acme" is stored\./);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('over HTTP: lists and reads as the page does; unknown ids 404; bad parameters a typed 400', async () => {
  const list = await api(studio, '/api/sessions?tenant=acme&limit=1');
  expect(list.status).toBe(200);
  expect(list.json.items).toHaveLength(1);
  const second = await api(studio, `/api/sessions?tenant=acme&limit=1&after=${list.json.next}`);
  expect([...list.json.items, ...second.json.items].map((s: { sessionId: string }) => s.sessionId).sort()).toEqual([
    'bob-chat',
    'order-chat',
  ]);
  const one = await api(studio, '/api/sessions/order-chat?tenant=acme');
  expect(one.json.pausedRun.approvals.map((a: { name: string }) => a.name)).toEqual(['process_refund']);
  expect(one.json.pausedRun.decider).toBe('ada');
  const found = await api(studio, `/api/memories/${AGENT}/ada/search?tenant=acme&q=email`);
  expect(found.json.results.map((r: { content: string }) => r.content)).toEqual(['Prefers updates by email']);

  const cases: Array<[string, number, string]> = [
    ['/api/sessions/order-chat', 404, 'RESOURCE_NOT_FOUND'], // no tenant: another partition
    ['/api/sessions/nope?tenant=acme', 404, 'RESOURCE_NOT_FOUND'],
    [`/api/memories/${AGENT}/nobody?tenant=acme`, 404, 'RESOURCE_NOT_FOUND'],
    [`/api/memories/${AGENT}/nobody/search?tenant=acme&q=x`, 404, 'RESOURCE_NOT_FOUND'],
    ['/api/sessions?bogus=1', 400, 'INVALID_REQUEST'],
    ['/api/sessions?tenant=a&tenant=b', 400, 'INVALID_REQUEST'],
    ['/api/sessions?limit=abc', 400, 'INVALID_REQUEST'],
    ['/api/sessions?limit=0', 400, 'INVALID_REQUEST'],
    ['/api/sessions?limit=9999', 400, 'INVALID_REQUEST'],
    ['/api/sessions?after=not-a-cursor', 400, 'INVALID_REQUEST'],
    ['/api/memories?user=a%00b', 400, 'INVALID_ID'],
    [`/api/sessions/x?tenant=${'t'.repeat(600)}`, 400, 'INVALID_ID'],
    [`/api/memories/${AGENT}/ada/search?tenant=acme`, 400, 'INVALID_REQUEST'],
    [`/api/memories/${AGENT}/ada/search?tenant=acme&q=${'x'.repeat(1001)}`, 400, 'INVALID_REQUEST'],
    [`/api/memories/${AGENT}/ada/search?tenant=acme&q=email&limit=-1`, 400, 'INVALID_REQUEST'],
  ];
  for (const [path, status, code] of cases) {
    const answer = await api(studio, path);
    expect([path, answer.status, answer.json.error?.code]).toEqual([path, status, code]);
    expect(typeof answer.json.error.message).toBe('string');
  }
  // A studio given the store but no agent reads the paused run as stored: the same approval, the same decider.
  const storeOnly = await createStudio(ToolRegistry.build({ tools: [LookupTool] }), { store });
  try {
    const stored = await api(storeOnly, '/api/sessions/order-chat?tenant=acme');
    expect(stored.json.pausedRun).toEqual(one.json.pausedRun);
    expect(stored.json.history).toEqual(one.json.history);
  } finally {
    await storeOnly.close();
  }
  // Without the token: refused before anything is read.
  expect((await fetch(`${studio.origin}/api/sessions?tenant=acme`)).status).toBe(401);
});

test('a store that is down: 503 STORE_UNAVAILABLE, shown in the page; no store at all: a typed error the page shows', async () => {
  const registry = ToolRegistry.build({ tools: [LookupTool] });
  const down = new RedisStore({ port: await freePort(), commandTimeoutMs: 300 });
  const downStudio = await createStudio(registry, { store: down });
  const bare = await createStudio(registry);
  try {
    const answer = await api(downStudio, '/api/sessions');
    expect([answer.status, answer.json.error.code]).toEqual([503, 'STORE_UNAVAILABLE']);
    expect((await api(downStudio, '/api/sessions/s1')).status).toBe(503);
    const page = await openSessions(downStudio);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/^STORE_UNAVAILABLE redis store is unavailable/);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();

    const none = await api(bare, '/api/sessions');
    expect([none.status, none.json.error.code]).toEqual([400, 'INVALID_CONFIG']);
    const barePage = await openSessions(bare);
    await barePage
      .getByRole('alert')
      .getByText(/The studio has no store to browse/)
      .waitFor();
    await barePage.context().close();
  } finally {
    await downStudio.close();
    await bare.close();
    await down.close();
  }
});
