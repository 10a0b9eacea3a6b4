import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { WebSession } from '../../src/channels/web/backend.js';
import { CliUnderPty } from '../support/cli-under-pty.js';
import { waitFor } from '../support/wait.js';
import { WebWorld } from '../support/web-world.js';

// Issue 15, item 6: a session started with `agent-bridge run` is reached from the web: watched always, typed
// into only when its person said so (`run --web-input`), decided by its session host (issue 18), whatever
// serve sends. The real CLI in a PTY, the web server of this process on the same data folder.

let world: WebWorld;
let run: CliUnderPty | null = null;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => {
  await run?.stop();
  run = null;
  await world.close();
});

function startRun(extra: string[]): CliUnderPty {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: world.dir,
    AGENT_BRIDGE_HOME: path.join(world.dir, 'data'),
    TERM: 'xterm-256color',
  };
  run = new CliUnderPty(['run', '-q', ...extra, 'custom', '--', 'bash', '--norc', '--noprofile', '-i'], {
    cwd: world.dir,
    env,
    cols: 100,
    rows: 30,
  });
  return run;
}

async function theRunSession(): Promise<WebSession> {
  return waitFor('the run session, shared', async () =>
    (await world.json<WebSession[]>('/api/sessions')).find((s) => s.runsIn === 'terminal'),
  );
}

describe('a session started by agent-bridge run, from the web', () => {
  it('is watched at the size of its own terminal, and keys from the web are dropped', async () => {
    const local = startRun([]);
    const session = await theRunSession();
    expect(session).toMatchObject({ live: true, canType: false, canStop: false, canRestart: false });
    await local.type('echo from-the-terminal');
    const viewer = world.terminal(session.id);
    await waitFor('hello', () => viewer.json.find((f) => f.type === 'hello'));
    expect(viewer.json[0]).toMatchObject({ type: 'hello', cols: 100, rows: 30, canType: false });
    const screen = String(viewer.json.find((f) => f.type === 'screen')?.data ?? '');
    await local.type('echo $((40+2))');
    await waitFor('output from the terminal', () => (screen + viewer.output).includes('42'));
    const marker = path.join(world.dir, 'typed-from-the-web');
    viewer.send({ type: 'input', data: `touch ${marker}\r` });
    viewer.send({ type: 'resize', cols: 40, rows: 10 });
    local.process.resize(90, 25);
    await waitFor('the new size', () => viewer.json.some((f) => f.type === 'size' && f.cols === 90));
    await local.type('echo after');
    await waitFor('more output', () => viewer.output.includes('after'));
    expect(existsSync(marker)).toBe(false);
    await local.type('exit');
    await waitFor('the exit', () => viewer.json.some((f) => f.type === 'exit'));
  });

  it('takes keys from the web and a Stop with --web-input', async () => {
    startRun(['--web-input']);
    const session = await theRunSession();
    expect(session).toMatchObject({ canType: true, canStop: true });
    const viewer = world.terminal(session.id);
    await waitFor('hello', () => viewer.json.find((f) => f.type === 'hello'));
    const marker = path.join(world.dir, 'typed-from-the-web');
    viewer.send({ type: 'input', data: `touch ${marker}\r` });
    await waitFor('the file', () => existsSync(marker));
    expect((await world.api(`/api/sessions/${session.id}/stop`, { method: 'POST' })).status).toBe(200);
    const exit = await run!.waitForExit();
    expect(exit.exitCode).toBe(143);
    await waitFor('ended', async () =>
      (await world.json<WebSession[]>('/api/sessions')).find(
        (s) => s.id === session.id && s.state === 'exited',
      ),
    );
  });

  it('is reached on a socket only this user can open, with its secret; the host itself drops keys the web was not allowed', async () => {
    startRun([]);
    const session = await theRunSession();
    const record = world.store.sessions.get(session.id)!;
    const socket = record.sessionHost!.socket;
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
    // Straight to the socket, past serve, without the host's secret: refused before anything else.
    const stranger = new WebSocket(`ws+unix://${socket}:/`);
    const refused: string[] = [];
    stranger.on('message', (data) => refused.push(String(data)));
    stranger.on('open', () =>
      stranger.send(JSON.stringify({ type: 'hello', protocol: 1, secret: 'guess', client: 'terminal' })),
    );
    await new Promise((resolve) => stranger.on('close', resolve));
    expect(refused.join('')).toContain('"code":"secret"');
    // With the secret, as the web: keys and a stop are still refused by the host.
    const secret = readFileSync(socket.replace(/\.sock$/, '.secret'), 'utf8').trim();
    const direct = new WebSocket(`ws+unix://${socket}:/`);
    const frames: string[] = [];
    direct.on('message', (data, isBinary) => frames.push(isBinary ? '' : String(data)));
    direct.on('open', () =>
      direct.send(JSON.stringify({ type: 'hello', protocol: 1, secret, client: 'web' })),
    );
    await waitFor('welcome', () => frames.find((f) => f.includes('"welcome"')));
    const marker = path.join(world.dir, 'typed-past-serve');
    direct.send(Buffer.from(`touch ${marker}\r`));
    direct.send(JSON.stringify({ type: 'stop', req: 1 }));
    direct.send('{"type":"inject","req":2,"parts":["x"],"gapMs":0}');
    await waitFor('the refusals', () => frames.filter((f) => f.includes('"ok":false')).length === 2);
    await run!.type('echo still-here');
    await run!.waitForText('still-here');
    expect(existsSync(marker)).toBe(false);
    expect(run!.exit).toBeNull();
    direct.close();
  });
});
