import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, seriousViolations, type ScreenName } from '../support/browser.js';
import { screenshot, startFromCard, typeLine, WebE2E } from '../support/web-e2e.js';

// Issue 15, item 4: axe-core (from npm) in the page, in Chromium, on every view and dialog, at laptop and phone
// size, in the light and the dark scheme: no violation of serious or critical impact (contrast, names, labels,
// headings…). One serve for the file: its sessions, a prompt and a recording are what the views show.

let browser: Browser;
let world: WebE2E;
let sessionId = '';
beforeAll(async () => {
  browser = await launchChromium();
  world = await new WebE2E().start();
  writeFileSync(
    path.join(world.project, 'menu.sh'),
    `printf '\\nWhich environment?\\n\\n  1) staging\\n  2) production\\n\\n'; read -p 'Enter choice [1-2]: ' c\n`,
  );
  const { page, context } = await openPage(browser, 'desktop');
  // An ended session (with its recording), and one waiting on a menu.
  await startFromCard(page, world.url, 'shell', world.project);
  await typeLine(page, 'exit');
  await page.getByTestId('exit-banner').waitFor();
  sessionId = await startFromCard(page, world.url, 'shell', world.project);
  await typeLine(page, 'bash menu.sh');
  await page.getByTestId('inbox-badge').filter({ hasText: '1' }).waitFor({ timeout: 15_000 });
  await context.close();
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

type View = [name: string, open: (page: Page) => Promise<void>];

const origin = () => new URL(world.url).origin;
const VIEWS: View[] = [
  ['dashboard', async (page) => void (await page.getByTestId('tool-card-shell').waitFor())],
  [
    'terminal',
    async (page) => {
      await page.goto(`${origin()}/#/session/${sessionId}`);
      await page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    },
  ],
  [
    'stop confirmation',
    async (page) => {
      await page.getByTestId(`stop-${sessionId}`).click();
      await page.getByTestId('confirm').waitFor();
    },
  ],
  [
    'search and the menu',
    async (page) => {
      await page.getByTestId('confirm-cancel').click();
      await page.getByTestId('search-toggle').click();
      await page.getByTestId('more').locator('summary').click();
    },
  ],
  [
    'inbox',
    async (page) => {
      await page.goto(`${origin()}/#/inbox`);
      await page.locator('[data-testid^="prompt-card-"]').first().waitFor();
    },
  ],
  [
    'recordings',
    async (page) => {
      await page.goto(`${origin()}/#/recordings`);
      await page.locator('[data-testid^="play-"]').first().waitFor();
    },
  ],
  [
    'player',
    async (page) => {
      await page.locator('[data-testid^="play-"]').last().click();
      await page.getByTestId('player-toggle').and(page.locator(':enabled')).waitFor();
    },
  ],
  [
    'files',
    async (page) => {
      await page.goto(`${origin()}/#/session/${sessionId}/files`);
      await page.getByTestId('entry-menu.sh').click();
      await page.getByTestId('file-text').waitFor();
    },
  ],
  [
    'changes',
    async (page) => {
      await page.getByTestId('tab-changes').click();
      await page.getByTestId('changes-none').waitFor();
    },
  ],
  [
    'folder picker',
    async (page) => {
      await page.goto(`${origin()}/#/`);
      await page.getByTestId('choose-folder-shell').click();
      await page.getByTestId('picker-here').filter({ hasText: '/' }).waitFor();
    },
  ],
];

describe.each([
  ['desktop', 'light'],
  ['desktop', 'dark'],
  ['phone', 'light'],
  ['phone', 'dark'],
] as Array<[ScreenName, 'light' | 'dark']>)('axe at %s size, %s scheme', (screen, scheme) => {
  it('finds no serious or critical violation on any view', async () => {
    const { page, context } = await openPage(browser, screen);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(world.url);
    const found: Record<string, unknown> = {};
    for (const [name, open] of VIEWS) {
      await open(page);
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[name] = violations;
      if (scheme === 'light' && ['dashboard', 'terminal', 'inbox'].includes(name))
        await screenshot(page, `${screen}-${name}`);
    }
    expect(found).toEqual({});
    await context.close();
  });
});
