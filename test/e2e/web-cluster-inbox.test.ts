import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebPrompt } from '../../src/channels/web/backend.js';
import { launchChromium, openPage } from '../support/browser.js';
import { MOCK_ORIGIN, MockServer, nodeSession } from '../support/web-app-mock.js';

// The inbox of a cluster's hub, from the web app's sources against a scripted server (no build needed): a
// prompt from a machine that is away says so, and an answer to it says that it waits for that machine (the
// prompt then leaves the inbox: what became of the answer must not leave with it).

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

const session = nodeSession();
const PROMPT: WebPrompt = {
  id: 'bbbb1111-2222-3333-4444-555566667777',
  promptId: 'bbbb1111-2222-3333-4444-555566667777',
  sessionId: session.id,
  kind: 'permission',
  confidence: 'exact',
  excerpt: 'Run npm test?',
  detail: 'npm test',
  choices: [
    { number: 1, label: 'Yes' },
    { number: 2, label: 'No' },
  ],
  allowForSessionChoice: null,
  textChoice: null,
  safeDefault: null,
  expiresAt: Date.now() + 3_600_000,
  origin: { host: 'node-b', agent: 'claude', label: 'api', cwd: '/home/me/api' },
};
const ID = PROMPT.id;

const text = (page: Page, testid: string) => page.getByTestId(testid).innerText();
const toastText = (page: Page) => page.getByTestId('toast').locator('.notice-text').innerText();

/**
 * The inbox with PROMPT in it (listed until it is answered, unless `stays`), `answer` what answering it
 * answers; node-b as `online` says, last seen 5 minutes ago.
 */
async function inbox(options: {
  online: boolean;
  answer: Record<string, unknown>;
  stays?: boolean;
}): Promise<{ page: Page; server: MockServer }> {
  const server = new MockServer();
  server.sessions = [session];
  const nodes = [{ name: 'node-b', online: options.online, agents: [], lastSeen: Date.now() - 300_000 }];
  server.config.nodes = nodes;
  const { page } = await openPage(browser, 'desktop');
  await server.open(page, '#/inbox');
  let answered = false;
  // Routed after the scripted server's: these answer first.
  await page.route(`${MOCK_ORIGIN}/api/prompts`, (route) =>
    route.fulfill({ json: answered && !options.stays ? [] : [PROMPT] }),
  );
  await page.route(`${MOCK_ORIGIN}/api/prompts/*/answer`, (route) => {
    answered = true;
    return route.fulfill({ json: options.answer });
  });
  await expect.poll(() => server.events.length).toBe(1);
  server.events[0]!.send(JSON.stringify({ type: 'prompts' }));
  await page.getByTestId(`prompt-card-${ID}`).waitFor();
  return { page, server };
}

describe('the inbox of a hub, with a prompt from another machine of its cluster', () => {
  it('says on the card that its machine is away, and after an answer that the answer waits for it', async () => {
    const { page } = await inbox({ online: false, answer: { ok: true, summary: '1. Yes' } });
    expect(await page.getByTestId(`machine-away-${ID}`).isVisible()).toBe(true);
    expect(await text(page, `machine-away-${ID}`)).toMatch(
      /^⚪ node-b is away \(last seen 5 min ago\): an answer waits for it, and is applied when it is back/,
    );
    await page.getByTestId(`choice-${ID}-1`).click();
    // The prompt leaves the inbox; what became of the answer is said where it stays.
    await page.getByTestId(`prompt-card-${ID}`).waitFor({ state: 'detached' });
    expect(await toastText(page)).toBe(
      'Answered: 1. Yes. node-b is away: the answer waits, and is applied when node-b is back (if the prompt still waits then).',
    );
    await page.context().close();
  });

  it('says nothing of the machine while it is connected, unless the server says the answer is queued', async () => {
    const { page, server } = await inbox({
      online: true,
      answer: { ok: true, summary: '1. Yes', queued: true, node: 'node-b' },
      stays: true,
    });
    expect(await page.getByTestId(`machine-away-${ID}`).isHidden()).toBe(true);
    await page.getByTestId(`choice-${ID}-1`).click();
    await expect.poll(() => text(page, `result-${ID}`)).toMatch(/^Answered: 1\. Yes\. node-b is away/);
    expect(await toastText(page)).toMatch(/the answer waits, and is applied when node-b is back/);

    // The machine goes away: the inbox, opened again, asks and says so on the card it keeps.
    server.config.nodes = [{ name: 'node-b', online: false, agents: [] }];
    await page.evaluate(() => (location.hash = '#/'));
    await page.evaluate(() => (location.hash = '#/inbox'));
    await expect.poll(() => page.getByTestId(`machine-away-${ID}`).isVisible()).toBe(true);
    expect(await text(page, `machine-away-${ID}`)).toMatch(/^⚪ node-b is away: an answer waits for it/);
    await page.context().close();
  });
});
