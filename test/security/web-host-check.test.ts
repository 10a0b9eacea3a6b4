import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest, UPGRADE_HEADERS } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 12, item 2: with no Host check, a web page whose name resolves to 127.0.0.1 (DNS rebinding) talks to the
// API as if it were the page's own server. Only Host values that name this server are served (loopback names
// and addresses, and the --host given, with this port); the rest are refused with 421 before anything else:
// before the app shell, the token exchange, the API and WebSocket upgrades, whatever credentials they carry.

let world: WebWorld;
afterEach(async () => world.close());

const bearer = `Authorization: Bearer ${WEB_TOKEN}`;
const cookie = `Cookie: agent_bridge_token=${WEB_TOKEN}`;

async function get(target: string, host: string | null, extra: string[] = []) {
  const lines = [`GET ${target} HTTP/1.1`, ...(host === null ? [] : [`Host: ${host}`]), 'Connection: close'];
  return rawRequest(world.port, [...lines, ...extra].join('\r\n'), '', new URL(world.url).hostname);
}

describe('the Host check (DNS rebinding)', () => {
  it('serves loopback names (on any port: a forwarded one) and refuses every other name with 421', async () => {
    world = await new WebWorld().start();
    const port = world.port;
    const own = [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `127.1:${port}`,
      // A port forwarded here (ssh -L 8080:127.0.0.1:7600) arrives with the local port in the Host.
      `127.0.0.1:${port + 1}`,
      'localhost:8080',
      '127.0.0.1',
      'localhost',
    ];
    for (const host of own) expect((await get('/api/config', host, [bearer])).status, host).toBe(200);
    const foreign = [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `evil.example:${port}@127.0.0.1:${port}`,
      `127.0.0.1:${port}@evil.example`,
      `127.0.0.1:${port}/evil`,
      `127.0.0.1:${port}#evil`,
      `127.0.0.1:${port} evil`,
      `127.0.0.1:${port}, evil.example`,
      `localhost.:${port}`,
      '',
    ];
    for (const host of foreign) {
      for (const credential of [bearer, cookie]) {
        const response = await get('/api/config', host, [credential]);
        expect(response.status, `Host: ${host}`).toBe(421);
        expect(response.body).not.toContain('agents');
      }
    }
  });

  it('refuses a foreign name before the app shell and the token exchange too', async () => {
    world = await new WebWorld().start();
    for (const target of ['/', '/app.js', `/?token=${WEB_TOKEN}`, '/nope']) {
      const response = await get(target, `rebind.evil.example:${world.port}`);
      expect(response.status, target).toBe(421);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('checks the authority of an absolute-form target as well as the Host header', async () => {
    world = await new WebWorld().start();
    const ownHost = world.host;
    expect((await get(`http://evil.example:${world.port}/api/config`, ownHost, [bearer])).status).toBe(421);
    expect((await get(`http://${ownHost}/api/config`, `evil.example:${world.port}`, [bearer])).status).toBe(
      421,
    );
    expect((await get(`http://${ownHost}/api/config`, ownHost, [bearer])).status).toBe(200);
  });

  it('refuses a request with no Host at all', async () => {
    world = await new WebWorld().start();
    const response = await rawRequest(world.port, ['GET /api/config HTTP/1.0', bearer].join('\r\n'));
    expect(response.status).toBe(421);
  });

  it('refuses a WebSocket upgrade for a foreign name, and closes its socket', async () => {
    world = await new WebWorld().start();
    const evil = `evil.example:${world.port}`;
    const response = await rawRequest(
      world.port,
      [`GET /ws/events HTTP/1.1`, `Host: ${evil}`, `Origin: http://${evil}`, cookie, ...UPGRADE_HEADERS].join(
        '\r\n',
      ),
    );
    expect(response.status).toBe(421);
    await response.closedByServer;
  });

  it('also answers to the --host it was given, and only on its port', async () => {
    // All of 127.0.0.0/8 is loopback on Linux: a second address stands in for a LAN address.
    world = await new WebWorld().start({ host: '127.0.0.2' });
    const port = world.port;
    expect((await get('/api/config', `127.0.0.2:${port}`, [bearer])).status).toBe(200);
    expect((await get('/api/config', `127.0.0.3:${port}`, [bearer])).status).toBe(421);
    expect((await get('/api/config', `127.0.0.2:${port + 1}`, [bearer])).status).toBe(421);
  });
});
