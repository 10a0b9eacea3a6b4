import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';
import { WebWorld, type TerminalClient } from '../support/web-world.js';

// Issue 14: a browser watching a session that serve started is handed to the session host, which finishes the
// WebSocket handshake and serves it: the output goes from the PTY to the browser through one process, not two.
// The page sees the same protocol (src/channels/web/API.md) as through serve.

let world: WebWorld | null = null;
afterEach(async () => {
  if (!world) return;
  await world.close();
  // A session a test let go still runs in its host.
  await endSessionHosts(path.join(world.dir, 'data'));
  world = null;
});

async function startShell(): Promise<{ world: WebWorld; id: string }> {
  world = await new WebWorld().start();
  return { world, id: await world.startShell() };
}

async function greeted(client: TerminalClient): Promise<void> {
  await waitFor('hello and the screen', () => client.json.length >= 2);
  expect(client.json[0]).toMatchObject({ type: 'hello', canType: true });
  expect(client.json[1]).toMatchObject({ type: 'screen' });
}

function closeCode(client: TerminalClient): Promise<number> {
  return new Promise((resolve) => client.ws.once('close', (code) => resolve(code)));
}

describe('a browser of a session serve started, served by its session host', () => {
  it("takes keys and shows output, and keeps doing so once serve's web server has closed", async () => {
    const { world, id } = await startShell();
    const viewer = world.terminal(id);
    await greeted(viewer);
    viewer.send({ type: 'input', data: 'echo $((6*7))\r' });
    await waitFor('the output', () => viewer.output.includes('42'));
    // serve no longer listens: the browser's connection is the host's, not serve's.
    await world.closeServer();
    viewer.send({ type: 'input', data: 'echo $((7*8))\r' });
    await waitFor('output after serve stopped listening', () => viewer.output.includes('56'));
    viewer.ws.close();
  });

  it('serves every browser of a team that opens at once itself: serve relays none of them', async () => {
    const { world, id } = await startShell();
    const backend = world.backend;
    const handOff = backend.handOffTerminal.bind(backend);
    let handed = 0;
    let relayed = 0;
    backend.handOffTerminal = (session, upgrade) => {
      const taken = handOff(session, upgrade);
      if (taken) handed++;
      else relayed++;
      return taken;
    };
    const team = Array.from({ length: 12 }, () => world.terminal(id));
    for (const viewer of team) await greeted(viewer);
    expect({ handed, relayed }).toEqual({ handed: 12, relayed: 0 });
    team[0]!.send({ type: 'input', data: 'echo $((6*7))\r' });
    for (const viewer of team)
      await waitFor('the output at every viewer', () => viewer.output.includes('42'));
    for (const viewer of team) viewer.ws.close();
  });

  it('lets a browser far behind read to the end and the exit before the host goes', async () => {
    const { world, id } = await startShell();
    const socketFile = world.store.sessions.get(id)!.sessionHost!.socket;
    const slow = world.terminal(id);
    await greeted(slow);
    // It reads nothing while the agent prints far more than the kernel holds for it, and ends.
    slow.ws.pause();
    slow.send({ type: 'input', data: "head -c 20000000 /dev/zero | tr '\\0' a; exit\r" });
    await waitFor('the host to finish (its socket removed)', () => !existsSync(socketFile), {
      timeoutMs: 30_000,
    });
    // A host that went at once has gone by now, and what it had not sent yet with it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = closeCode(slow);
    slow.ws.resume();
    expect(await closed).toBe(1000);
    expect(slow.json.at(-1)).toMatchObject({ type: 'exit', exitCode: 0 });
  });

  it("takes the first viewer's size at once, and keeps it when the viewer leaves", async () => {
    const { world, id } = await startShell();
    const first = world.terminal(id);
    await greeted(first);
    first.send({ type: 'resize', cols: 100, rows: 30 });
    await waitFor('the size, its own', () =>
      first.json.some((f) => f.type === 'size' && f.cols === 100 && f.rows === 30 && f.driving === true),
    );
    first.send({ type: 'input', data: 'stty size\r' });
    await waitFor('the agent at that size', () => first.output.includes('30 100'));
    const gone = closeCode(first);
    first.ws.close();
    await gone;
    const second = world.terminal(id);
    await greeted(second);
    expect(second.json[0]).toMatchObject({ cols: 100, rows: 30 });
    second.send({ type: 'input', data: 'stty size\r' });
    await waitFor('still that size', () => second.output.includes('30 100'));
    second.ws.close();
  });

  it('is let go when serve lets the session go (1001); the page then comes back through the relay', async () => {
    const { world, id } = await startShell();
    const viewer = world.terminal(id);
    await greeted(viewer);
    const closed = closeCode(viewer);
    expect(world.live.get(id)!.detach('serve stopped')).toBe(true);
    expect(await closed).toBe(1001);
    // The next viewer is served by serve from the host's socket, as a session serve did not start.
    const again = world.terminal(id);
    await waitFor('hello and the screen through the relay', () => again.json.length >= 2);
    again.send({ type: 'input', data: 'echo $((8*9))\r' });
    await waitFor('the output through the relay', () => again.output.includes('72'));
    again.ws.close();
  });
});

/** Who serves a browser: the session's host (handed over), or serve relaying it in the two ways it does. */
const servers: Array<[string, (world: WebWorld, id: string) => void]> = [
  ['the session host, handed the browser by serve', () => undefined],
  [
    'serve, for a session it controls whose host it cannot hand browsers to',
    (world, id) => world.live.get(id)!.host!.viewers!.close(),
  ],
  [
    'serve, for a session it let go',
    (world, id) => expect(world.live.get(id)!.detach('serve restarts')).toBe(true),
  ],
];
const relays = servers.slice(1);

/** A shell whose browsers `serveBy` decides who serves. */
async function shellServedBy(serveBy: (world: WebWorld, id: string) => void) {
  const shell = await startShell();
  serveBy(shell.world, shell.id);
  return shell;
}

describe.each(servers)('a browser served by %s', (_, serveBy) => {
  it('takes keys sent before its hello, and closes normally after the exit', async () => {
    const { world, id } = await shellServedBy(serveBy);
    const viewer = world.terminal(id);
    await viewer.opened;
    viewer.send({ type: 'input', data: 'echo early-$((2+3))\r' });
    await waitFor('the early keys run', () => viewer.output.includes('early-5'));
    const closed = closeCode(viewer);
    viewer.send({ type: 'input', data: 'exit 3\r' });
    await waitFor('the exit', () => viewer.json.some((f) => f.type === 'exit'));
    expect(viewer.json.find((f) => f.type === 'exit')).toEqual({ type: 'exit', exitCode: 3, signal: null });
    expect(await closed).toBe(1000);
  });
});

describe.each(relays)('a browser served by %s', (_, serveBy) => {
  it('is let go (4410) when the session host dies, rather than shown an exit', async () => {
    const { world, id } = await shellServedBy(serveBy);
    const viewer = world.terminal(id);
    await greeted(viewer);
    const closed = closeCode(viewer);
    const hostPid = world.store.sessions.get(id)!.sessionHost!.process.pid;
    process.kill(hostPid, 'SIGKILL');
    expect(await closed).toBe(4410);
    expect(viewer.json.some((f) => f.type === 'exit')).toBe(false);
  });

  it("goes away (1001) when serve's web server closes, as the host's own browsers do", async () => {
    const { world, id } = await shellServedBy(serveBy);
    const viewer = world.terminal(id);
    await greeted(viewer);
    const closed = closeCode(viewer);
    await world.closeServer();
    expect(await closed).toBe(1001);
  });
});
