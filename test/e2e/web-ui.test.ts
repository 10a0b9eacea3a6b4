import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { launchChromium } from '../support/browser.js';
import { ServeProcess } from '../support/serve-process.js';
import { startFromCard } from '../support/web-e2e.js';

let browser: Browser;
let anthropic: FakeAnthropic;
let home: ClaudeHome;
let project: string;
let serve: ServeProcess;
let page: Page;
let url: string;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  project = mkdtempSync(path.join(tmpdir(), 'ab-web-proj-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  const env = {
    ...home.env,
    AGENT_BRIDGE_HOME: path.join(home.home, '.agent-bridge'),
    AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
  };
  serve = new ServeProcess([], { cwd: project, env });
  url = await serve.url();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
});

afterEach(async () => {
  await page?.close();
  await serve.stop();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

/** The text xterm.js draws, row by row. */
const terminalText = () => page.locator('[data-testid="terminal"] .xterm-rows').innerText();

/** Keys typed before the terminal is live would be dropped: startFromCard waits until it is. */
async function startAgent(agent: string, folder = project): Promise<void> {
  await startFromCard(page, url, agent, folder);
}

async function typeInTerminal(text: string): Promise<void> {
  await page.getByTestId('terminal').click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

describe('the web UI in Chromium', () => {
  it('opens from the printed URL, starts a shell, types a command, shows its output, and survives a reload', async () => {
    await startAgent('shell');
    await typeInTerminal('echo $((6*7))');
    await expect.poll(terminalText, { timeout: 15_000 }).toMatch(/^42$/m);
    await page.reload();
    await expect.poll(terminalText, { timeout: 15_000 }).toMatch(/^42$/m);
  });

  it('answers a prompt from the inbox and the process continues', async () => {
    await startAgent('shell');
    await typeInTerminal('read -p "Deploy now? (y/n) " a; echo "got [$a]"');
    await page.getByTestId('nav-inbox').click();
    const card = page.locator('[data-testid^="prompt-card-"]').first();
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.innerText()).toContain('Deploy now? (y/n)');
    await expect.poll(() => page.getByTestId('inbox-badge').innerText()).toBe('1');
    await card.locator('[data-testid^="yes-"]').click();
    await expect
      .poll(() => page.locator('[data-testid^="prompt-card-"]').count(), { timeout: 15_000 })
      .toBe(0);
    await page.goBack();
    await expect.poll(terminalText, { timeout: 15_000 }).toContain('got [y]');
  });

  it('fits a 390 px phone screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url);
    await page.getByTestId('tool-card-shell').waitFor();
    const width = await page.evaluate(() => document.scrollingElement!.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const buttons = await page
      .locator('button:visible')
      .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height));
    expect(Math.min(...buttons)).toBeGreaterThanOrEqual(40);
    // Kept for a person to look at: AGENT_BRIDGE_SCREENSHOTS=<dir> writes it there.
    const shots = process.env.AGENT_BRIDGE_SCREENSHOTS ?? project;
    await page.screenshot({ path: path.join(shots, 'phone-dashboard.png'), fullPage: true });
    await page.getByTestId('nav-inbox').click();
    await page.screenshot({ path: path.join(shots, 'phone-inbox.png') });
    expect(existsSync(path.join(shots, 'phone-dashboard.png'))).toBe(true);
  });

  it('drives the real Claude Code: its permission prompt is answered from the inbox and the tool runs', async () => {
    await startAgent('claude');
    await expect.poll(terminalText, { timeout: 30_000 }).toContain('? for shortcuts');
    await typeInTerminal('please run TOOL:from-web.txt');
    await page.getByTestId('nav-inbox').click();
    const card = page.locator('[data-testid^="prompt-card-"]').first();
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => card.innerText()).toContain('from-web.txt');
    await card.locator('[data-testid$="-1"][data-testid^="choice-"]').click();
    await expect.poll(() => existsSync(path.join(project, 'from-web.txt')), { timeout: 20_000 }).toBe(true);
  });

  it('says no with a reason from the inbox: Claude is told why, and the tool does not run', async () => {
    await startAgent('claude');
    await expect.poll(terminalText, { timeout: 30_000 }).toContain('? for shortcuts');
    await typeInTerminal('please run TOOL:not-from-web.txt');
    await page.getByTestId('nav-inbox').click();
    const card = page.locator('[data-testid^="prompt-card-"]').first();
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => card.innerText()).toContain('Or say no, and why');
    await card.locator('[data-testid^="answer-text-"]').fill('use the staging folder');
    await card.locator('[data-testid^="send-"]').click();
    // Claude got the denial with the reason as the tool's result.
    const toldWhy = () =>
      anthropic
        .messageRequests()
        .some((r) => r.toolResult?.content.includes('who says: use the staging folder'));
    await expect.poll(toldWhy, { timeout: 20_000 }).toBe(true);
    expect(existsSync(path.join(project, 'not-from-web.txt'))).toBe(false);
  });
});
