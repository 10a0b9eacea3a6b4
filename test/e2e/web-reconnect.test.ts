import type { WebSocketRoute } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage } from '../support/browser.js';
import { startFromCard, terminalText, typeLine, useWebE2E } from '../support/web-e2e.js';

// The live terminal's socket drops (a phone changing networks, a laptop waking): keys typed before the
// terminal is back are not sent into a socket that is gone and lost without a word. The page says that keys
// are not sent and takes none, then takes them again once the screen is back.

const e2e = useWebE2E();

describe('the live terminal while its socket reconnects', () => {
  it('takes no keys and says so until the terminal is back, then takes them again', async () => {
    const { page, context } = await openPage(e2e.browser, 'desktop');
    const connections: WebSocketRoute[] = [];
    let toServer = true;
    /** What the page sent on a connection that never reached the server. */
    const sentNowhere: string[] = [];
    await page.routeWebSocket(/\/ws\/terminal\//, (ws) => {
      connections.push(ws);
      if (toServer) ws.connectToServer();
      else ws.onMessage((message) => sentNowhere.push(String(message)));
    });
    await startFromCard(page, e2e.world.url, 'shell', e2e.world.project);
    await typeLine(page, 'echo first-$((1 + 1))');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^first-2$/m);
    expect(await page.getByTestId('key-ctrl').isEnabled()).toBe(true);

    // The link drops; the page reconnects to a socket that opens and never shows the terminal.
    toServer = false;
    await connections[0]!.close({ code: 1011, reason: 'gone' });
    await expect.poll(() => connections.length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => page.getByTestId('link-status').innerText()).toBe('connecting');
    await expect
      .poll(() => page.getByTestId('size-note').innerText())
      .toContain('keys typed here are not sent');
    expect(await page.getByTestId('key-ctrl').isDisabled()).toBe(true);
    await typeLine(page, 'echo lost');
    await page.getByTestId('key-ctrl-d').click({ force: true });
    expect(sentNowhere.filter((message) => message.includes('"input"'))).toEqual([]);

    // Back for real: the screen is drawn again and keys reach the shell; none of those typed meanwhile did.
    toServer = true;
    await connections[1]!.close({ code: 1011, reason: 'gone' });
    await expect.poll(() => page.getByTestId('link-status').innerText(), { timeout: 15_000 }).toBe('live');
    await expect.poll(() => page.getByTestId('key-ctrl').isEnabled()).toBe(true);
    await typeLine(page, 'echo back-$((2 + 2))');
    await expect.poll(() => terminalText(page), { timeout: 10_000 }).toMatch(/^back-4$/m);
    expect(await terminalText(page)).not.toMatch(/^lost$/m);
    await context.close();
  });
});
