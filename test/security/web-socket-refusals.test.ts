import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/store.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE_GRACE_MS } from '../../src/channels/web/connections.js';
import { FakeClock } from '../support/fake-clock.js';
import { inputFrame, rawRequest, UPGRADE_HEADERS, type RawExchange } from '../support/raw-http.js';
import { ServeProcess } from '../support/serve-process.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 12, item 5 (and issue 15, item 10): a refused WebSocket upgrade left its socket open (CLOSE-WAIT, one fd
// each) and `serve` then ignored SIGTERM for 10-70 s; with a shell started from the web open, serve did not
// exit for over 40 s. Now every refusal closes its socket, and stopping never waits on a client. Since issue 18
// a shell started from the web runs in a session host of its own: serve stopping lets it go on (the next serve
// takes it back), so neither it nor a stubborn shell holds the stop up.

let world: WebWorld | null = null;
let serve: ServeProcess | null = null;
const folders: string[] = [];
afterEach(async () => {
  await world?.close();
  world = null;
  if (serve && serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
  serve = null;
  for (const folder of folders.splice(0)) {
    await endSessionHosts(path.join(folder, 'data'));
    rmSync(folder, { recursive: true, force: true });
  }
});

function upgrade(port: number, target: string, headers: string[]): Promise<RawExchange> {
  return rawRequest(port, [`GET ${target} HTTP/1.1`, ...headers, ...UPGRADE_HEADERS].join('\r\n'));
}

/** The server, not the client, closes the connection: the client never ends it here. */
async function serverCloses(exchange: RawExchange, what: string): Promise<void> {
  let closed = false;
  void exchange.closedByServer.then(() => (closed = true));
  await waitFor(`the server to close the socket of ${what}`, () => closed);
}

describe('refused WebSocket upgrades', () => {
  it('close their socket, whatever refused them', async () => {
    world = await new WebWorld().start();
    const { port, host, url } = world;
    const own = [`Host: ${host}`, `Origin: ${url}`];
    const cases: Array<[string, string, string[], number]> = [
      ['no token', '/ws/events', own, 401],
      ['a wrong token', '/ws/events', [...own, 'Cookie: agent_bridge_token=nope'], 401],
      [
        'a foreign origin',
        '/ws/events',
        [`Host: ${host}`, 'Origin: https://evil.example', `Authorization: Bearer ${WEB_TOKEN}`],
        403,
      ],
      ['no origin', '/ws/terminal/x', [`Host: ${host}`, `Authorization: Bearer ${WEB_TOKEN}`], 403],
      [
        'a foreign host',
        '/ws/events',
        [`Host: evil.example:${port}`, `Authorization: Bearer ${WEB_TOKEN}`],
        421,
      ],
      ['an unknown path', '/ws/nothing', [...own, `Authorization: Bearer ${WEB_TOKEN}`], 404],
      ['a malformed path', '/ws/terminal/%zz', own, 400],
      ['an overlong id', `/ws/terminal/${'x'.repeat(300)}`, own, 414],
    ];
    for (const [what, target, headers, status] of cases) {
      const response = await upgrade(port, target, headers);
      expect(response.status, what).toBe(status);
      await serverCloses(response, what);
    }
    // Throttled guessing too.
    for (let i = 0; i < 12; i++) {
      const response = await upgrade(port, '/ws/events', [...own, `Authorization: Bearer guess-${i}`]);
      await serverCloses(response, `guess ${i}`);
    }
  });
});

describe('stopping the web server', () => {
  it('never waits on a client: open WebSockets that never answer and half-sent requests are cut after the grace', async () => {
    const clock = new FakeClock();
    world = await new WebWorld(clock).start();
    const { port, host, url } = world;
    const auth = [`Host: ${host}`, `Origin: ${url}`, `Authorization: Bearer ${WEB_TOKEN}`];
    const silent = await upgrade(port, '/ws/events', auth);
    expect(silent.status).toBe(101);
    silent.socket.pause(); // never reads, never answers the close frame
    const halfSent = await new Promise<net.Socket>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET /api/config HTTP/1.1\r\nHost: ${host}\r\n`);
        resolve(socket);
      });
      socket.on('error', () => undefined);
    });
    let stopped = false;
    const closing = world.closeServer().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    clock.advance(CLOSE_GRACE_MS);
    await closing;
    silent.socket.resume(); // now read: the close frame, then the end the server sent
    await serverCloses(silent, 'the silent WebSocket');
    let halfClosed = false;
    halfSent.once('close', () => (halfClosed = true));
    await waitFor('the half-sent request to be cut', () => halfClosed || halfSent.destroyed);
  });
});

describe('agent-bridge serve', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops on ${signal} with a web-started shell open, a silent terminal viewer and refused upgrades`, async () => {
      const { base, token, port, project } = await startServe();
      const host = new URL(base).host;
      const auth = [`Host: ${host}`, `Origin: ${base}`, `Authorization: Bearer ${token}`];
      const shell = await startShell(base, token, project);
      const viewer = await upgrade(port, `/ws/terminal/${shell.id}`, auth);
      expect(viewer.status).toBe(101);
      await waitFor('the terminal to say hello', () => viewer.received().includes('"hello"'));
      viewer.socket.write(inputFrame(`echo $$ > ${path.join(project, 'shell.pid')}\r`));
      const pidFile = path.join(project, 'shell.pid');
      const shellPid = await waitFor('the shell to say its pid', () => {
        try {
          return Number(readFileSync(pidFile, 'utf8').trim()) || null;
        } catch {
          return null;
        }
      });
      viewer.socket.pause();
      // Refused upgrades whose clients keep their end open.
      for (let i = 0; i < 5; i++) await upgrade(port, '/ws/events', [`Host: ${host}`, `Origin: ${base}`]);
      serve!.child.kill(signal);
      await waitFor('serve to exit', () => serve!.child.exitCode !== null, { timeoutMs: 15_000 });
      expect(serve!.child.exitCode, serve!.stderr).toBe(0);
      // The shell goes on in its session host, its session still running, for the next serve to take back.
      expect(processExists(shellPid)).toBe(true);
      const store = openStore({ dir: path.join(project, 'data') });
      try {
        expect(store.sessions.get(shell.id)?.status).toBe('active');
      } finally {
        store.close();
      }
    });
  }

  it('stops at once even when the shell ignores SIGHUP and SIGTERM: the shell goes on in its host', async () => {
    const { base, token, port, project } = await startServe();
    const shell = await startShell(base, token, project);
    const viewer = await upgrade(port, `/ws/terminal/${shell.id}`, [
      `Host: ${new URL(base).host}`,
      `Origin: ${base}`,
      `Authorization: Bearer ${token}`,
    ]);
    await waitFor('the terminal to say hello', () => viewer.received().includes('"hello"'));
    const pidFile = path.join(project, 'stubborn.pid');
    viewer.socket.write(inputFrame(`trap '' HUP TERM INT; echo $$ > ${pidFile}\r`));
    const shellPid = await waitFor('the shell to say its pid', () => {
      try {
        return Number(readFileSync(pidFile, 'utf8').trim()) || null;
      } catch {
        return null;
      }
    });
    serve!.child.kill('SIGTERM');
    await waitFor('serve to exit', () => serve!.child.exitCode !== null, { timeoutMs: 5_000 });
    expect(serve!.child.exitCode).toBe(0);
    expect(processExists(shellPid)).toBe(true);
  });
});

async function startServe() {
  const project = mkdtempSync(path.join(tmpdir(), 'ab-serve-stop-'));
  folders.push(project);
  serve = new ServeProcess([], {
    cwd: project,
    env: { ...(process.env as Record<string, string>), AGENT_BRIDGE_HOME: path.join(project, 'data') },
  });
  const printed = new URL(await serve.url());
  return {
    base: printed.origin,
    token: printed.searchParams.get('token')!,
    port: Number(printed.port),
    project,
  };
}

async function startShell(base: string, token: string, cwd: string): Promise<{ id: string }> {
  const response = await fetch(`${base}/api/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'custom', cwd, args: ['bash', '--norc', '-i'] }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}
