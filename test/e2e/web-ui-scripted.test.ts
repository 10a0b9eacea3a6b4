import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../support/browser.js';
import {
  MockServer,
  liveConversation,
  liveTerminal,
  mockSession,
  nodeSession,
} from '../support/web-app-mock.js';

// The web app from its sources against a scripted server (test/support/web-app-mock.ts): what a person sees
// of a session on another machine of a cluster, what asks before it acts, the dashboard and the files page
// when their data arrive late, the live terminal and a conversation while their sockets keep dropping, and a
// recording whose idle gaps the player shortens.

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

const ID = mockSession().id;
const onNode = () => nodeSession();

async function page(screen: 'desktop' | 'phone' = 'desktop'): Promise<Page> {
  const { page } = await openPage(browser, screen);
  // Backoff without jitter: the reconnect delays are 0.5, 1, 2, 4, 8 s.
  await page.addInitScript(() => (Math.random = () => 0.5));
  return page;
}

const text = (page: Page, testid: string) => page.getByTestId(testid).innerText();

/** The seconds "reconnecting in N s…" shows (0 when it shows something else). */
async function secondsShown(p: Page): Promise<number> {
  return Number(/reconnecting in (\d+) s/.exec(await text(p, 'link-status'))?.[1] ?? 0);
}

/**
 * Waits for a wait of 4 s (after 0.5, 1 and 2 s), then sees the count go down while no socket is made;
 * returns how many sockets were made by then.
 */
async function countsDownWithNoSocket(p: Page, sockets: () => number): Promise<number> {
  await expect.poll(() => secondsShown(p), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  const made = sockets();
  const first = await secondsShown(p);
  await expect.poll(() => secondsShown(p), { timeout: 2500 }).toBeLessThan(first);
  expect(sockets()).toBe(made);
  return made;
}

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

    const seconds = () => secondsShown(p);
    const made = await countsDownWithNoSocket(p, () => server.terminals.length);

    // The title stays readable beside the status on a phone.
    const title = p.getByTestId('session-title');
    expect(await title.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);

    // Reconnect now: a socket at once.
    await p.getByTestId('reconnect-now').click();
    // (Sooner than the wait still shown: at least a second; the new socket drops too, and so on.)
    await expect.poll(() => server.terminals.length, { timeout: 2000 }).toBeGreaterThan(made);

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

describe('a phone on its side (844 × 390)', () => {
  it("gives the terminal the app bar's height on a session's page, and keeps the bar elsewhere", async () => {
    const context = await browser.newContext({
      viewport: { width: 844, height: 390 },
      isMobile: true,
      hasTouch: true,
    });
    const p = await context.newPage();
    const server = new MockServer();
    server.sessions = [mockSession({ state: 'waiting', pendingPrompts: 1 })];
    await server.open(p, `#/session/${ID}`);
    await p.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    expect(await p.locator('.topbar').isVisible()).toBe(false);
    expect(await p.getByTestId('session-title').isVisible()).toBe(true);
    await p.goto(`${p.url().split('#')[0]}#/`);
    await p.getByTestId('nav-inbox').waitFor();
    expect(await p.locator('.topbar').isVisible()).toBe(true);
    await context.close();
  });
});

describe("a structured session's conversation while its socket keeps dropping", () => {
  it('counts down, reconnects now on request or when the events come back', async () => {
    const server = new MockServer();
    server.sessions = [
      mockSession({ agent: 'acp', name: 'acp in project', conversation: true, live: false }),
    ];
    // The first connection sends the history; the next ones drop at once (the backoff grows).
    server.onConversation = (ws) =>
      server.conversations.length === 1
        ? liveConversation(ws, ID)
        : void ws.close({ code: 1011, reason: 'gone' });
    const p = await page();
    await server.open(p, `#/session/${ID}/conversation`);
    await p.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    expect(await p.getByTestId('reconnect-now').isVisible()).toBe(false);
    await server.conversations[0]!.close({ code: 1011, reason: 'gone' });

    const seconds = () => secondsShown(p);
    const made = await countsDownWithNoSocket(p, () => server.conversations.length);

    // Reconnect now: a socket at once.
    await p.getByTestId('reconnect-now').click();
    await expect.poll(() => server.conversations.length, { timeout: 2000 }).toBeGreaterThan(made);

    // The page's events socket comes back (0.5 s later): the conversation tries again at once too.
    await expect.poll(seconds, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const before = server.conversations.length;
    await server.events[0]!.close({ code: 1011, reason: 'gone' });
    await expect.poll(() => server.events.length, { timeout: 3000 }).toBe(2);
    await expect.poll(() => server.conversations.length, { timeout: 1500 }).toBeGreaterThan(before);

    // Back for good: live, and no button.
    server.onConversation = (ws) => liveConversation(ws, ID);
    await p.getByTestId('reconnect-now').click();
    await p.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
    expect(await p.getByTestId('reconnect-now').isVisible()).toBe(false);
    await p.context().close();
  });
});

describe('a recording whose idle gaps the player shortens', () => {
  const cast = (times: number[]) =>
    [
      JSON.stringify({ version: 2, width: 40, height: 5 }),
      ...times.map((t) => JSON.stringify([t, 'o', `${t} `])),
    ].join('\n');
  const recording = (id: string, durationSeconds: number) => ({
    id,
    session: null,
    startedAt: new Date().toISOString(),
    durationSeconds,
    bytes: 100,
    command: `bash ${id}`,
    title: null,
  });

  it('says why it plays shorter than the list says, and says nothing when it does not', async () => {
    const server = new MockServer();
    // 3:41 as recorded; 0.1 + 3 + 3 = 0:06 played.
    server.recordings = [recording('long', 221), recording('short', 2.5)];
    server.casts = { long: cast([0.1, 100, 221]), short: cast([0.5, 2.5]) };
    const p = await page();
    await server.open(p, '#/recordings');
    expect(await text(p, 'recording-long')).toContain('3:41');
    await p.getByTestId('play-long').click();
    await expect
      .poll(() => text(p, 'player-note'))
      .toBe('idle gaps over 3 s are shortened: plays in 0:06 of 3:41');
    await expect.poll(() => text(p, 'player-time')).toContain('/ 0:06');

    await p.goto(`${new URL(p.url()).origin}/#/recordings/short`);
    await p.getByTestId('player-time').filter({ hasText: '/ 0:02' }).waitFor();
    expect(await p.getByTestId('player-note').isVisible()).toBe(false);
    await p.context().close();
  });
});
