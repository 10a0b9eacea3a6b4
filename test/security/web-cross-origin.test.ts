import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { rawRequest, UPGRADE_HEADERS } from '../support/raw-http.js';
import { openPrompt, yesNoPrompt } from '../support/temp-store.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 12, item 3: a JSON POST carrying the cookie from another origin succeeded. Every state-changing request
// that authenticates with the cookie (which the browser attaches by itself) must carry this server's own
// Origin; a script's `Authorization: Bearer` needs none, since no page can send that header cross-origin. A
// foreign Origin is refused whatever the credential, and WebSockets always need the page's own Origin.

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => world.close());

const cookie = `Cookie: agent_bridge_token=${WEB_TOKEN}`;
const bearer = `Authorization: Bearer ${WEB_TOKEN}`;

const post = (target: string, body: unknown, extra: string[], host = world.host) =>
  world.rawPost(target, JSON.stringify(body), extra, host);

const startShell = () => ({ agent: 'custom', cwd: world.dir, args: ['bash', '--norc', '-i'] });

describe('cross-origin writes', () => {
  it('refuses a cookie-carrying write from any origin but this one, or with none', async () => {
    const port = world.port;
    const origins = [
      'https://evil.example',
      `http://localhost:${port + 1}`, // same site (a port is not part of a site): the cookie is sent
      `http://127.0.0.1:${port}.evil.example`,
      `http://127.0.0.1:${port}@evil.example`,
      `http://evil.example/?http://127.0.0.1:${port}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port}, https://evil.example`,
      'null',
    ];
    for (const origin of origins) {
      const response = await post('/api/sessions', startShell(), [cookie, `Origin: ${origin}`]);
      expect(response.status, origin).toBe(403);
    }
    expect((await post('/api/sessions', startShell(), [cookie])).status).toBe(403);
    expect(world.live.all()).toHaveLength(0);
  });

  it('refuses a cross-origin answer: the prompt stays open', async () => {
    world.store.sessions.create({ id: 'sess', agent: 'shell', cwd: world.dir, pid: 1, recording: null });
    const record = openPrompt(world.store, 'sess', yesNoPrompt({ excerpt: 'Go? (y/n)', key: 'k' }));
    const response = await post(`/api/prompts/${record.id}/answer`, { answer: 'yes' }, [
      cookie,
      'Origin: https://evil.example',
    ]);
    expect(response.status).toBe(403);
    expect(world.store.prompts.open().map((p) => p.id)).toEqual([record.id]);
  });

  it("takes a write with the cookie from this server's own page, and one with Bearer from a script", async () => {
    const fromPage = await post('/api/sessions', startShell(), [cookie, `Origin: ${world.url}`]);
    expect(fromPage.status).toBe(201);
    // The page opened by another loopback name (or through a forwarded port) writes to that same origin.
    const fromLocalhostName = await post(
      '/api/sessions',
      startShell(),
      [cookie, `Origin: http://localhost:${world.port}`],
      `localhost:${world.port}`,
    );
    expect(fromLocalhostName.status).toBe(201);
    const forwarded = await post(
      '/api/sessions',
      startShell(),
      [cookie, 'Origin: http://localhost:8080'],
      'localhost:8080',
    );
    expect(forwarded.status).toBe(201);
    // An origin other than the one the request was made to is another page, even on this machine.
    const otherName = await post('/api/sessions', startShell(), [
      cookie,
      `Origin: http://localhost:${world.port}`,
    ]);
    expect(otherName.status).toBe(403);
    expect((await post('/api/sessions', startShell(), [bearer])).status).toBe(201);
    // A foreign Origin is refused even with Bearer: only a page sends Origin, and no page is ours elsewhere.
    expect((await post('/api/sessions', startShell(), [bearer, 'Origin: https://evil.example'])).status).toBe(
      403,
    );
    expect(world.live.all()).toHaveLength(4);
  });

  it('refuses cookie reads that the browser says come from another site', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const response = await rawRequest(
        world.port,
        [
          'GET /api/sessions HTTP/1.1',
          `Host: ${world.host}`,
          'Connection: close',
          cookie,
          `Sec-Fetch-Site: ${site}`,
        ].join('\r\n'),
      );
      expect(response.status, site).toBe(403);
    }
    const own = await rawRequest(
      world.port,
      [
        'GET /api/sessions HTTP/1.1',
        `Host: ${world.host}`,
        'Connection: close',
        cookie,
        'Sec-Fetch-Site: same-origin',
      ].join('\r\n'),
    );
    expect(own.status).toBe(200);
  });

  it('refuses WebSockets from any origin but this one, compared in normal form', async () => {
    const port = world.port;
    const refused = [
      'https://evil.example',
      `http://127.0.0.1:${port}.evil.example`,
      `http://127.0.0.1:${port}@evil.example`,
      `https://127.0.0.1:${port}`,
      `http://localhost:${port + 1}`,
      'null',
      null,
    ];
    for (const origin of refused) {
      const response = await rawRequest(
        port,
        [
          'GET /ws/events HTTP/1.1',
          `Host: ${world.host}`,
          cookie,
          ...(origin === null ? [] : [`Origin: ${origin}`]),
          ...UPGRADE_HEADERS,
        ].join('\r\n'),
      );
      expect(response.status, String(origin)).toBe(403);
      await response.closedByServer;
    }
    for (const [host, origin] of [
      [world.host, world.url],
      [`localhost:${port}`, `HTTP://LOCALHOST:${port}`],
      [`[::1]:${port}`, `http://[::1]:${port}`],
    ] as const) {
      const ws = new WebSocket(`ws://${world.host}/ws/events`, {
        headers: { cookie: cookie.slice(8), origin, host },
      });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('unexpected-response', reject));
      ws.close();
    }
  });

  it('forbids framing and cross-origin reads of every answer', async () => {
    for (const target of ['/', '/api/sessions']) {
      const response = await rawRequest(
        world.port,
        [`GET ${target} HTTP/1.1`, `Host: ${world.host}`, 'Connection: close', cookie].join('\r\n'),
      );
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
