import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../support/browser.js';
import { MockServer, liveTerminal, mockSession } from '../support/web-app-mock.js';

// The web app from its sources against a scripted server (test/support/web-app-mock.ts): what a person sees
// of a session on another machine of a cluster, what asks before it acts, the dashboard and the files page
// when their data arrive late, and the live terminal while its socket keeps dropping.

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

const ID = mockSession().id;
/** A session that runs on node-b, a node of this hub's cluster: listed, stoppable, its terminal not here. */
const onNode = () =>
  mockSession({
    host: 'node-b',
    state: 'waiting',
    pendingPrompts: 1,
    runsIn: 'elsewhere',
    live: false,
    canType: false,
    canStop: true,
    canRestart: false,
  });

async function page(screen: 'desktop' | 'phone' = 'desktop'): Promise<Page> {
  const { page } = await openPage(browser, screen);
  // Backoff without jitter: the reconnect delays are 0.5, 1, 2, 4, 8 s.
  await page.addInitScript(() => (Math.random = () => 0.5));
  return page;
}

const text = (page: Page, testid: string) => page.getByTestId(testid).innerText();

describe('a session on another machine of the cluster', () => {
  it('says where it runs, keeps its state and its Stop, and never calls it ended', async () => {
    const server = new MockServer();
    server.sessions = [onNode()];
    // Asked anyway (a direct link opens before the list came), the hub has no terminal of it.
    server.onTerminal = (ws) => void ws.close({ code: 4404, reason: 'no such live session' });
    const p = await page();
    await server.open(p, `#/session/${ID}`);
    await expect.poll(() => text(p, 'exit-banner')).toContain('runs on node-b');
    expect(await text(p, 'exit-banner')).toContain('not shown here');
    expect(await text(p, 'session-state')).toBe('waiting for you');
    expect(await text(p, 'link-status')).not.toBe('ended');
    expect(await p.getByTestId(`stop-${ID}`).isVisible()).toBe(true);
    // A refresh of the list keeps it so.
    await expect.poll(() => server.events.length).toBe(1);
    server.events[0]!.send(JSON.stringify({ type: 'sessions' }));
    await p.waitForTimeout(500);
    expect(await text(p, 'session-state')).toBe('waiting for you');

    await p.getByTestId(`stop-${ID}`).click();
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => server.calls).toContain(`POST /api/sessions/${ID}/stop`);
    // Once the list says it ended, the page does too.
    server.sessions = [
      {
        ...onNode(),
        state: 'exited',
        pendingPrompts: 0,
        canStop: false,
        ended: { status: 'terminated', at: new Date().toISOString(), exitCode: null },
      },
    ];
    server.events[0]!.send(JSON.stringify({ type: 'sessions' }));
    await expect.poll(() => text(p, 'session-state')).toBe('exited');
    expect(await text(p, 'link-status')).toBe('ended');
    expect(await text(p, 'exit-banner')).toContain('stopped');
    await p.context().close();
  });

  it('is not opened as a terminal when started there from its card', async () => {
    const server = new MockServer();
    server.config.agents = [
      {
        id: 'shell',
        name: 'Shell',
        description: '',
        found: true,
        path: '/bin/bash',
        installHint: '',
        canSkipPermissions: false,
        canResume: false,
      },
    ];
    server.config.nodes = [{ name: 'node-b', online: true, agents: ['shell'] }];
    server.started = { ...onNode(), state: 'running', pendingPrompts: 0 };
    const p = await page();
    await server.open(p, '#/');
    await p.getByTestId('machine-shell').selectOption('node-b');
    await p.getByTestId('start-shell').click();
    await expect.poll(() => text(p, 'toast')).toContain('node-b');
    expect(await text(p, 'toast')).toContain('not shown here');
    expect(new URL(p.url()).hash).toBe('#/');
    expect(server.terminals).toHaveLength(0);
    await p.getByTestId(`session-row-${ID}`).waitFor();
    await p.context().close();
  });
});

describe('Stop and Restart ask first', () => {
  it('asks before restarting a running session, from its row and from its page, and says what Stop sends', async () => {
    const server = new MockServer();
    server.sessions = [mockSession()];
    const p = await page();
    await server.open(p, '#/');
    await p.getByTestId(`restart-${ID}`).click();
    await p.getByTestId('confirm').waitFor();
    expect(await text(p, 'confirm')).toMatch(/Restart shell in project\?/);
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.getByTestId('confirm').count()).toBe(0);
    expect(server.calls).toEqual([]);
    await p.getByTestId(`restart-${ID}`).click();
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => server.calls).toEqual([`POST /api/sessions/${ID}/restart`]);

    // Stop says what the agent gets: SIGHUP and SIGTERM, SIGKILL 5 s later.
    await p.getByTestId(`stop-${ID}`).click();
    const stop = await text(p, 'confirm');
    expect(stop).toContain('SIGHUP and SIGTERM');
    expect(stop).toContain('SIGKILL 5 s later');
    await p.getByTestId('confirm-cancel').click();

    await p.goto(`${new URL(p.url()).origin}/#/session/${ID}`);
    await p.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    await p.getByTestId('more').locator('summary').click();
    await p.getByTestId(`restart-${ID}`).click();
    await p.getByTestId('confirm').waitFor();
    await p.getByTestId('confirm-cancel').click();
    expect(server.calls).toEqual([`POST /api/sessions/${ID}/restart`]);
    await p.context().close();
  });

  it('starts an ended session again without asking', async () => {
    const server = new MockServer();
    server.sessions = [
      mockSession({
        state: 'exited',
        live: false,
        canType: false,
        canStop: false,
        ended: { status: 'completed', at: new Date().toISOString(), exitCode: 0 },
      }),
    ];
    const p = await page();
    await server.open(p, '#/');
    await p.getByTestId(`restart-${ID}`).click();
    await expect.poll(() => server.calls).toEqual([`POST /api/sessions/${ID}/restart`]);
    expect(await p.getByTestId('confirm').count()).toBe(0);
    await p.context().close();
  });
});

describe('data that arrive late', () => {
  it('names the machine of a session in its row once the configuration arrives after the list', async () => {
    const server = new MockServer();
    server.sessions = [onNode()];
    server.holdConfig();
    const p = await page();
    await server.open(p, '#/');
    const row = p.getByTestId(`session-row-${ID}`);
    await row.waitFor();
    expect(await row.innerText()).not.toContain('node-b');
    server.releaseConfigNow();
    await expect.poll(() => row.innerText()).toContain('node-b');
    await p.context().close();
  });

  it("shows the session's name and folder on its files page opened by a direct link", async () => {
    const server = new MockServer();
    server.sessions = [mockSession()];
    server.listing = { path: '', entries: [{ name: 'README.md', type: 'file', size: 12 }], truncated: false };
    const p = await page();
    await server.open(p, `#/session/${ID}/files`);
    await expect.poll(() => text(p, 'files-title')).toBe('Files of shell in project');
    expect(await p.getByText('/home/me/project', { exact: true }).isVisible()).toBe(true);
    await p.getByTestId('entry-README.md').waitFor();
    await p.context().close();
  });
});

describe('the live terminal while its socket keeps dropping', () => {
  it('counts down, reconnects now on request or when the events come back, and keeps the title readable', async () => {
    const server = new MockServer();
    server.sessions = [mockSession({ name: 'cargo test --workspace', state: 'waiting', pendingPrompts: 1 })];
    // The first connection shows the screen; the next ones drop at once (the backoff grows).
    server.onTerminal = (ws) =>
      server.terminals.length === 1 ? liveTerminal(ws) : void ws.close({ code: 1011, reason: 'gone' });
    const p = await page('phone');
    await server.open(p, `#/session/${ID}`);
    await p.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    expect(await p.getByTestId('reconnect-now').isVisible()).toBe(false);
    await server.terminals[0]!.close({ code: 1011, reason: 'gone' });

    // Waits for a wait of 4 s (after 0.5, 1 and 2 s), then sees the count go down while no socket is made.
    const seconds = async () =>
      Number(/reconnecting in (\d+) s/.exec(await text(p, 'link-status'))?.[1] ?? 0);
    await expect.poll(seconds, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const made = server.terminals.length;
    const first = await seconds();
    await expect.poll(seconds, { timeout: 2500 }).toBeLessThan(first);
    expect(server.terminals.length).toBe(made);

    // The title stays readable beside the status on a phone.
    const title = p.getByTestId('session-title');
    expect(await title.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);

    // Reconnect now: a socket at once.
    await p.getByTestId('reconnect-now').click();
    // (Sooner than the wait still shown: at least a second; the new socket drops too, and so on.)
    await expect.poll(() => server.terminals.length, { timeout: 800 }).toBeGreaterThan(made);

    // The page's events socket comes back (0.5 s later): the terminal tries again at once too, more than
    // 2 s before its own next try.
    await expect.poll(seconds, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const before = server.terminals.length;
    await server.events[0]!.close({ code: 1011, reason: 'gone' });
    await expect.poll(() => server.events.length, { timeout: 3000 }).toBe(2);
    await expect.poll(() => server.terminals.length, { timeout: 1500 }).toBeGreaterThan(before);
    await p.context().close();
  });
});
