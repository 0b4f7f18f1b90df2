/**
 * The Tools page in a real browser (Debian's Chromium): reach `process_refund` with the keyboard,
 * see a bad amount refused on its field, fix it and see the result; the provider schemas side by
 * side; a form with nested objects, arrays, enums, booleans, numbers and dates round-trips; axe-core
 * finds nothing on each state; a tool another user may not see is unknown to them.
 */
import 'reflect-metadata';
import type { Browser, Page } from 'playwright-core';
import { createStudio, type Studio } from 'toolwright/studio';
import { axeViolations, launchBrowser, newPage, screenshot, tabTo } from '../support/studio-browser';
import { createSupportApp } from '../../samples/tools';
import { fixtureRegistry, wipes } from './tools-fixture';

let browser: Browser;
let support: Studio;
let fixtures: Studio;

beforeAll(async () => {
  browser = await launchBrowser();
  support = await createStudio(createSupportApp().registry, { userId: 'alice', tenantId: 'acme' });
  fixtures = await createStudio(fixtureRegistry(), { userId: 'admin' });
});
afterAll(async () => {
  await support?.close();
  await fixtures?.close();
  await browser?.close();
});

async function open(studio: Studio, hash = '#/tools'): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${studio.url}${hash}`);
  await page.getByRole('heading', { level: 1, name: 'Tools' }).waitFor();
  return page;
}

const focusedId = (page: Page) => page.evaluate<string | undefined>('document.activeElement?.id');

test('process_refund: reached with the keyboard, a bad amount shows on its field, the fixed call shows the result', async () => {
  const page = await open(support);
  await page.locator('.tool-list a').first().waitFor();
  await page.locator('body').focus();
  await tabTo(page, '.tool-list a');
  // Arrow keys move through the list; Enter opens the tool, and focus lands on its title.
  for (let i = 0; i < 10; i++) {
    const text = await page.evaluate<string>('document.activeElement?.textContent');
    if (text.startsWith('process_refund')) break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 2, name: 'process_refund' }).waitFor();
  expect(await page.evaluate('location.hash')).toBe('#/tools/process_refund');
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('process_refund');

  const amount = page.getByLabel(/^amount_cents/);
  const order = page.getByLabel(/^order_id/);
  const reason = page.getByLabel(/^reason/);
  await tabTo(page, `#${await order.getAttribute('id')}`);
  await page.keyboard.type('A-100');
  await page.keyboard.press('Tab');
  await page.keyboard.type('12.5');
  await page.keyboard.press('Tab');
  await page.keyboard.type('arrived broken');
  await tabTo(page, 'button[type="submit"]');
  await page.keyboard.press('Enter');

  const error = page.locator('.field-error');
  await error.waitFor();
  expect(await error.count()).toBe(1);
  expect(await error.textContent()).toMatch(/amount_cents must be an integer/);
  expect(await amount.getAttribute('aria-invalid')).toBe('true');
  expect((await amount.getAttribute('aria-describedby'))?.split(' ')).toContain(await error.getAttribute('id'));
  expect(await reason.getAttribute('aria-invalid')).toBeNull();
  expect(await focusedId(page)).toBe(await amount.getAttribute('id'));
  expect(await page.locator('.error-summary').textContent()).toContain('amount_cents');
  await screenshot(page, 'tools-field-error');
  expect(await axeViolations(page)).toEqual([]);

  // Focus is on the amount: fix it and send again.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('1250');
  await tabTo(page, 'button[type="submit"]');
  await page.keyboard.press('Enter');
  const result = page.getByRole('heading', { level: 3, name: 'Result' });
  await result.waitFor();
  const answer = JSON.parse((await page.locator('.result pre').textContent())!);
  expect(answer).toMatchObject({ status: 'success', order_id: 'A-100', amount_cents: 1250, currency: 'USD' });
  // The panel holds the title and the answer, nothing else.
  expect(await page.locator('.result').textContent()).toBe(`Result${await page.locator('.result pre').textContent()}`);
  expect(await page.locator('.field-error').count()).toBe(0);
  expect(await amount.getAttribute('aria-invalid')).toBeNull();
  expect(await page.locator('.error-summary').isHidden()).toBe(true);
  await screenshot(page, 'tools-result');
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test("each provider's schema side by side, and the strict fallbacks with their reasons", async () => {
  const page = await open(support, '#/tools/process_refund');
  const figures = page.locator('.schema-grid figure');
  await figures.first().waitFor();
  expect(await page.locator('.schema-grid figcaption').allTextContents()).toEqual([
    'OpenAI',
    'OpenAI (strict)',
    'Anthropic',
    'Anthropic (strict)',
    'Gemini',
    'MCP',
  ]);
  const schema = async (label: string) => JSON.parse((await page.getByRole('group', { name: label, exact: true }).textContent())!);
  expect((await schema('OpenAI (strict)')).function.strict).toBe(true);
  expect((await schema('OpenAI (strict)')).function.parameters.required).toEqual(['order_id', 'amount_cents', 'reason']);
  expect((await schema('OpenAI')).function.parameters.required).toEqual(['reason']);
  expect((await schema('Anthropic')).input_schema.properties.amount_cents.minimum).toBe(1);
  expect((await schema('Gemini')).name).toBe('process_refund');
  expect((await schema('MCP')).inputSchema.required).toEqual(['reason']);
  // Side by side: the first two columns share a row.
  const [a, b] = [await figures.nth(0).boundingBox(), await figures.nth(1).boundingBox()];
  expect(a!.y).toBe(b!.y);
  expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
  expect(await page.locator('.fallbacks').textContent()).toContain('None');
  await page.locator('.schemas').scrollIntoViewIfNeeded();
  await screenshot(page, 'tools-schemas');
  expect(await axeViolations(page)).toEqual([]);

  // A free-form object: both strict modes fell back, and the page says why.
  const other = await open(fixtures, '#/tools/wipe_account');
  await other.locator('.fallbacks li').first().waitFor();
  const reasons = await other.locator('.fallbacks li').allTextContents();
  expect(reasons).toHaveLength(2);
  expect(reasons[0]).toMatch(/^OpenAI: sent non-strict, because .*free-form object/);
  expect(reasons[1]).toMatch(/^Anthropic: sent non-strict, because .*free-form object/);
  await page.context().close();
  await other.context().close();
});

test('a form with nested objects, arrays of objects and of strings, enums, booleans, numbers and dates round-trips', async () => {
  const page = await open(fixtures, '#/tools/plan_shipment');
  await page.getByRole('heading', { level: 2, name: 'plan_shipment' }).waitFor();
  const address = page.getByRole('group', { name: /^address/ });
  expect(await address.locator('legend').first().textContent()).toMatch(/^address/);
  await address.getByLabel(/^street/).fill('Main 1');
  await address.getByLabel(/^city/).fill('X');
  // The enum is a select of exactly its values; it is left unchosen for now.
  expect(
    await address
      .getByLabel(/^country/)
      .locator('option')
      .allTextContents(),
  ).toEqual(['Choose…', 'US', 'DE', 'FR']);
  // minItems 1: one item is there to start with; add a second with the keyboard.
  const items = page.getByRole('group', { name: /^items/ });
  expect(await items.locator('fieldset.item').count()).toBe(1);
  await items.getByRole('button', { name: 'Add an item to items' }).focus();
  await page.keyboard.press('Enter');
  expect(await items.locator('fieldset.item').count()).toBe(2);
  const item = (i: number) => items.getByRole('group', { name: `items item ${i + 1}` });
  await item(0).getByLabel(/^sku/).fill('AB');
  await item(0)
    .getByLabel(/^quantity/)
    .fill('2');
  await item(1).getByLabel(/^sku/).fill('SKU-9');
  await item(1)
    .getByLabel(/^quantity/)
    .fill('1');
  await page.getByLabel(/^speed/).selectOption('express');
  // An optional boolean can be left out, or sent as true or as false (a checkbox could not say false).
  expect(await page.getByLabel(/^gift/).locator('option').allTextContents()).toEqual(['(not set)', 'true', 'false']);
  await page.getByLabel(/^gift/).selectOption({ label: 'false' });
  // A number the browser cannot read ("1e") is still sent, so the validator names the field.
  await page.getByLabel(/^weight_kg/).focus();
  await page.keyboard.type('1e');
  expect(await page.getByLabel(/^ship_on/).getAttribute('type')).toBe('date');
  await page.getByLabel(/^ship_on/).fill('2026-12-24');
  expect(await page.getByLabel(/^deliver_by/).getAttribute('type')).toBe('datetime-local');
  await page.getByLabel(/^deliver_by/).fill('2026-12-30T10:15:00');
  const labels = page.getByRole('group', { name: /^labels/ });
  expect(await labels.locator('fieldset.item').count()).toBe(0);
  await labels.getByRole('button', { name: 'Add an item to labels' }).click();
  await labels.getByRole('button', { name: 'Add an item to labels' }).click();
  await labels
    .getByRole('group', { name: 'labels item 1' })
    .getByLabel(/^value/)
    .fill('fragile');
  await labels
    .getByRole('group', { name: 'labels item 2' })
    .getByLabel(/^value/)
    .fill('drop me');
  // Remove the second label: the list renumbers, focus stays in the list.
  await labels.getByRole('button', { name: 'Remove labels item 2' }).click();
  expect(await labels.locator('fieldset.item').count()).toBe(1);
  await page.getByRole('button', { name: 'Call plan_shipment' }).click();

  // Nested paths land on the nested controls: address.city, address.country, items[0].sku.
  await page.locator('.field-error').first().waitFor();
  const invalid = page.locator('[aria-invalid="true"]');
  const invalidIds = await invalid.evaluateAll((nodes) => nodes.map((n) => (n as unknown as { id: string }).id));
  const expected = [
    await address.getByLabel(/^city/).getAttribute('id'),
    await address.getByLabel(/^country/).getAttribute('id'),
    await item(0).getByLabel(/^sku/).getAttribute('id'),
    await page.getByLabel(/^weight_kg/).getAttribute('id'),
  ];
  expect(invalidIds).toEqual(expected);
  expect(await focusedId(page)).toBe(expected[0]);
  expect(await item(1).locator('[aria-invalid]').count()).toBe(0);
  expect(await page.locator('.field-error').count()).toBe(4);
  await screenshot(page, 'tools-nested-errors');
  expect(await axeViolations(page)).toEqual([]);

  await address.getByLabel(/^city/).fill('Berlin');
  await address.getByLabel(/^country/).selectOption('DE');
  await item(0).getByLabel(/^sku/).fill('SKU-1');
  await page.getByLabel(/^weight_kg/).fill('1.5');
  await page.getByRole('button', { name: 'Call plan_shipment' }).click();
  await page.getByRole('heading', { level: 3, name: 'Result' }).waitFor();
  const answer = JSON.parse((await page.locator('.result pre').textContent())!);
  const deliverBy = await page.evaluate<string>("new Date('2026-12-30T10:15:00').toISOString()");
  expect(answer).toEqual({
    planned: true,
    city: 'Berlin',
    country: 'DE',
    skus: ['2xSKU-1', '1xSKU-9'],
    speed: 'express',
    gift: false,
    weight_kg: 1.5,
    ship_on: '2026-12-24',
    deliver_by: deliverBy,
    labels: ['fragile'],
  });
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('a tool that needs approval is refused in the page and does not run', async () => {
  const before = wipes.count;
  const page = await open(fixtures, '#/tools/wipe_account');
  await page.getByLabel(/^account/).fill('acct-7');
  await page.getByRole('button', { name: 'Call wipe_account' }).click();
  await page.getByRole('heading', { level: 3, name: 'Error' }).waitFor();
  expect(await page.locator('.result p.error').textContent()).toMatch(/^APPROVAL_REQUIRED: Tool "wipe_account" needs a human's approval/);
  // What the model would be told, behind a disclosure opened with the keyboard.
  await page.locator('.result summary').focus();
  await page.keyboard.press('Enter');
  expect(JSON.parse((await page.locator('.result details pre').textContent())!)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
  expect(wipes.count).toBe(before);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('another user does not see a tool they may not use, in the page or the API', async () => {
  const page = await open(fixtures);
  await page.locator('.tool-list a').first().waitFor();
  expect(await page.locator('.tool-list .tool-name').allTextContents()).toEqual(['plan_shipment', 'admin_audit', 'wipe_account']);
  await page.getByLabel('User').fill('mallory');
  await page.getByLabel('User').press('Tab');
  await page.waitForFunction('document.querySelectorAll(".tool-list a").length === 2');
  expect(await page.locator('.tool-list .tool-name').allTextContents()).toEqual(['plan_shipment', 'wipe_account']);
  await page.goto(`${fixtures.url}#/tools/admin_audit`);
  await page.getByRole('heading', { level: 2, name: 'No such tool' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);

  const res = await fetch(`${fixtures.origin}/api/tools/admin_audit/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixtures.token}`, 'content-type': 'application/json', 'x-studio-user': 'mallory' },
    body: JSON.stringify({ args: { account: 'a' } }),
  });
  expect(res.status).toBe(404);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TOOL_NOT_FOUND');
  await page.context().close();
});
