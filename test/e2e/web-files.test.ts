import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openPage, type ScreenName } from '../support/browser.js';
import { startFromCard, useWebE2E } from '../support/web-e2e.js';

// Issue 15, beyond the peers, in Chromium at laptop and phone size: a folder picker (recent folders, git
// repositories, browsing), and a read-only view of a session's files and of what changed in its repository.

const e2e = useWebE2E();
let repo: string;
beforeEach(() => {
  repo = path.join(e2e.world.dir, 'src', 'shop');
  mkdirSync(path.join(repo, 'lib'), { recursive: true });
  writeFileSync(path.join(repo, 'lib', 'price.ts'), 'export const price = 10;\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: repo, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  writeFileSync(path.join(repo, 'lib', 'price.ts'), 'export const price = 12;\n');
});

describe.each(['desktop', 'phone'] as ScreenName[])('folders and files at %s size', (screen) => {
  it('picks a git repository, and browses folders up and down', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    await page.goto(e2e.world.url);
    await page.getByTestId('choose-folder-shell').click();
    await page.getByTestId('picker-repositories').getByTestId('pick-shop').click();
    expect(await page.getByTestId('folder-shell').inputValue()).toBe(repo);

    await page.getByTestId('choose-folder-shell').click();
    await expect.poll(() => page.getByTestId('picker-here').innerText()).toBe(repo);
    await page.getByTestId('picker-open-lib').click();
    await expect.poll(() => page.getByTestId('picker-here').innerText()).toBe(path.join(repo, 'lib'));
    await page.getByTestId('picker-up').click();
    await page.getByTestId('picker-up').click();
    await expect
      .poll(() => page.getByTestId('picker-here').innerText())
      .toBe(path.join(e2e.world.dir, 'src'));
    await page.getByTestId('picker-use').click();
    expect(await page.getByTestId('folder-shell').inputValue()).toBe(path.join(e2e.world.dir, 'src'));
    await context.close();
  });

  it('goes up twice for two quick clicks on Up, however slowly the folders come', async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    // Each listing takes a while (a loaded machine): the second click comes before the first folder shows.
    await page.route('**/api/folders/list?**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await page.goto(e2e.world.url);
    await page.getByTestId('choose-folder-shell').click();
    await page.getByTestId('picker-repositories').getByTestId('pick-shop').click();
    await page.getByTestId('choose-folder-shell').click();
    await page.getByTestId('picker-open-lib').click();
    await expect
      .poll(() => page.getByTestId('picker-here').innerText(), { timeout: 5_000 })
      .toBe(path.join(repo, 'lib'));
    await page.getByTestId('picker-up').click();
    await page.getByTestId('picker-up').click();
    await expect
      .poll(() => page.getByTestId('picker-here').innerText(), { timeout: 5_000 })
      .toBe(path.join(e2e.world.dir, 'src'));
    await context.close();
  });

  it("shows the session's files and its changes, read-only", async () => {
    const { page, context } = await openPage(e2e.browser, screen);
    const id = await startFromCard(page, e2e.world.url, 'shell', repo);
    await page.getByTestId('more').locator('summary').click();
    await page.getByTestId('files-link').click();
    await page.waitForURL(new RegExp(`#/session/${id}/files$`));
    await page.getByTestId('entry-lib').click();
    await page.getByTestId('entry-price.ts').click();
    await expect.poll(() => page.getByTestId('file-text').innerText()).toBe('export const price = 12;\n');
    await page.getByTestId('tab-changes').click();
    await expect.poll(() => page.getByTestId('changed-files').innerText()).toContain('lib/price.ts');
    const diff = await page.getByTestId('diff').innerText();
    expect(diff).toContain('-export const price = 10;');
    expect(diff).toContain('+export const price = 12;');
    await context.close();
  });
});
