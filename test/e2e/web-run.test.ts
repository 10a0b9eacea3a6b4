import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPage, type ScreenName } from '../support/browser.js';
import { terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// Issue 15, item 6, in Chromium at laptop and phone size: a session started with `agent-bridge run` in a
// terminal of its own is opened from the web. It is watched (its own terminal keeps the size); keys from the
// web reach it only when it was started with --web-input, and then Stop (after asking) ends it too; its size
// is always its own terminal's (no Fit from the web).

const e2e = useWebE2E();

const BASH = ['custom', '--', 'bash', '--norc', '--noprofile', '-i'];

describe.each(['desktop', 'phone'] as ScreenName[])(
  'a session started by run, from the web at %s size',
  (screen) => {
    it('is watched, and what the web types is dropped', async () => {
      const run = e2e.world.run(BASH);
      await run.type('echo from-the-terminal-$((6*7))');
      const { page, context } = await openPage(e2e.browser, screen);
      await page.goto(e2e.world.url);
      const watch = page.locator('[data-testid^="open-"]', { hasText: 'Watch' });
      await watch.waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('sessions').innerText()).toContain('in a terminal (agent-bridge run)');
      await watch.click();
      await page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
      await expect.poll(() => terminalText(page), { timeout: 10_000 }).toContain('from-the-terminal-42');
      await expect.poll(() => page.getByTestId('size-note').innerText()).toContain('--web-input');
      const marker = path.join(e2e.world.project, 'typed-from-the-web');
      await typeLine(page, `touch ${marker}`);
      await run.type('echo later-$((1+2))');
      await expect.poll(() => terminalText(page), { timeout: 10_000 }).toContain('later-3');
      expect(existsSync(marker)).toBe(false);
      expect(await page.locator('[data-testid^="stop-"]').count()).toBe(0);
      await context.close();
    });

    it('takes keys from the web with --web-input, and stops after asking', async () => {
      const run = e2e.world.run(['--web-input', ...BASH]);
      const { page, context } = await openPage(e2e.browser, screen);
      await page.goto(e2e.world.url);
      const open = page.locator('[data-testid^="open-"]', { hasText: 'Open' });
      await open.waitFor({ timeout: 15_000 });
      await open.click();
      await page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
      await typeLine(page, 'echo typed-in-the-e2e.browser-$((5*5))');
      await run.waitForText('typed-in-the-e2e.browser-25');
      // Typing never sizes it from here: its own terminal does, and the page offers no Fit it cannot do.
      await expect
        .poll(() => page.getByTestId('size-note').innerText())
        .toContain('Sized by the terminal it runs in');
      expect(await page.getByTestId('fit').isVisible()).toBe(false);
      await page.locator('[data-testid^="stop-"]').click();
      await page.getByTestId('confirm-ok').click();
      expect((await run.waitForExit()).exitCode).toBe(143);
      await expect.poll(() => page.getByTestId('link-status').innerText(), { timeout: 10_000 }).toBe('ended');
      // Ended: the banner says how; no note about keys or sizes is left under it.
      expect(await page.getByTestId('size-note').isVisible()).toBe(false);
      await context.close();
    });
  },
);
