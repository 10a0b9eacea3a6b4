import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, openPage, seriousViolations, type ScreenName } from '../support/browser.js';
import { FAKE_ACP_AGENT } from '../support/fake-acp.js';
import { screenshot, WebE2E } from '../support/web-e2e.js';

// Issue 16, the web UI's part, in Chromium at laptop and phone size: a structured session (the fake ACP agent
// under `serve`, `agent: acp`, started with serve) is shown as a conversation: the agent's words as text (a
// message with <script> or <img onerror> shows them and runs nothing), tool cards that start and end, its
// prompt inline with the inbox's buttons, a plan as a list, a long diff folded, the footer's context use and
// cost; a message from the page reaches it; no serious or critical axe violation, light and dark.

let browser: Browser;
let world: WebE2E;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());
beforeEach(async () => {
  world = new WebE2E();
  const dataDir = world.env.AGENT_BRIDGE_HOME!;
  mkdirSync(dataDir, { recursive: true });
  const config = [
    'repos:',
    '  - name: fake',
    `    dir: ${world.project}`,
    '    agent: acp',
    `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_ACP_AGENT)}]`,
    '    startup: true',
    '',
  ].join('\n');
  writeFileSync(path.join(dataDir, 'agent-bridge.yaml'), config, { mode: 0o600 });
  await world.start({ FAKE_ACP_STATE: world.dir });
});
afterEach(async () => world?.close());

const log = (page: Page) => page.getByTestId('conversation-log');
const entries = (page: Page, kind: string) => log(page).locator(`[data-kind="${kind}"]`);

/** Opens the app, then the structured session serve started, from its row. */
async function openConversation(page: Page): Promise<string> {
  await page.goto(world.url);
  const open = page.locator('[data-testid^="open-"]');
  await open.first().waitFor({ timeout: 20_000 });
  const id = (await open.first().getAttribute('data-testid'))!.slice('open-'.length);
  await open.first().click();
  await page.waitForURL(new RegExp(`#/session/${id}/conversation$`));
  await page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
  return id;
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-text').fill(text);
  await page.getByTestId('message-text').press('Enter');
}

const agentSaid = (page: Page, text: string) =>
  entries(page, 'agent').filter({ hasText: text }).first().waitFor({ timeout: 15_000 });

describe.each(['desktop', 'phone'] as ScreenName[])(
  'a structured session in the web UI at %s size',
  (screen) => {
    it('is a conversation: text never HTML, tool cards, its prompt inline, a plan, a folded diff, the footer', async () => {
      const { page, context } = await openPage(browser, screen);
      const id = await openConversation(page);

      await say(page, 'hello from the page');
      await agentSaid(page, 'You said: hello from the page');
      expect(await entries(page, 'person').first().innerText()).toContain('hello from the page');

      // Hostile text is shown as it was written, and nothing of it runs.
      const hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold</b>';
      await say(page, hostile);
      await agentSaid(page, `You said: ${hostile}`);
      expect(await entries(page, 'agent').last().locator('.msg-text').textContent()).toBe(
        `Hello from the fake agent! You said: ${hostile}`,
      );
      expect(await log(page).locator('img, script, b').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

      // A plan is a list; the footer has the context's use and the cost.
      await say(page, 'PLAN');
      await entries(page, 'plan').waitFor();
      expect(await entries(page, 'plan').locator('li').allTextContents()).toEqual([
        '✓ done: Read the code',
        '◐ in progress: Fix the bug',
        '○ to do: Run the tests',
      ]);
      await expect
        .poll(() => page.getByTestId('conversation-footer').innerText())
        .toMatch(/context 21% · \$0\.12/);

      // A long diff is folded: its file and size, its lines on demand, monospace, + and − in their colours.
      await say(page, 'WRITE:long.txt');
      await agentSaid(page, 'Wrote long.txt.');
      const diff = entries(page, 'diff').last();
      expect(await diff.evaluate((e) => (e as HTMLDetailsElement).open)).toBe(false);
      expect(await diff.locator('summary').innerText()).toMatch(/long\.txt\s+\+100 −0 · \d+ lines/);
      await diff.locator('summary').click();
      await diff.locator('.diff-add').first().waitFor();
      expect(await diff.locator('.diff-add').count()).toBe(101);
      const style = await diff.locator('pre.diff').evaluate((pre) => {
        const add = getComputedStyle(pre.querySelector('.diff-add')!).color;
        const plain = getComputedStyle(pre).color;
        return { font: getComputedStyle(pre).fontFamily, add, plain };
      });
      expect(style.font).toMatch(/mono/i);
      expect(style.add).not.toBe(style.plain);
      expect(await seriousViolations(page)).toEqual([]);
      await diff.locator('summary').click();

      // A tool that asks: its card runs, its prompt is here with the inbox's buttons; allowed, the card is done.
      await say(page, 'TOOL:made.txt');
      const card = page.getByTestId('conversation-prompts').locator('[data-testid^="prompt-card-"]');
      await card.waitFor({ timeout: 15_000 });
      expect(await entries(page, 'tool').last().innerText()).toMatch(/touch made\.txt[\s\S]*running/);
      expect(await card.locator('.choice-label').allInnerTexts()).toEqual([
        'Allow once',
        'Always allow',
        'Reject',
      ]);
      await expect.poll(() => page.locator('.composer-hint').isVisible()).toBe(true);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await seriousViolations(page), scheme).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      // For the README: a plan, a folded diff, a tool card and the prompt it waits on.
      await screenshot(page, `${screen}-conversation`);

      // The inbox has it too, and leads back here.
      await page.getByTestId('nav-inbox').click();
      await page.getByTestId('prompts').getByRole('link', { name: 'Open conversation' }).click();
      await page.waitForURL(new RegExp(`#/session/${id}/conversation$`));
      await card.waitFor();
      await card.locator('[data-testid$="-1"].choice').click();
      await agentSaid(page, 'Tool finished: created made.txt.');
      expect(existsSync(path.join(world.project, 'made.txt'))).toBe(true);
      expect(await entries(page, 'tool').last().innerText()).toMatch(/done/);
      await expect.poll(() => card.count()).toBe(0);

      // A reload shows the same conversation; the terminal's address leads here.
      const count = await log(page).locator('[data-kind]').count();
      await page.goto(`${new URL(world.url).origin}/#/session/${id}`);
      await page.waitForURL(new RegExp(`#/session/${id}/conversation$`));
      await expect.poll(() => log(page).locator('[data-kind]').count()).toBe(count);
      await context.close();
    });

    it('stopped from its page, it takes no more messages and says it ended', async () => {
      const { page, context } = await openPage(browser, screen);
      const id = await openConversation(page);
      await page.getByTestId(`stop-${id}`).click();
      await page.getByTestId('confirm-ok').click();
      await expect.poll(() => page.getByTestId('message-text').isDisabled(), { timeout: 15_000 }).toBe(true);
      await expect.poll(() => page.getByTestId('conversation-footer').innerText()).toContain('ended');
      await page.getByTestId('session-state').filter({ hasText: 'exited' }).waitFor();
      await context.close();
    });
  },
);
