import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { TerminalUpgrade } from '../../src/channels/web/backend.js';
import { BrowserViewers } from '../../src/sessions/host/browser-viewers.js';
import type { SessionHost } from '../../src/sessions/host/session-host.js';
import { inputFrame, rawRequest, UPGRADE_HEADERS } from '../support/raw-http.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';
import { WEB_TOKEN, WebWorld, type TerminalClient } from '../support/web-world.js';

// Issue 14: serve hands a browser's terminal upgrade to the session host it started (browser-viewers.ts). The
// host then faces the browser: what it gets must be only what the checked handshake needs, nothing serve
// refused may reach it, and it holds each browser to what the session lets the web do, whatever the page sends.

const HANDSHAKE = new Set([
  'host',
  'origin',
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
]);

let world: WebWorld | null = null;
afterEach(async () => {
  if (!world) return;
  await world.close();
  // A session a test let go still runs in its host.
  await endSessionHosts(path.join(world.dir, 'data'));
  world = null;
});

/** A shell started from the web, and every upgrade serve handed to its host. */
async function shellWithHandoffs(): Promise<{ world: WebWorld; id: string; handed: TerminalUpgrade[] }> {
  world = await new WebWorld().start();
  const backend = world.backend;
  const handed: TerminalUpgrade[] = [];
  const handOff = backend.handOffTerminal.bind(backend);
  backend.handOffTerminal = (id, upgrade) => {
    const taken = handOff(id, upgrade);
    if (taken) handed.push(upgrade);
    return taken;
  };
  return { world, id: await world.startShell(), handed };
}

async function greeted(client: TerminalClient): Promise<void> {
  await waitFor('hello and the screen', () => client.json.length >= 2);
}

describe('handing a browser to the session host', () => {
  it('gives the host only the handshake: never the token, the cookie or other headers', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const ws = new WebSocket(`${world.url.replace('http', 'ws')}/ws/terminal/${id}`, {
      headers: {
        origin: world.url,
        cookie: `agent_bridge_token=${WEB_TOKEN}; other=1`,
        'x-forwarded-for': '10.0.0.1',
        'user-agent': 'attacker',
      },
    });
    await new Promise((resolve) => ws.once('open', resolve));
    expect(handed).toHaveLength(1);
    const headers = handed[0]!.headers;
    for (const name of Object.keys(headers)) expect(HANDSHAKE.has(name), name).toBe(true);
    expect(JSON.stringify(headers)).not.toContain(WEB_TOKEN);
    ws.close();
  });

  it('never hands over an upgrade serve refused', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const { host, url, port } = world;
    const target = `/ws/terminal/${id}`;
    const cases: Array<[string, string[], number]> = [
      ['no token', [`Host: ${host}`, `Origin: ${url}`], 401],
      ['a wrong token', [`Host: ${host}`, `Origin: ${url}`, 'Authorization: Bearer wrong'], 401],
      [
        'a foreign origin',
        [`Host: ${host}`, 'Origin: https://evil.example', `Authorization: Bearer ${WEB_TOKEN}`],
        403,
      ],
      ['no origin', [`Host: ${host}`, `Authorization: Bearer ${WEB_TOKEN}`], 403],
      [
        'a foreign host',
        [`Host: evil.example:${port}`, `Origin: ${url}`, `Authorization: Bearer ${WEB_TOKEN}`],
        421,
      ],
    ];
    for (const [what, headers, status] of cases) {
      const response = await rawRequest(
        port,
        [`GET ${target} HTTP/1.1`, ...headers, ...UPGRADE_HEADERS].join('\r\n'),
      );
      expect(response.status, what).toBe(status);
      response.socket.destroy();
    }
    expect(handed).toHaveLength(0);
  });

  it('holds a watch-only browser to watching at the host: its keys, sizes and binary frames do nothing', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const watcher = world.terminal(id, '?watch=1');
    await greeted(watcher);
    expect(handed[0]?.readOnly).toBe(true);
    expect(watcher.json[0]).toMatchObject({ type: 'hello', canType: false });
    const marker = path.join(world.dir, 'typed-by-watcher');
    watcher.send({ type: 'input', data: `touch ${marker}\r` });
    watcher.send({ type: 'resize', cols: 50, rows: 10 });
    watcher.send({ type: 'drive' });
    watcher.ws.send(Buffer.from(`touch ${marker}-binary\r`), { binary: true });
    // A viewer that may type, after them: what it sees shows whether anything of the watcher's went in.
    const typer = world.terminal(id);
    await greeted(typer);
    typer.send({ type: 'input', data: 'stty size; echo after-$((1+1))\r' });
    await waitFor('the typing viewer’s line', () => typer.output.includes('after-2'));
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(`${marker}-binary`)).toBe(false);
    expect(typer.output).not.toContain('10 50');
    expect(watcher.json.some((f) => f.type === 'size' && f.driving === true)).toBe(false);
    watcher.ws.close();
    typer.ws.close();
  });

  it('loses nothing a client sent before the answer came: in the request’s packet, or just after it', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const { host, url, port } = world;
    const request = [
      `GET /ws/terminal/${id} HTTP/1.1`,
      `Host: ${host}`,
      `Origin: ${url}`,
      `Authorization: Bearer ${WEB_TOKEN}`,
      ...UPGRADE_HEADERS,
    ].join('\r\n');
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    await new Promise((resolve) => socket.once('connect', resolve));
    // Frames pipelined behind the request, never waiting for the 101: one in the same write, one after.
    socket.write(Buffer.concat([Buffer.from(`${request}\r\n\r\n`), inputFrame('echo same-$((3+4))\r')]));
    await new Promise((resolve) => setTimeout(resolve, 5));
    socket.write(inputFrame('echo after-$((5+6))\r'));
    await waitFor(
      'both lines run by the shell',
      () => received.includes('same-7') && received.includes('after-11'),
    );
    expect(received).toMatch(/^HTTP\/1\.1 101/);
    expect(handed).toHaveLength(1);
    socket.destroy();
  });

  it('watches for any ask to watch, however written, on the host as through serve', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const asks = ['?watch=1&watch=1', '?watch', '?watch=true', '?watch=0&watch=1', '?watch=%31'];
    for (const query of asks) {
      const viewer = world.terminal(id, query);
      await greeted(viewer);
      expect(viewer.json[0], query).toMatchObject({ type: 'hello', canType: false });
      viewer.ws.close();
    }
    const typer = world.terminal(id, '?watch=0');
    await greeted(typer);
    expect(typer.json[0]).toMatchObject({ type: 'hello', canType: true });
    expect(handed.map((h) => h.readOnly)).toEqual([...asks.map(() => true), false]);
    typer.ws.close();
  });

  it('hands over only a GET: a HEAD that asks to upgrade is not answered as one', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const { host, url, port } = world;
    const response = await rawRequest(
      port,
      [
        `HEAD /ws/terminal/${id} HTTP/1.1`,
        `Host: ${host}`,
        `Origin: ${url}`,
        `Authorization: Bearer ${WEB_TOKEN}`,
        ...UPGRADE_HEADERS,
      ].join('\r\n'),
    );
    expect(response.status).not.toBe(101);
    expect(handed).toHaveLength(0);
    response.socket.destroy();
  });

  it('closes a browser that sends a frame over 64 KB (1009), at the host', async () => {
    const { world, id, handed } = await shellWithHandoffs();
    const viewer = world.terminal(id);
    await greeted(viewer);
    expect(handed).toHaveLength(1);
    const closed = new Promise<number>((resolve) => viewer.ws.once('close', (code) => resolve(code)));
    viewer.send({ type: 'input', data: 'x'.repeat(100_000) });
    expect(await closed).toBe(1009);
  });
});

describe("the host's side of a handoff", () => {
  /** A connected pair of sockets: what serve hands over, and the browser's end. */
  async function socketPair(): Promise<{ handed: net.Socket; browser: net.Socket; close(): void }> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const browser = net.connect(port, '127.0.0.1');
    browser.on('error', () => undefined);
    // It reads what it is sent (a 400), or it would never see its end.
    browser.resume();
    const handed = await accepted;
    return { handed, browser, close: () => server.close() };
  }

  /** A host that records who it was asked to let in. */
  function recordingHost(): { host: SessionHost; joined: unknown[] } {
    const joined: unknown[] = [];
    return {
      host: { join: async (...args: unknown[]) => void joined.push(args) } as unknown as SessionHost,
      joined,
    };
  }

  it('closes a socket that comes with a message that is not a viewer, and lets nobody in', async () => {
    const { host, joined } = recordingHost();
    const viewers = new BrowserViewers(host);
    const bad: unknown[] = [
      null,
      'viewer',
      { type: 'viewer', headers: {}, head: '' },
      { type: 'viewer', headers: { host: 1 }, head: '', watch: false },
      { type: 'viewer', headers: { host: 'x'.repeat(20_000) }, head: '', watch: false },
      { type: 'stop', headers: {}, head: '', watch: false },
    ];
    for (const message of bad) {
      const pair = await socketPair();
      const ended = new Promise((resolve) => pair.browser.once('close', resolve));
      viewers.take(message, pair.handed);
      await ended;
      pair.close();
    }
    // Without a socket, a message is nothing at all.
    viewers.take({ type: 'viewer', headers: {}, head: '', watch: false }, undefined);
    expect(joined).toHaveLength(0);
  });

  it('answers a handed request that is no WebSocket handshake with 400, and lets nobody in', async () => {
    const { host, joined } = recordingHost();
    const viewers = new BrowserViewers(host);
    const pair = await socketPair();
    let answer = '';
    pair.browser.on('data', (chunk) => (answer += String(chunk)));
    const ended = new Promise((resolve) => pair.browser.once('close', resolve));
    viewers.take(
      { type: 'viewer', headers: { host: 'x', upgrade: 'websocket' }, head: '', watch: false },
      pair.handed,
    );
    await ended;
    pair.close();
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(joined).toHaveLength(0);
  });
});
