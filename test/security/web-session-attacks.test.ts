import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTrustedSocket, prepareSharesDir, sharesDir } from '../../src/sessions/share/share-socket.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 15: what is new to reach, attacked. Renaming and resuming are writes like the others (a foreign Origin
// with the cookie is refused); a session's shared screen is reached only through a socket serve trusts: in
// the data folder's own `terminals/` (a real folder of this user's, 0700), never wherever the store says.

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
  it('is never attached through a socket outside the shares folder, whatever the store says', async () => {
    const elsewhere = path.join(world.dir, 'evil.sock');
    const server = createServer((socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\n\r\n'));
    let connected = false;
    server.on('connection', () => (connected = true));
    await new Promise<void>((resolve) => server.listen(elsewhere, resolve));
    const id = '11111111-2222-3333-4444-555555555555';
    world.store.sessions.create({ id, agent: 'shell', cwd: world.dir, pid: process.pid, recording: null });
    world.store.sessions.setViewSocket(id, elsewhere, true);
    const sessions = (
      await world.json<Array<{ id: string; live: boolean; runsIn: string }>>('/api/sessions')
    ).find((s) => s.id === id);
    expect(sessions).toMatchObject({ live: false, runsIn: 'elsewhere' });
    const viewer = world.terminal(id);
    const code = await new Promise<number>((resolve) => viewer.ws.on('close', (c) => resolve(c)));
    expect(code).toBe(4404);
    expect((await world.api(`/api/sessions/${id}/stop`, { method: 'POST' })).status).toBe(404);
    expect(connected).toBe(false);
    expect(isTrustedSocket(dataDir(), elsewhere)).toBe(false);
    server.close();
  });

  it('refuses a shares folder that is a link or belongs elsewhere, and closes one left open', () => {
    const data = path.join(world.dir, 'other-data');
    mkdirSync(data);
    const target = path.join(world.dir, 'attacker');
    mkdirSync(target);
    symlinkSync(target, sharesDir(data));
    expect(() => prepareSharesDir(data)).toThrow(/is not a folder/);
    rmSync(sharesDir(data));
    mkdirSync(sharesDir(data), { mode: 0o777 });
    chmodSync(sharesDir(data), 0o777);
    prepareSharesDir(data);
    expect(statSync(sharesDir(data)).mode & 0o777).toBe(0o700);
    // A socket there is trusted only while the folder is closed to others.
    const socket = path.join(sharesDir(data), '11111111-2222-3333-4444-555555555555.sock');
    const server = createServer();
    return new Promise<void>((resolve) =>
      server.listen(socket, () => {
        expect(isTrustedSocket(data, socket)).toBe(true);
        chmodSync(sharesDir(data), 0o755);
        expect(isTrustedSocket(data, socket)).toBe(false);
        expect(isTrustedSocket(data, path.join(sharesDir(data), '..', 'x.sock'))).toBe(false);
        server.close(() => resolve());
      }),
    );
  });
});
