import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest, UPGRADE_HEADERS } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 12, item 1: the token check looked at the raw URL while the router decodes and normalises it, so
// `/%61pi/sessions`, `GET http://x/api/sessions` or `/%77s/terminal/<id>` reached the API and the terminal with
// no token. Now the decision is made on the route the router matched: every route needs the token except the
// app shell's files and the token exchange. Requests are written byte for byte, as an attacker would.

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => world.close());

/** Ways to write a path that a router may decode or normalise back to it. */
function spellings(route: string): string[] {
  const [, first, ...rest] = route.split('/');
  const encodeAll = (text: string) =>
    [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  const tail = rest.join('/');
  return [
    route,
    `/%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}/${tail}`,
    `/%${first!.charCodeAt(0).toString(16).toUpperCase()}${first!.slice(1)}/${tail}`,
    `/${encodeAll(first!)}/${tail}`,
    `/${first}/${encodeAll(tail)}`,
    `http://x${route}`,
    `HTTP://x${route}`,
    `https://evil.example${route}`,
    `http://127.0.0.1:${world.port}${route}`,
    `//${first}/${tail}`,
    `/${first}//${tail}`,
    `/x/../${first}/${tail}`,
    `/./${first}/${tail}`,
    `/${first!.toUpperCase()}/${tail}`,
    `${route}/`,
    `${route};x`,
    `${route}%00`,
    `${route}%2f`,
    `${route}?token=${WEB_TOKEN.slice(1)}`,
    `${route}#x`,
    `/%2561pi/${tail}`,
  ];
}

const headers = (extra: string[] = []) => [`Host: 127.0.0.1:${world.port}`, 'Connection: close', ...extra];

describe('the token cannot be skipped by how the path is written', () => {
  it('refuses every spelling of every API read without the token', async () => {
    world.store.sessions.create({
      id: 'secret-session',
      agent: 'shell',
      cwd: world.dir,
      pid: 1,
      recording: null,
    });
    for (const route of [
      '/api/config',
      '/api/sessions',
      '/api/prompts',
      '/api/recordings',
      '/api/recordings/x',
      '/api/folders',
      '/api/folders/list?path=%2F',
      '/api/sessions/secret-session/files',
      '/api/sessions/secret-session/file?path=x',
      '/api/sessions/secret-session/changes',
      '/api/sessions/secret-session/conversation',
    ]) {
      for (const target of spellings(route)) {
        const response = await rawRequest(world.port, [`GET ${target} HTTP/1.1`, ...headers()].join('\r\n'));
        expect([400, 401, 421], `GET ${target}: ${response.status} ${response.body}`).toContain(
          response.status,
        );
        expect(response.body).not.toContain('secret-session');
      }
    }
  });

  it('starts nothing through any spelling of the write routes without the token', async () => {
    const marker = path.join(world.dir, 'pwned');
    const body = JSON.stringify({ agent: 'custom', cwd: world.dir, args: ['bash', '-c', `touch ${marker}`] });
    const routes = [
      '/api/sessions',
      '/api/sessions/x/stop',
      '/api/sessions/x/restart',
      '/api/sessions/x/resume',
      '/api/sessions/x/name',
      '/api/sessions/x/message',
      '/api/prompts/x/answer',
    ];
    for (const route of routes) {
      for (const target of spellings(route)) {
        const response = await rawRequest(
          world.port,
          [
            `POST ${target} HTTP/1.1`,
            ...headers([
              'Content-Type: application/json',
              `Content-Length: ${Buffer.byteLength(body)}`,
              `Origin: http://127.0.0.1:${world.port}`,
            ]),
          ].join('\r\n'),
          body,
        );
        expect([400, 401, 421], `POST ${target}: ${response.status} ${response.body}`).toContain(
          response.status,
        );
      }
    }
    expect(world.live.all()).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('opens no WebSocket through any spelling without the token', async () => {
    for (const route of [
      '/ws/events',
      '/ws/terminal/some-session',
      '/ws/terminal/some-session?watch=1',
      '/ws/conversation/some-session',
    ]) {
      for (const target of spellings(route)) {
        const response = await rawRequest(
          world.port,
          [
            `GET ${target} HTTP/1.1`,
            `Host: 127.0.0.1:${world.port}`,
            `Origin: http://127.0.0.1:${world.port}`,
            ...UPGRADE_HEADERS,
          ].join('\r\n'),
        );
        expect([400, 401, 421], `upgrade ${target}: ${response.status}`).toContain(response.status);
        response.socket.destroy();
      }
    }
  });

  it('answers a path no route matches with 401 too, saying nothing of it', async () => {
    for (const target of [
      '/nope',
      '/api',
      '/api/',
      '/ws',
      '/.env',
      '/index.html/../api/sessions',
      '/app.js.map',
    ]) {
      const response = await rawRequest(world.port, [`GET ${target} HTTP/1.1`, ...headers()].join('\r\n'));
      expect(response.status, target).toBe(401);
      expect(response.body).not.toContain(target);
    }
    const authed = await rawRequest(
      world.port,
      ['GET /nope HTTP/1.1', ...headers([`Authorization: Bearer ${WEB_TOKEN}`])].join('\r\n'),
    );
    expect(authed.status).toBe(404);
  });

  it('serves only the app shell without the token, and takes the token only at the exchange', async () => {
    for (const [target, status] of [
      ['/', 200],
      ['/index.html', 200],
      ['/app.js', 200],
      ['/%61pp.js', 200],
      [`http://127.0.0.1:${world.port}/app.js`, 200],
    ] as const) {
      const response = await rawRequest(world.port, [`GET ${target} HTTP/1.1`, ...headers()].join('\r\n'));
      expect(response.status, target).toBe(status);
    }
    const head = await rawRequest(world.port, ['HEAD / HTTP/1.1', ...headers()].join('\r\n'));
    expect(head.status).toBe(200);
    // The URL token is the exchange at `/` only; elsewhere it is no credential.
    const elsewhere = await rawRequest(
      world.port,
      [`GET /api/sessions?token=${WEB_TOKEN} HTTP/1.1`, ...headers()].join('\r\n'),
    );
    expect(elsewhere.status).toBe(401);
    const exchange = await rawRequest(
      world.port,
      [`GET /?token=${WEB_TOKEN} HTTP/1.1`, ...headers()].join('\r\n'),
    );
    expect(exchange.status).toBe(302);
    expect(exchange.headers.location).toBe('/');
    expect(exchange.headers['set-cookie']).toMatch(
      /^agent_bridge_token=[^;]+; HttpOnly; SameSite=Strict; Path=\//,
    );
    const wrong = await rawRequest(world.port, ['GET /?token=nope HTTP/1.1', ...headers()].join('\r\n'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });
});
