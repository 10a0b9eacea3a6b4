import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, type ScreenName } from '../support/browser.js';
import { startFromCard, terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// Issue 15, items 2 to 4 and 8, in Chromium at laptop and phone size: full-screen programs raise nothing; a
// prompt has one notice, never over the controls, gone once answered anywhere (the terminal included, at once);
// answering with the keyboard alone, focus moving on to the next card; the card asks what the program asks.

const e2e = useWebE2E();

const cards = (page: Page) => page.locator('[data-testid^="prompt-card-"]');
const badge = (page: Page) => page.getByTestId('inbox-badge').innerText();

/** The detector's stall (2 s) and then some: a false "possibly waiting" would be raised by now. */
const PAST_THE_STALL_MS = 3_000;

async function rect(page: Page, selector: string) {
  return page
    .locator(selector)
    .evaluateAll((elements) =>
      elements
        .filter((e) => (e as HTMLElement).offsetParent !== null)
        .map((e) => e.getBoundingClientRect().toJSON()),
    ) as Promise<Array<{ left: number; right: number; top: number; bottom: number }>>;
}

/** The boxes of the terminal's rows that show `text`. */
async function rowsWith(page: Page, text: string) {
  return page
    .locator('[data-testid="terminal"] .xterm-rows > div')
    .evaluateAll(
      (rows, wanted) =>
        rows
          .filter((row) => row.textContent?.includes(wanted))
          .map((row) => row.getBoundingClientRect().toJSON()),
      text,
    ) as Promise<Array<{ left: number; right: number; top: number; bottom: number }>>;
}

const overlaps = (a: { left: number; right: number; top: number; bottom: number }, b: typeof a) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe.each(['desktop', 'phone'] as ScreenName[])('prompts in the web UI at %s size', (screen) => {
  it('raises nothing for vim and less at rest', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}\n`);
    writeFileSync(path.join(e2e.world.project, 'notes.txt'), lines.join(''));
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await typeLine(page, 'vim -u NONE notes.txt');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toContain('line 0');
    await page.waitForTimeout(PAST_THE_STALL_MS);
    expect(await badge(page)).toBe('0');
    await page.keyboard.type(':q\n');
    await leftFullScreen(page);
    await typeLine(page, 'less notes.txt');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toContain('line 0');
    await page.waitForTimeout(PAST_THE_STALL_MS);
    expect(await badge(page)).toBe('0');
    expect(await page.locator('[data-testid^="notice-"]').count()).toBe(0);
    await page.keyboard.type('q');
    await leftFullScreen(page);
    // The detector still works: a real question is raised.
    await typeLine(page, 'read -p "Ship it? (y/n) " a');
    await expect.poll(() => badge(page), { timeout: 10_000 }).toBe('1');
    await context.close();
  });

  it('shows one notice per prompt, off the controls, gone at once when it is answered in the terminal', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    const id = await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    const other = await openPage(e2e.browser, screen);
    await other.page.goto(e2e.world.url);
    await other.page.getByTestId('sessions').waitFor();
    const [terminalBefore] = await rect(page, '[data-testid="terminal"]');
    await typeLine(page, 'read -p "Deploy now? (y/n) " a; echo "got [$a]"');
    const notice = other.page.locator('[data-testid^="notice-"]');
    await notice.first().waitFor({ timeout: 15_000 });
    expect(await notice.count()).toBe(1);
    // In one line, what the program asks: not the shell's prompt and the command above it.
    expect(await notice.first().locator('.notice-text').innerText()).toMatch(
      /: Yes or no — Deploy now\? \(y\/n\)$/,
    );
    expect(await page.locator('.prompt-strip-text').innerText()).toBe('Waiting for you: Deploy now? (y/n)');
    // The strip lies over the terminal: the terminal keeps its size (the program gets no SIGWINCH for it).
    expect(await rect(page, '[data-testid="terminal"]')).toEqual([terminalBefore]);
    // Over the half of the terminal the cursor is not in: the question and the command above it stay in sight.
    const [strip] = await rect(page, '.prompt-strip');
    const asking = await rowsWith(page, 'Deploy now?');
    expect(asking.length).toBe(2);
    for (const row of asking) expect(overlaps(strip!, row), JSON.stringify({ strip, row })).toBe(false);
    // Not on the session's own terminal: its strip shows it there.
    expect(await page.locator('[data-testid^="notice-"]').count()).toBe(0);
    const [box] = await rect(other.page, '[data-testid^="notice-"]');
    for (const control of await rect(other.page, ':is(button, a.btn, input):not(.notices *)'))
      expect(overlaps(box!, control), JSON.stringify({ box, control })).toBe(false);
    const inbox = await openPage(e2e.browser, screen);
    await inbox.page.goto(e2e.world.url);
    await inbox.page.goto(`${new URL(e2e.world.url).origin}/#/inbox`);
    await cards(inbox.page).first().waitFor({ timeout: 10_000 });
    expect(await inbox.page.locator('[data-testid^="notice-"]').count()).toBe(0);
    // The card asks the question; the lines above it (the command typed) are in its full text.
    expect(await inbox.page.locator('[data-testid^="question-"]').innerText()).toBe('Deploy now? (y/n)');
    expect(await inbox.page.locator('[data-testid^="detail-"]').innerText()).toContain('read -p');

    await page.keyboard.press('y');
    await page.keyboard.press('Enter');
    await expect.poll(() => cards(inbox.page).count(), { timeout: 5_000 }).toBe(0);
    await expect.poll(() => notice.count(), { timeout: 5_000 }).toBe(0);
    await expect.poll(() => terminalText(page)).toContain('got [y]');
    expect(id).toBeTruthy();
    await Promise.all([context.close(), other.context.close(), inbox.context.close()]);
  });

  it('lays its strip over the top rows when the question is at the bottom of the terminal', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await typeLine(page, 'printf "\\n%.0s" $(seq 80); read -p "Low down? (y/n) " a');
    await expect.poll(() => page.locator('.prompt-strip-text').isVisible(), { timeout: 15_000 }).toBe(true);
    const [strip] = await rect(page, '.prompt-strip');
    const [terminal] = await rect(page, '[data-testid="terminal"]');
    expect(strip!.top).toBe(terminal!.top);
    const [asking] = await rowsWith(page, 'Low down?');
    expect(overlaps(strip!, asking!), JSON.stringify({ strip, asking })).toBe(false);
    await page.keyboard.press('n');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.prompt-strip').isHidden(), { timeout: 10_000 }).toBe(true);
    await context.close();
  });

  it('answers with the keyboard alone, focus going on to the next card', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    for (const question of ['First? (y/n) ', 'Second? (y/n) ']) {
      await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
      await typeLine(page, `read -p "${question}" a; echo "answered [$a]"`);
      await expect
        .poll(() => page.getByTestId('inbox-badge').innerText(), { timeout: 15_000 })
        .not.toBe(question.startsWith('First') ? '0' : '1');
    }
    // Out of the terminal with the escape key: Tab and Esc stay in it.
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() => document.activeElement?.closest('[data-testid="terminal"]') !== null),
    ).toBe(true);
    await page.keyboard.press('Control+BracketRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('key-esc');

    await page.goto(`${new URL(e2e.world.url).origin}/#/inbox`);
    await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(2);
    const focusedCard = () =>
      page.evaluate(() =>
        document.activeElement?.closest('[data-testid^="prompt-card-"]')?.getAttribute('data-testid'),
      );
    const [first, second] = await cards(page).evaluateAll((all) =>
      all.map((c) => c.getAttribute('data-testid')),
    );
    // Tab from the top of the page to the first card's first answer (past its full text, which scrolls).
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    const onFirstAnswer = async () =>
      (await focusedCard()) === first && (await focusedText()).includes('Yes');
    for (let i = 0; i < 30 && !(await onFirstAnswer()); i++) await page.keyboard.press('Tab');
    expect(await focusedCard()).toBe(first);
    expect(await focusedText()).toContain('Yes');
    await page.keyboard.press('Enter');
    await expect.poll(focusedCard, { timeout: 10_000 }).toBe(second);
    await page.keyboard.press('Enter');
    await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('inbox-title');
    await context.close();
  });

  it("asks the menu's own question, with the line under it, not the previous one", async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    // From a file: the command line typed does not hold the words looked for.
    const script = [
      'read -p "Continue? (y/n) " a',
      `printf '\\nWhich environment should we deploy to?\\n\\n  1) staging\\n  2) production\\n  3) cancel\\n\\n'`,
      `read -p 'Enter choice [1-3]: ' c`,
      'echo "picked [$c]"',
    ].join('\n');
    writeFileSync(path.join(e2e.world.project, 'deploy.sh'), script + '\n');
    await typeLine(page, 'bash deploy.sh');
    await expect.poll(() => badge(page), { timeout: 15_000 }).toBe('1');
    await page.keyboard.type('y\n');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toContain('Enter choice [1-3]:');
    await page.goto(`${new URL(e2e.world.url).origin}/#/inbox`);
    const question = page.locator('[data-testid^="question-"]');
    await expect
      .poll(
        () =>
          question
            .first()
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toContain('Enter choice [1-3]:');
    const text = await question.first().innerText();
    expect(text).toContain('Which environment should we deploy to?');
    expect(text).not.toContain('Continue?');
    await context.close();
  });
});

/**
 * The full-screen program (vim, less: both on the alternate screen) has ended and the shell's screen is back,
 * as a person waits to see before typing the next command (keys typed while it quits may go to it).
 */
async function leftFullScreen(page: Page): Promise<void> {
  await expect.poll(() => terminalText(page), { timeout: 10_000 }).not.toContain('line 0');
}
