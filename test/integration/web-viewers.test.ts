import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { WebWorld, type TerminalClient } from '../support/web-world.js';

// Issue 15, item 1: the last viewer to connect resized the terminal for everyone. Now one viewer drives the
// size (the one that typed last, else the first), the others are told the size to show; a read-only viewer
// only watches. Real shells, real WebSockets.

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => world.close());

async function startShell(): Promise<string> {
  const session = await world.json<{ id: string }>('/api/sessions', {
    method: 'POST',
    body: JSON.stringify({ agent: 'custom', cwd: world.dir, args: ['bash', '--norc', '--noprofile', '-i'] }),
  });
  return session.id;
}

const lastSize = (client: TerminalClient) => client.json.filter((f) => f.type === 'size').at(-1);
const ptySize = (id: string) => world.live.get(id)!.terminal!.pty.size;

describe('several viewers of one terminal', () => {
  it('keeps the desktop size when a phone joins, and gives it to whoever types', async () => {
    const id = await startShell();
    const desktop = world.terminal(id);
    await waitFor('the desktop screen', () => desktop.json.some((f) => f.type === 'screen'));
    desktop.send({ type: 'resize', cols: 160, rows: 45 });
    await waitFor('the desktop drives', () => lastSize(desktop)?.cols === 160);
    expect(lastSize(desktop)).toEqual({ type: 'size', cols: 160, rows: 45, driving: true });
    // The viewer is told at once; the terminal takes the size in its session host, a round trip later.
    await waitFor('the terminal at the desktop size', () => ptySize(id).cols === 160);
    expect(ptySize(id)).toEqual({ cols: 160, rows: 45 });

    const phone = world.terminal(id);
    await waitFor('the phone is told the size', () => lastSize(phone));
    phone.send({ type: 'resize', cols: 44, rows: 30 });
    desktop.send({ type: 'input', data: 'stty size\r' });
    await waitFor('stty at the desktop size', () => desktop.output.includes('45 160'));
    expect(lastSize(phone)).toEqual({ type: 'size', cols: 160, rows: 45, driving: false });
    expect(ptySize(id)).toEqual({ cols: 160, rows: 45 });

    phone.send({ type: 'input', data: 'stty size\r' });
    await waitFor('stty at the phone size', () => phone.output.includes('30 44'));
    expect(lastSize(phone)).toEqual({ type: 'size', cols: 44, rows: 30, driving: true });
    expect(lastSize(desktop)).toEqual({ type: 'size', cols: 44, rows: 30, driving: false });

    desktop.send({ type: 'drive' });
    await waitFor('the desktop drives again', () => ptySize(id).cols === 160);
    phone.ws.close();
    desktop.ws.close();
  });

  it('drops what a read-only viewer types, and never takes its size', async () => {
    const id = await startShell();
    const marker = path.join(world.dir, 'typed-by-a-watcher');
    const watcher = world.terminal(id, '?watch=1');
    await waitFor('hello', () => watcher.json.find((f) => f.type === 'hello'));
    expect(watcher.json.find((f) => f.type === 'hello')).toMatchObject({ canType: false });
    watcher.send({ type: 'resize', cols: 30, rows: 10 });
    watcher.send({ type: 'drive' });
    watcher.send({ type: 'input', data: `touch ${marker}\r` });
    const typist = world.terminal(id);
    await waitFor('the typist screen', () => typist.json.some((f) => f.type === 'screen'));
    typist.send({ type: 'input', data: 'echo done-$((2+3))\r' });
    await waitFor('the watcher sees the typist', () => watcher.output.includes('done-5'));
    expect(existsSync(marker)).toBe(false);
    expect(ptySize(id)).toEqual({ cols: 120, rows: 40 });
    watcher.ws.close();
    typist.ws.close();
  });
});
