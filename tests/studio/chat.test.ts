/**
 * The Chat page in a real browser: the support desk (its embedded script, a SQLite store on a temp
 * file) run to a refund approval, decided in the page (approved, rejected with a reason, approved
 * with edited arguments, by keyboard alone), and the chat restored by a reload, a pending approval
 * included. Over HTTP: the endpoint's own rules (another user's chat, malformed bodies) hold.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Agent } from 'toolwright';
import { SqliteStore } from 'toolwright/stores';
import { createStudio, type Studio } from 'toolwright/studio';
import { createSupportApp } from '../../samples/tools';
import { supportDeskModel } from '../../samples/support-desk/script';
import { seedShop, type Shop } from '../../samples/support-desk/shop';
import { createStudioDesk } from '../../samples/support-desk/studio';
import { axeViolations, launchBrowser, newPage, screenshot, tabTo } from '../support/studio-browser';

const ALICE = { userId: 'alice', tenantId: 'acme' };
const ASK_REFUND = 'The mug in it arrived broken. Please refund 55 dollars for that order.';

let browser: Browser;
let dir: string;
let store: SqliteStore;
let shop: Shop;
let desk: Agent;
let studio: Studio;

beforeAll(async () => {
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'studio-chat-'));
  store = new SqliteStore({ path: join(dir, 'state.db') });
});
// A fresh shop per test (A-100's refundable total is 59.90); the store, with every test's chats, is shared.
beforeEach(async () => {
  shop = seedShop();
  desk = createStudioDesk({ store, shop, model: supportDeskModel() });
  studio = await createStudio(desk, ALICE);
});
afterEach(() => studio.close());
afterAll(async () => {
  await browser?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openChat(chatId: string): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${studio.url}#/chat/${chatId}`);
  await page.getByRole('heading', { level: 1, name: 'Chat' }).waitFor();
  await page.getByText(chatId, { exact: true }).waitFor();
  return page;
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
}

const log = (page: Page) => page.getByRole('log', { name: 'Conversation' });

/** The desk looks A-100 up, then asks to refund 55.00: over the 50.00 limit, the call waits for a person. */
async function toApproval(page: Page): Promise<void> {
  await say(page, 'Where is my order A-100?');
  await log(page).getByText('Order A-100: 59.90 USD, shipped.').waitFor();
  await say(page, ASK_REFUND);
  await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
}

function refundCall(page: Page) {
  return log(page).getByRole('region', { name: 'Tool call process_refund' }).last();
}

test('a run to an approval, approved in the page: the refund is made once, and a reload shows the finished chat', async () => {
  const page = await openChat('chat-approve');
  await toApproval(page);
  // The model's first attempt ("55 dollars") failed validation and was corrected: both calls are shown.
  await expect(log(page).getByText('INVALID_ARGUMENTS').first().isVisible()).resolves.toBe(true);
  await expect(refundCall(page).locator('pre').first().textContent()).resolves.toContain('"amount_cents": 5500');
  await expect(refundCall(page).getByText('waiting for approval').isVisible()).resolves.toBe(true);
  expect(shop.refunds.refundsFor('A-100')).toEqual([]);
  await screenshot(page, 'chat-approval');
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await log(page).getByText('Done: refund RF-1 of 55.00 USD for order A-100 is approved.').waitFor();
  await expect(refundCall(page).getByRole('heading', { name: 'Result' }).isVisible()).resolves.toBe(true);
  expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 5500, requestedBy: 'alice' })]);
  await screenshot(page, 'chat-finished');
  expect(await axeViolations(page)).toEqual([]);

  await page.reload();
  await log(page).getByText('Done: refund RF-1 of 55.00 USD for order A-100 is approved.').waitFor();
  await expect(log(page).getByText(ASK_REFUND).isVisible()).resolves.toBe(true);
  await expect(log(page).getByText('Order A-100: 59.90 USD, shipped.').isVisible()).resolves.toBe(true);
  await expect(refundCall(page).getByText('"refund_id": "RF-1"').isVisible()).resolves.toBe(true);
  expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  expect(shop.refunds.refundsFor('A-100')).toHaveLength(1);
  await page.context().close();
});

test('rejected with a reason: nothing is refunded, the model is told the reason, and the page shows it', async () => {
  const page = await openChat('chat-reject');
  await toApproval(page);
  // Escape leaves the rejection unsent: the three buttons are back, focus on Approve.
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByLabel('Reason (optional)').press('Escape');
  await expect(page.evaluate('document.activeElement?.textContent')).resolves.toBe('Approve');
  expect(await page.getByLabel('Reason (optional)').count()).toBe(0);
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByLabel('Reason (optional)').fill('Send the mug back first');
  await page.getByRole('button', { name: 'Send rejection' }).click();
  await log(page)
    .getByText(/^Sorry, the refund did not go through/)
    .waitFor();
  await expect(refundCall(page).getByText('Rejected: Send the mug back first').isVisible()).resolves.toBe(true);
  expect(shop.refunds.refundsFor('A-100')).toEqual([]);
  const stored = await desk.loadConversation({ sessionId: 'chat-reject', ...ALICE });
  const rejected = stored.history.filter((m) => m.role === 'tool' && m.name === 'process_refund').at(-1);
  expect(rejected?.content).toContain('A human rejected this call: Send the mug back first');
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('edited, then approved: an invalid edit is refused on its field or by the agent, and the tool runs with the edited arguments', async () => {
  const page = await openChat('chat-edit');
  await toApproval(page);
  await page.getByRole('button', { name: 'Edit' }).click();
  const area = page.getByLabel('Arguments (JSON)');
  await expect(area.evaluate((node) => node === (globalThis as any).document.activeElement)).resolves.toBe(true);

  // Not JSON: refused in the page, on the field.
  await area.fill('{ "amount_cents": ');
  await page.getByRole('button', { name: 'Approve with these arguments' }).click();
  await expect(area.getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(page.locator(`#${await area.getAttribute('aria-describedby')}`).textContent()).resolves.toMatch(/^Not valid/);
  expect(await axeViolations(page)).toEqual([]);

  // JSON the tool's validation refuses: the agent answers INVALID_APPROVAL (409), nothing is decided, the buttons are back.
  await area.fill('{ "amount_cents": "lots", "reason": "Mug arrived broken" }');
  await page.getByRole('button', { name: 'Approve with these arguments' }).click();
  await page.getByRole('alert').getByText('INVALID_APPROVAL').waitFor();
  await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  expect(shop.refunds.refundsFor('A-100')).toEqual([]);

  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Arguments (JSON)').fill('{ "amount_cents": 3000, "reason": "Mug arrived broken (edited)" }');
  await page.getByRole('button', { name: 'Approve with these arguments' }).click();
  await log(page).getByText('Done: refund RF-1 of 30.00 USD for order A-100 is approved.').waitFor();
  expect(await page.getByRole('alert').isVisible()).toBe(false);
  expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 3000, reason: 'Mug arrived broken (edited)' })]);
  await expect(refundCall(page).getByRole('heading', { name: 'Approved with arguments' }).isVisible()).resolves.toBe(true);
  // The stored result is the edited call's (the history keeps the model's own call beside it).
  const stored = await desk.loadConversation({ sessionId: 'chat-edit', ...ALICE });
  const result = stored.history.filter((m) => m.role === 'tool' && m.name === 'process_refund').at(-1);
  expect(JSON.parse(result!.content as string)).toMatchObject({ status: 'success', amount_cents: 3000, refund_id: 'RF-1' });
  await page.context().close();
});

test('a pending approval survives a reload, and is approved with the keyboard alone', async () => {
  const page = await openChat('chat-reload');
  await toApproval(page);
  await page.reload();
  await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  await expect(log(page).getByText(ASK_REFUND).isVisible()).resolves.toBe(true);
  await expect(refundCall(page).getByText('waiting for approval').isVisible()).resolves.toBe(true);
  expect(await axeViolations(page)).toEqual([]);

  await page.locator('body').focus();
  await tabTo(page, '.chat-approval button.primary');
  await page.keyboard.press('Enter');
  await log(page).getByText('Done: refund RF-1 of 55.00 USD for order A-100 is approved.').waitFor();
  expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 5500 })]);
  // Focus went to the message box: the next message is typed and sent by keyboard too.
  await expect(page.evaluate('document.activeElement?.id')).resolves.toBe('chat-input');
  await page.keyboard.type('Where is my order A-101?');
  await page.keyboard.press('Enter');
  await log(page).getByText('Order A-101: 120.00 USD, delivered.').waitFor();
  await page.context().close();
});

test('rejected, and edited then approved, with the keyboard alone', async () => {
  const page = await openChat('chat-keys-reject');
  await toApproval(page);
  await page.locator('body').focus();
  await tabTo(page, '.chat-approval button.danger');
  await page.keyboard.press('Enter');
  // Focus is in the reason field: typed, then Tab to "Send rejection".
  await expect(page.evaluate('document.activeElement?.tagName')).resolves.toMatch(/^(INPUT|TEXTAREA)$/);
  await page.keyboard.type('Not by keyboard today');
  await tabTo(page, '.chat-approval button.danger', 5);
  await expect(page.evaluate('document.activeElement?.textContent')).resolves.toBe('Send rejection');
  await page.keyboard.press('Enter');
  await refundCall(page).getByText('Rejected: Not by keyboard today').waitFor();
  expect(shop.refunds.refundsFor('A-100')).toEqual([]);

  const edit = await openChat('chat-keys-edit');
  await toApproval(edit);
  await edit.locator('body').focus();
  await tabTo(edit, '.chat-approval button.secondary');
  await edit.keyboard.press('Enter');
  await expect(edit.evaluate('document.activeElement?.tagName')).resolves.toBe('TEXTAREA');
  await edit.keyboard.press('Control+A');
  await edit.keyboard.type('{ "amount_cents": 2500, "reason": "Keyboard edit" }');
  await tabTo(edit, '.chat-approval button.primary', 5);
  await expect(edit.evaluate('document.activeElement?.textContent')).resolves.toBe('Approve with these arguments');
  await edit.keyboard.press('Enter');
  await log(edit).getByText('Done: refund RF-1 of 25.00 USD for order A-100 is approved.').waitFor();
  expect(shop.refunds.refundsFor('A-100')).toEqual([expect.objectContaining({ amountCents: 2500, reason: 'Keyboard edit' })]);
  await page.context().close();
  await edit.context().close();
});

test('streamed text is shown as it arrives, before the run ends; Stop gives the request up and the chat goes on', async () => {
  const slow = await createStudio(createStudioDesk({ store, shop, model: supportDeskModel({ chunkDelayMs: 120 }) }), ALICE);
  try {
    const page = await newPage(browser);
    await page.goto(`${slow.url}#/chat/chat-stream`);
    await say(page, 'Hi, it is Alice.');
    const full = 'Hello Alice, nice to meet you! How can I help?';
    // Part of the answer on the page, not all of it yet: the deltas are applied as they come.
    await page.waitForFunction((text) => {
      const shown = (globalThis as any).document.querySelector('.chat-assistant .chat-text')?.textContent ?? '';
      return shown.length > 0 && shown.length < text.length && text.startsWith(shown);
    }, full);
    await log(page).getByText(full, { exact: true }).waitFor();

    // Stop, mid-answer: the request is given up (the handler cancels the run), and the chat goes on.
    await say(page, 'Where is my order A-100?');
    await log(page).getByText('Order A-100: 59.90 USD, shipped.').waitFor();
    await say(page, 'Hi, it is Alice.');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.chat-assistant .chat-text').length === 3);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('alert').getByText('Stopped.').waitFor();
    await expect(page.getByRole('button', { name: 'Send' }).isEnabled()).resolves.toBe(true);
    await say(page, 'And what about order A-200?');
    await log(page).getByText('I am sorry, I cannot share anything about that order: it is not on your account.').waitFor();
    await page.context().close();
  } finally {
    await slow.close();
  }
});

test('"New chat" starts a chat of its own id; #/chat alone gets one', async () => {
  const page = await openChat('chat-new');
  await say(page, 'Hi, it is Alice.');
  await log(page)
    .getByText(/^(Hello|Welcome)/)
    .waitFor();
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.waitForFunction(() => !(globalThis as any).location.hash.endsWith('/chat-new'));
  const hash = await page.evaluate<string>('location.hash');
  expect(hash).toMatch(/^#\/chat\/[0-9a-f-]{36}$/);
  await page.getByText(decodeURIComponent(hash.split('/')[2]), { exact: true }).waitFor();
  expect(await log(page).getByRole('listitem').count()).toBe(0);

  await page.goto(`${studio.url}#/chat`);
  await page.waitForFunction(() => /^#\/chat\/[0-9a-f-]{36}$/.test((globalThis as any).location.hash));
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  await page.context().close();
});

describe('over HTTP', () => {
  const call = (path: string, init: RequestInit & { user?: string } = {}) =>
    fetch(`${studio.origin}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${studio.token}`,
        'x-studio-user': init.user ?? 'alice',
        'x-studio-tenant': 'acme',
        ...(init.headers as Record<string, string>),
      },
    });
  const message = (text: string) => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });

  /** A chat of alice's, made over HTTP as the page makes it. */
  async function aliceChat(): Promise<void> {
    const res = await call('/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'chat-http', messages: [message('Where is my order A-100?')], trigger: 'submit-message' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toContain('"type":"finish"');
  }

  test("another user's chat id answers 403, for GET and POST, and the chat is unchanged", async () => {
    await aliceChat();
    const get = await call('/api/chat?id=chat-http', { user: 'bob' });
    expect(get.status).toBe(403);
    expect(await get.json()).toMatchObject({ error: { code: 'SESSION_FORBIDDEN' } });
    const post = await call('/api/chat', {
      method: 'POST',
      user: 'bob',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'chat-http', messages: [message('Where is my order A-100?')] }),
    });
    expect(post.status).toBe(403);
    expect(await post.json()).toMatchObject({ error: { code: 'SESSION_FORBIDDEN' } });
    const own = await call('/api/chat?id=chat-http');
    expect(own.status).toBe(200);
    const { messages } = (await own.json()) as { messages: Array<{ role: string }> };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  test('malformed bodies answer a typed 400 (415 when not JSON), before anything runs', async () => {
    const post = (body: string, type = 'application/json') =>
      call('/api/chat', { method: 'POST', headers: { 'content-type': type }, body });
    for (const [body, pattern] of [
      ['{', /not valid JSON/],
      ['[]', /JSON object/],
      ['{"id":"chat-bad","messages":"hi"}', /no "messages"/],
      ['{"id":"chat-bad","messages":[{"id":"1","role":"user"}]}', /not a UIMessage/],
      ['{"id":"chat-bad","messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"  "}]}]}', /no text/],
      ['{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"hi"}]}]}', /no chat id/],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe('INVALID_REQUEST');
      expect(json.error.message).toMatch(pattern);
    }
    const text = await post('hello', 'text/plain');
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
    const approval = await post(
      JSON.stringify({
        id: 'chat-http',
        messages: [
          {
            id: 'a1',
            role: 'assistant',
            parts: [
              {
                type: 'tool-process_refund',
                toolCallId: 'c1',
                state: 'approval-responded',
                approval: { id: 'c1', approved: true, arguments: [1] },
              },
            ],
          },
        ],
      }),
    );
    expect(approval.status).toBe(400);
    expect(await approval.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/"arguments"/) } });
    expect(await store.loadSession({ sessionId: 'chat-bad', tenantId: 'acme' })).toBeUndefined();
  });

  test('without the token: 401; a GET without an id: 400', async () => {
    await aliceChat();
    const bare = await fetch(`${studio.origin}/api/chat?id=chat-http`);
    expect(bare.status).toBe(401);
    const noId = await call('/api/chat');
    expect(noId.status).toBe(400);
    expect(await noId.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
  });
});

describe('a studio with a registry only', () => {
  let registryStudio: Studio;
  beforeAll(async () => {
    registryStudio = await createStudio(createSupportApp().registry);
  });
  afterAll(() => registryStudio.close());

  test('the routes answer a typed error and the page says there is no agent', async () => {
    for (const init of [{}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }]) {
      const res = await fetch(`${registryStudio.origin}/api/chat?id=x`, {
        ...init,
        headers: { authorization: `Bearer ${registryStudio.token}`, ...(init.headers ?? {}) },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/registry only/) } });
    }
    const page = await newPage(browser);
    await page.goto(`${registryStudio.url}#/chat/some-chat`);
    await page.getByText(/started with a registry only/).waitFor();
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});
