import { describe, expect, it } from 'vitest';
import { openPage, type ScreenName } from '../support/browser.js';
import { startFromCard, terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// Issue 15, items 5 to 7, in Chromium at laptop and phone size: sessions carry names (agent and folder, then
// the first prompt, or the person's own); an ended one stays listed, exited (not "live"), with its recording
// and one button to start it again; Stop asks first; a new shell at its prompt is idle; a custom command
// has a card.

const e2e = useWebE2E();

describe.each(['desktop', 'phone'] as ScreenName[])('sessions in the web UI at %s size', (screen) => {
  it('names a session, says it is idle, and keeps it once it ended, with its recording', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    const id = await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await expect.poll(() => page.getByTestId('session-title').innerText()).toBe('shell in project');
    await expect.poll(() => page.getByTestId('session-state').innerText(), { timeout: 10_000 }).toBe('idle');
    await typeLine(page, 'echo tidy the release notes');
    await expect
      .poll(() => page.getByTestId('session-title').innerText(), { timeout: 10_000 })
      .toBe('echo tidy the release notes');
    await page.getByTestId('more').locator('summary').click();
    await page.getByTestId('rename').click();
    await page.getByTestId('ask-text').fill('Release notes');
    await page.getByTestId('ask-ok').click();
    await expect.poll(() => page.getByTestId('session-title').innerText()).toBe('Release notes');

    await typeLine(page, 'exit 3');
    await page.getByTestId('exit-banner').waitFor();
    await expect.poll(() => page.getByTestId('link-status').innerText()).toBe('ended');
    await expect.poll(() => page.getByTestId('session-state').innerText()).toBe('exited');
    expect(await page.getByTestId(`stop-${id}`).count()).toBe(0);
    // One button to start it again (no Restart beside a Start again).
    expect(await page.getByRole('button', { name: /^(Restart|Start again)$/ }).count()).toBe(1);

    await page.goto(`${new URL(e2e.world.url).origin}/#/`);
    const row = page.getByTestId(`session-row-${id}`);
    await row.waitFor();
    await expect
      .poll(() => page.getByTestId('ended-sessions').getByTestId(`session-row-${id}`).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    expect(await row.innerText()).toContain('Release notes');
    expect(await row.innerText()).toMatch(/exited/);
    expect(await row.innerText()).toContain('code 3');
    await row.getByTestId(`replay-${id}`).click();
    await expect
      .poll(() => page.locator('.player-title').innerText(), { timeout: 10_000 })
      .toBe('Release notes');
    await context.close();
  });

  it('keeps the buttons a person may be pressing while the session changes around them', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    const id = await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    // A tap whose press and release land on nodes a re-render swapped is lost: these must be the same nodes after.
    const more = await page.getByTestId('more').locator('summary').elementHandle();
    const stop = await page.getByTestId(`stop-${id}`).elementHandle();
    await typeLine(page, 'echo renamed by its first line');
    await expect
      .poll(() => page.getByTestId('session-title').innerText(), { timeout: 10_000 })
      .toBe('echo renamed by its first line');
    expect(await more!.evaluate((node) => node.isConnected)).toBe(true);
    expect(await stop!.evaluate((node) => node.isConnected)).toBe(true);
    await more!.click();
    await page.getByTestId('files-link').click();
    await page.waitForURL(new RegExp(`#/session/${id}/files$`));
    await context.close();
  });

  it('asks before it stops a session', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    const id = await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await page.getByTestId(`stop-${id}`).click();
    await page.getByTestId('confirm').waitFor();
    // The safe choice has the focus: Enter alone does not stop it.
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('confirm').count()).toBe(0);
    await typeLine(page, 'echo still-running');
    await expect.poll(() => terminalText(page)).toMatch(/^still-running$/m);
    await page.getByTestId(`stop-${id}`).click();
    await page.getByTestId('confirm-ok').click();
    await expect
      .poll(() => page.getByTestId('session-state').innerText(), { timeout: 15_000 })
      .toBe('exited');
    await expect.poll(() => page.getByTestId('link-status').innerText()).toBe('ended');
    await context.close();
  });

  it('starts a custom command from its card', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await startFromCard(page, e2e.world.url, 'custom', e2e.world.project, 'bash --norc --noprofile -i');
    await typeLine(page, 'echo custom-$((20+22))');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^custom-42$/m);
    // A program whose screens agent-bridge cannot read: neither busy nor idle, running.
    expect(await page.getByTestId('session-state').innerText()).toBe('running');
    await context.close();
  });
});
