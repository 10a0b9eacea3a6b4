import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostsDir, prepareHostsDir, trustedHost } from '../../src/sessions/host/host-files.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 15: what is new to reach, attacked. Renaming and resuming are writes like the others (a foreign Origin
// with the cookie is refused); a session's shared screen is reached only through a socket serve trusts: a
// session host's, in the data folder's own `terminals/` (a real folder of this user's, 0700), never wherever
// the store says.

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => world.close());

const dataDir = () => path.join(world.dir, 'data');

const cookiePost = (target: string, body: unknown, origin: string) =>
  world.rawPost(target, JSON.stringify(body), [
    `Cookie: agent_bridge_token=${WEB_TOKEN}`,
    `Origin: ${origin}`,
  ]);

describe('new writes from another origin', () => {
  it('refuses a rename or a resume carrying the cookie from a foreign page', async () => {
    world.store.sessions.create({ id: 'sess', agent: 'claude', cwd: world.dir, pid: 1, recording: null });
    world.store.sessions.end('sess', 'completed', 0);
    const renamed = await cookiePost('/api/sessions/sess/name', { name: 'pwned' }, 'https://evil.example');
    expect(renamed.status).toBe(403);
    expect(world.store.sessions.get('sess')!.name).toBeNull();
    const resumed = await cookiePost('/api/sessions/sess/resume', {}, `http://localhost:${world.port + 1}`);
    expect(resumed.status).toBe(403);
    expect(world.live.all()).toHaveLength(0);
  });
});

describe("a run session's shared screen", () => {
  it('is never attached through a socket outside the hosts folder, whatever the store says', async () => {
    const elsewhere = path.join(world.dir, 'evil.sock');
    const server = createServer((socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\n\r\n'));
    let connected = false;
    server.on('connection', () => (connected = true));
    await new Promise<void>((resolve) => server.listen(elsewhere, resolve));
    const id = '11111111-2222-3333-4444-555555555555';
    world.store.sessions.create({ id, agent: 'shell', cwd: world.dir, pid: process.pid, recording: null });
    world.store.sessions.setHost(
      id,
      { process: { pid: process.pid, startTime: null }, socket: elsewhere },
      { input: true, view: true },
    );
    const sessions = (
      await world.json<Array<{ id: string; live: boolean; runsIn: string }>>('/api/sessions')
    ).find((s) => s.id === id);
    expect(sessions).toMatchObject({ live: false, runsIn: 'elsewhere' });
    const viewer = world.terminal(id);
    const code = await new Promise<number>((resolve) => viewer.ws.on('close', (c) => resolve(c)));
    expect(code).toBe(4404);
    expect((await world.api(`/api/sessions/${id}/stop`, { method: 'POST' })).status).toBe(404);
    expect(connected).toBe(false);
    expect(trustedHost(dataDir(), elsewhere)).toBeNull();
    server.close();
  });

  it('refuses a hosts folder that is a link or belongs elsewhere, and closes one left open', () => {
    const data = path.join(world.dir, 'other-data');
    mkdirSync(data);
    const target = path.join(world.dir, 'attacker');
    mkdirSync(target);
    symlinkSync(target, hostsDir(data));
    expect(() => prepareHostsDir(data)).toThrow(/is not a folder/);
    rmSync(hostsDir(data));
    mkdirSync(hostsDir(data), { mode: 0o777 });
    chmodSync(hostsDir(data), 0o777);
    prepareHostsDir(data);
    expect(statSync(hostsDir(data)).mode & 0o777).toBe(0o700);
    // A socket there is trusted only with its private secret, and while the folder is closed to others.
    const id = '11111111-2222-3333-4444-555555555555';
    const socket = path.join(hostsDir(data), `${id}.sock`);
    const secret = path.join(hostsDir(data), `${id}.secret`);
    const server = createServer();
    return new Promise<void>((resolve) =>
      server.listen(socket, () => {
        expect(trustedHost(data, socket)).toBeNull();
        writeFileSync(secret, 'the secret\n', { mode: 0o644 });
        expect(trustedHost(data, socket)).toBeNull();
        chmodSync(secret, 0o600);
        expect(trustedHost(data, socket)).toMatchObject({ socket, secret: 'the secret', sessionId: id });
        chmodSync(hostsDir(data), 0o755);
        expect(trustedHost(data, socket)).toBeNull();
        expect(trustedHost(data, path.join(hostsDir(data), '..', 'x.sock'))).toBeNull();
        server.close(() => resolve());
      }),
    );
  });
});
