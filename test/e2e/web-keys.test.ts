import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, type ScreenName } from '../support/browser.js';
import { startFromCard, terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// Issue 15, item 9, in Chromium at phone and laptop size: the key bar has Ctrl as a modifier for the next key,
// ^D, PgUp/PgDn; the font size can be changed; the scrollback can be searched; the player shows a wide
// recording readable (its rows fit, it scrolls sideways) instead of at a 5 px font.

const e2e = useWebE2E();

const tap = (page: Page, key: string) => page.getByTestId(`key-${key}`).click();

async function cols(page: Page, marker: string): Promise<number> {
  await typeLine(page, `echo ${marker}=$(tput cols)`);
  let found: RegExpExecArray | null = null;
  await expect
    .poll(async () => (found = new RegExp(`^${marker}=(\\d+)$`, 'm').exec(await terminalText(page))), {
      timeout: 10_000,
    })
    .toBeTruthy();
  return Number(found![1]);
}

describe.each(['phone', 'desktop'] as ScreenName[])('keys and reading at %s size', (screen) => {
  it('sends Ctrl with the next key, ^D, PgUp and PgDn from the key bar', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await typeLine(page, 'sleep 60; echo slept');
    await tap(page, 'ctrl');
    expect(await page.getByTestId('key-ctrl').getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.type('c');
    expect(await page.getByTestId('key-ctrl').getAttribute('aria-pressed')).toBe('false');
    await typeLine(page, 'echo after-interrupt');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^after-interrupt$/m);
    expect(await terminalText(page)).not.toMatch(/^slept$/m);

    // ^D only once the shell runs the line: typed while its line editor still has the terminal raw, it is a
    // plain byte in cat's input, not an end of file (CI saw it).
    await typeLine(page, 'echo cat-started; cat; echo cat-ended');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^cat-started$/m);
    await tap(page, 'ctrl-d');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^cat-ended$/m);

    await typeLine(page, 'seq 1 1000 | less');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^1$/m);
    await tap(page, 'page-down');
    await tap(page, 'page-down');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).not.toMatch(/^1$/m);
    await tap(page, 'page-up');
    await tap(page, 'page-up');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^1$/m);
    await page.keyboard.type('q');
    await context.close();
  });

  it('makes the text larger or smaller for this e2e.browser, and searches the scrollback', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    const before = await cols(page, 'BEFORE');
    await page.getByTestId('font-larger').click();
    await page.getByTestId('font-larger').click();
    await expect.poll(() => cols(page, 'LARGER'), { timeout: 10_000 }).toBeLessThan(before);
    await page.getByTestId('font-smaller').click();
    await page.getByTestId('font-smaller').click();
    await page.getByTestId('font-smaller').click();
    await expect.poll(() => cols(page, 'SMALLER'), { timeout: 10_000 }).toBeGreaterThan(before);

    await typeLine(page, 'seq 1 400; clear -x 2>/dev/null; echo done');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^done$/m);
    expect(await terminalText(page)).not.toMatch(/^37$/m);
    await page.getByTestId('search-toggle').click();
    await page.getByTestId('search-field').fill('37');
    await expect
      .poll(() => page.getByTestId('search-count').innerText(), { timeout: 10_000 })
      .toMatch(/of \d+/);
    await page.getByTestId('search-field').press('Enter');
    // A match is scrolled into view, up in the scrollback.
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^\d*37\d*$/m);
    expect(await terminalText(page)).not.toMatch(/^done$/m);
    await page.getByTestId('search-field').press('Escape');
    expect(await page.getByTestId('search-field').isHidden()).toBe(true);
    await context.close();
  });

  it('plays a wide recording with its rows fitting the screen, scrolling sideways, never below 8 px', async () => {
    const dir = path.join(e2e.world.env.AGENT_BRIDGE_HOME!, 'recordings');
    mkdirSync(dir, { recursive: true });
    const header = { version: 2, width: 220, height: 40, timestamp: 1_700_000_000, title: 'wide' };
    const lines = Array.from({ length: 40 }, (_, i) => `row ${i} ${'x'.repeat(200)}`).join('\r\n');
    writeFileSync(
      path.join(dir, '2024-01-01T00-00-00-000Z-shell-wide.cast'),
      `${JSON.stringify(header)}\n${JSON.stringify([0.1, 'o', lines])}\n`,
    );
    const { page, context } = await openPage(e2e.browser, screen);
    await page.goto(e2e.world.url);
    await page.goto(`${new URL(e2e.world.url).origin}/#/recordings/2024-01-01T00-00-00-000Z-shell-wide`);
    await page.getByTestId('player-toggle').and(page.locator(':enabled')).waitFor();
    await expect
      .poll(() => page.locator('.player-screen .xterm-rows').innerText(), { timeout: 10_000 })
      .toContain('row 39');
    const measure = () =>
      page.evaluate(() => {
        const screen = document.querySelector<HTMLElement>('.player-screen')!;
        const rows = document.querySelector<HTMLElement>('.player-screen .xterm-rows')!;
        return {
          font: parseFloat(getComputedStyle(rows).fontSize),
          scrolls: screen.scrollWidth > screen.clientWidth,
          bottom: screen.getBoundingClientRect().bottom,
          viewport: window.innerHeight,
        };
      });
    await expect.poll(async () => (await measure()).font).toBeGreaterThanOrEqual(8);
    const shown = await measure();
    if (screen === 'phone') expect(shown.scrolls).toBe(true);
    expect(shown.bottom).toBeLessThanOrEqual(shown.viewport);
    await context.close();
  });
});
