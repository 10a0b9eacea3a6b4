// `agent-bridge attach` and detaching, as a person does it in real terminals (tmux panes): a run that detaches
// with Ctrl-\ and goes on, attached again from another terminal, two terminals attached at once, the size
// following whichever typed last, a terminal closing (the session goes on, unless --no-detach), and
// `run --detach`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { endSessionHosts, sessionHosts } from '../support/session-hosts.js';
import { assertTmuxInstalled, pollUntil, processAlive, TmuxSession } from '../support/tmux.js';

const CLI = fileURLToPath(new URL('../../bin/agent-bridge.js', import.meta.url));

assertTmuxInstalled();

let root: string | undefined;
const terminals: TmuxSession[] = [];

afterEach(async () => {
  await Promise.all(terminals.splice(0).map((t) => t.kill()));
  if (root) {
    await endSessionHosts(join(root, 'data'));
    await rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
  root = undefined;
});

async function home(): Promise<{ home: string; data: string; cwd: string }> {
  root ??= await mkdtemp(join(tmpdir(), 'agent-bridge-e2e-attach-'));
  const paths = { home: join(root, 'home'), data: join(root, 'data'), cwd: join(root, 'work') };
  await Promise.all([mkdir(paths.home, { recursive: true }), mkdir(paths.cwd, { recursive: true })]);
  await writeFile(join(paths.home, '.bashrc'), "PS1='inner> '\n");
  return paths;
}

/** A terminal of the person's: an outer bash (prompt `outer> `) in a tmux window of the given size. */
async function terminal(cols = 80, rows = 24): Promise<TmuxSession> {
  const paths = await home();
  const tmux = await TmuxSession.start({
    command: ['bash', '--norc', '--noprofile'],
    env: {
      HOME: paths.home,
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      SHELL: '/bin/bash',
      PS1: 'outer> ',
      HISTFILE: '',
      LANG: 'C.UTF-8',
      AGENT_BRIDGE_HOME: paths.data,
    },
    cols,
    rows,
    cwd: paths.cwd,
  });
  terminals.push(tmux);
  await tmux.waitForPrompt('outer>');
  return tmux;
}

/** The session id a run printed in its start line. */
async function sessionOf(tmux: TmuxSession): Promise<string> {
  return (await tmux.waitForMatch(/session ([0-9a-f]{8}) /))[1]!;
}

let asked = 0;

/**
 * Asks the inner shell for a value (`echo` with a marker of its own: every attached terminal shows what any
 * of them typed) and returns what it printed.
 */
async function innerValue(tmux: TmuxSession, expression: string): Promise<string> {
  const marker = `Q${++asked}x`;
  await tmux.typeLine(`echo "${marker}=${expression}=END"`);
  return (await tmux.waitForMatch(new RegExp(`^${marker}=([^=$\\n]*)=END$`, 'm')))[1]!;
}

/** Asks the inner shell for its size until it is `expected` (a resize reaches it asynchronously). */
async function innerSize(tmux: TmuxSession, expected: string): Promise<void> {
  let last = '';
  await pollUntil(async () => {
    last = await innerValue(tmux, '$(stty size)');
    return last === expected;
  }, `the inner shell to see ${expected}`).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last size seen: ${last}`);
  });
}

describe('agent-bridge attach, in real terminals (tmux)', () => {
  it('detaches with Ctrl-\\ (the session goes on), attaches from another terminal, two at once, the size following whoever typed last', async () => {
    const first = await terminal(80, 24);
    await first.typeLine(`node ${CLI} run shell`);
    const id = await sessionOf(first);
    await first.waitForPrompt('inner>');
    await first.typeLine('echo "one-$((1+1))"');
    await first.waitFor(/^one-2$/m);
    await first.press('C-\\');
    await first.waitFor(`agent-bridge: detached; session ${id} goes on: agent-bridge attach ${id}`);
    await first.waitForPrompt('outer>');
    expect(await first.shellValue('$?')).toBe('0');
    const [host] = sessionHosts((await home()).data);
    expect(processAlive(host!.pid)).toBe(true);

    // Another terminal attaches (the only session here: no id needed) and sees the screen as it was.
    const second = await terminal(90, 25);
    await second.typeLine(`node ${CLI} attach`);
    await second.waitFor(/^one-2$/m);
    await second.waitForPrompt('inner>');
    await innerSize(second, '25 90');

    // The first terminal attaches again: both show what either types.
    await first.typeLine('clear');
    await first.typeLine(`node ${CLI} attach ${id}`);
    await first.waitForPrompt('inner>');
    await first.typeLine('echo "both-$((2+1))"');
    await first.waitFor(/^both-3$/m);
    await second.waitFor(/^both-3$/m);

    // The size is the terminal's that typed last: a resize of the first, then of the second, each taken.
    await first.resize(100, 30);
    await innerSize(first, '30 100');
    await second.resize(70, 20);
    await second.typeLine('echo "typed-here"');
    await innerSize(second, '20 70');

    // The second detaches; the first goes on, and the agent's exit ends it with the agent's code.
    await second.press('C-\\');
    await second.waitForPrompt('outer>');
    await first.typeLine('echo "still-$((3+1))"');
    await first.waitFor(/^still-4$/m);
    await first.typeLine('exit 3');
    await first.waitForPrompt('outer>');
    await first.typeLine('echo "code=$?"');
    await first.waitFor(/^code=3$/m);
    await pollUntil(() => !processAlive(host!.pid), 'the session host to end');
  });

  it('goes on when the terminal of its run closes, and says how to attach again; --no-detach ends it', async () => {
    const closing = await terminal();
    await closing.typeLine(`node ${CLI} run shell`);
    const id = await sessionOf(closing);
    expect(await closing.capture()).toContain(
      `if this terminal closes it goes on: agent-bridge attach ${id}`,
    );
    await closing.waitForPrompt('inner>');
    await closing.typeLine('export MARK=kept-$((40+2))');
    await closing.tmux(['kill-server']); // the terminal closes: SIGHUP to run
    const back = await terminal();
    await back.typeLine(`node ${CLI} attach ${id}`);
    await back.waitForPrompt('inner>');
    expect(await innerValue(back, '$MARK')).toBe('kept-42');
    await back.typeLine('exit');
    await back.waitForPrompt('outer>');

    const bound = await terminal();
    await bound.typeLine(`node ${CLI} run --no-detach shell`);
    await bound.waitForPrompt('inner>');
    const [host] = sessionHosts((await home()).data);
    await bound.tmux(['kill-server']);
    await pollUntil(() => !processAlive(host!.pid), 'the session to end with its terminal');
  });

  it('run --detach starts a session with no terminal; attach reaches it', async () => {
    const shell = await terminal();
    await shell.typeLine(`node ${CLI} run --detach shell`);
    const id = (await shell.waitForMatch(/session ([0-9a-f]{8}) runs detached: agent-bridge attach \1/))[1]!;
    await shell.waitForPrompt('outer>');
    expect(await shell.shellValue('$?')).toBe('0');
    await shell.typeLine(`node ${CLI} attach ${id}`);
    await shell.waitForPrompt('inner>');
    await shell.typeLine('echo "detached-$((5*5))"');
    await shell.waitFor(/^detached-25$/m);
    await shell.typeLine('exit');
    await shell.waitForPrompt('outer>');
  });
});
