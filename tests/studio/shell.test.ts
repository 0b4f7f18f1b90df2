/**
 * The studio's shell in a real browser: the URL it prints opens the app, the pages are reached by
 * keyboard alone, and the shell passes axe-core's WCAG 2.1 AA rules.
 */
import 'reflect-metadata';
import type { Browser } from 'playwright-core';
import { createStudio, type Studio } from 'toolwright/studio';
import { axeViolations, launchBrowser, newPage, tabTo } from '../support/studio-browser';
import { createSupportApp } from '../../samples/tools';

let browser: Browser;
let studio: Studio;

beforeAll(async () => {
  browser = await launchBrowser();
  studio = await createStudio(createSupportApp().registry);
});
afterAll(async () => {
  await studio?.close();
  await browser?.close();
});

test('the printed URL opens the studio; every page is reached with the keyboard and focus moves to it', async () => {
  const page = await newPage(browser);
  await page.goto(studio.url);
  await page.getByRole('heading', { level: 1 }).waitFor();
  for (const name of ['Chat', 'Sessions', 'Traces', 'Tools']) {
    await page.locator('body').focus();
    await tabTo(page, `nav a[data-page="${name.toLowerCase()}"]`);
    await page.keyboard.press('Enter');
    await page.locator(`nav a[aria-current="page"]:text-is("${name}")`).waitFor();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    // The shell focuses the page after it mounted (the heading shows before): wait for it, fails when it never comes.
    await page.waitForFunction('document.activeElement?.id === "page"', undefined, { timeout: 5000 });
  }
  await page.context().close();
});

test('the shell passes axe-core (WCAG 2.1 A and AA)', async () => {
  const page = await newPage(browser);
  await page.goto(studio.url);
  await page.getByRole('heading', { level: 1 }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
});

test('the identity chosen in the header is kept across a reload', async () => {
  const page = await newPage(browser);
  await page.goto(studio.url);
  await page.getByLabel('User').fill('ada');
  await page.getByLabel('Tenant').fill('acme');
  await page.getByLabel('Tenant').press('Tab');
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor();
  expect(await page.getByLabel('User').inputValue()).toBe('ada');
  expect(await page.getByLabel('Tenant').inputValue()).toBe('acme');
  await page.context().close();
});
