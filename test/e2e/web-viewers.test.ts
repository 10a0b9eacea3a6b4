import { describe, expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { screenshot, startFromCard, terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// Issue 15, item 1, in Chromium: a laptop (1280×800) and a phone (390×844, touch) on the same terminal. The
// terminal keeps the size of the viewer that typed last; the other sees it whole (scaled or letterboxed), and
// may take the size with "Fit to this screen". A read-only viewer's keys never reach the program.

const e2e = useWebE2E();

/** `stty size` as the shell sees it: "rows cols". */
async function sttySize(page: Parameters<typeof typeLine>[0], marker: string): Promise<[number, number]> {
  await typeLine(page, `echo ${marker}=$(stty size | tr ' ' x)`);
  let found: RegExpExecArray | null = null;
  await expect
    .poll(async () => (found = new RegExp(`${marker}=(\\d+)x(\\d+)`).exec(await terminalText(page))), {
      timeout: 10_000,
    })
    .toBeTruthy();
  return [Number(found![1]), Number(found![2])];
}

describe('two viewers of different sizes', () => {
  it('keeps the laptop size when the phone joins; the phone takes it by typing, the laptop by Fit', async () => {
    const desk = await openPage(e2e.browser, 'desktop');
    const id = await startFromCard(desk.page, e2e.world.url, 'shell', e2e.world.project);
    const [deskRows, deskCols] = await sttySize(desk.page, 'DESK');
    expect(deskCols).toBeGreaterThan(120);

    const phone = await openPage(e2e.browser, 'phone');
    await phone.page.goto(`${e2e.world.url}`);
    await phone.page.goto(`${new URL(e2e.world.url).origin}/#/session/${id}`);
    await phone.page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    // The phone only watches for now: the terminal keeps the laptop's size, shown smaller on the phone.
    await expect
      .poll(() => phone.page.getByTestId('size-note').innerText())
      .toContain('Sized by another viewer');
    await expect(sttySize(desk.page, 'AFTER')).resolves.toEqual([deskRows, deskCols]);
    await expect.poll(() => desk.page.getByTestId('size-note').isHidden()).toBe(true);
    await screenshot(phone.page, 'phone-terminal-letterboxed');

    // Typing on the phone gives it the size; the laptop now shows the phone's terminal, letterboxed.
    const [phoneRows, phoneCols] = await sttySize(phone.page, 'PHONE');
    expect(phoneCols).toBeLessThan(70);
    expect(phoneRows).not.toBe(deskRows);
    await expect
      .poll(() => desk.page.getByTestId('size-note').innerText())
      .toContain('Sized by another viewer');
    expect(await desk.page.getByTestId('terminal').getAttribute('class')).toContain('letterboxed');

    await desk.page.getByTestId('fit').click();
    await expect(sttySize(desk.page, 'BACK')).resolves.toEqual([deskRows, deskCols]);
    await phone.context.close();
    await desk.context.close();
  });

  for (const screen of ['desktop', 'phone'] as const) {
    it(`watches only, at ${screen} size: keys typed there never reach the program`, async () => {
      const typist = await openPage(e2e.browser, 'desktop');
      const id = await startFromCard(typist.page, e2e.world.url, 'shell', e2e.world.project);
      const watcher = await openPage(e2e.browser, screen);
      await watcher.page.goto(e2e.world.url);
      await watcher.page.goto(`${new URL(e2e.world.url).origin}/#/session/${id}`);
      await watcher.page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
      await watcher.page.getByTestId('more').locator('summary').click();
      await watcher.page.getByTestId('watch-only').click();
      await watcher.page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
      await expect.poll(() => watcher.page.getByTestId('size-note').innerText()).toContain('Watching only');
      await watcher.page.locator('[data-testid="terminal"] textarea').focus();
      await watcher.page.keyboard.type('echo typed-by-the-watcher\n');
      await watcher.page.getByTestId('key-ctrl-c').click({ force: true });
      await typeLine(typist.page, 'echo typed-by-$((1+1))-hands');
      await expect.poll(() => terminalText(watcher.page), { timeout: 10_000 }).toContain('typed-by-2-hands');
      expect(await terminalText(typist.page)).not.toContain('typed-by-the-watcher');
      await watcher.context.close();
      await typist.context.close();
    });
  }
});
