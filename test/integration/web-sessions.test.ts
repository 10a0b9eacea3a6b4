import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCard, WebRecording, WebSession } from '../../src/channels/web/backend.js';
import { waitFor } from '../support/wait.js';
import { WebWorld } from '../support/web-world.js';

// Issue 15, items 5 to 7: sessions named for people, ended ones kept with their recording, and a state that
// says what is true (an idle shell is idle, an exited one is exited and cannot be stopped).

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
});
afterEach(async () => world.close());

const BASH = ['bash', '--norc', '--noprofile', '-i'];
const sessions = () => world.json<WebSession[]>('/api/sessions');
const sessionOf = async (id: string) => (await sessions()).find((s) => s.id === id);
/** The terminal shows `text`: in the screen it was sent on joining, or in output since. */
const shows = (terminal: ReturnType<WebWorld['terminal']>, text: string) =>
  terminal.json.some((f) => f.type === 'screen' && String(f.data).includes(text)) ||
  terminal.output.includes(text);

async function startBash(): Promise<WebSession> {
  return world.json<WebSession>('/api/sessions', {
    method: 'POST',
    body: JSON.stringify({ agent: 'custom', cwd: world.dir, args: BASH }),
  });
}

describe('sessions in the web UI', () => {
  it('offers a card for a custom command', async () => {
    const config = await world.json<{ agents: ToolCard[] }>('/api/config');
    expect(config.agents.find((a) => a.id === 'custom')).toMatchObject({
      found: true,
      name: 'Custom command',
    });
  });

  it('says a new shell at its prompt is idle, named by agent and folder until its first prompt', async () => {
    // The shell reads no rc file of this machine's user: a home of its own.
    const home = process.env.HOME;
    process.env.HOME = world.dir;
    const started = await world
      .json<WebSession>('/api/sessions', {
        method: 'POST',
        body: JSON.stringify({ agent: 'shell', cwd: world.dir }),
      })
      .finally(() => (process.env.HOME = home));
    expect(started.name).toMatch(/^shell in ab-websec-/);
    expect(started).toMatchObject({
      runsIn: 'serve',
      live: true,
      canType: true,
      canStop: true,
      canRestart: true,
    });
    await waitFor('idle', async () => (await sessionOf(started.id))?.state === 'idle');
    const terminal = world.terminal(started.id);
    await waitFor('the screen', () => terminal.json.some((f) => f.type === 'screen'));
    terminal.send({ type: 'input', data: 'echo fix the flaky login test\r' });
    await waitFor('named by its first prompt', async () =>
      (await sessionOf(started.id))?.name === 'echo fix the flaky login test' ? true : null,
    );
    terminal.ws.close();
  });

  it('says a program it cannot read is running, not busy, and never names it by a password', async () => {
    const started = await world.json<WebSession>('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({
        agent: 'custom',
        cwd: world.dir,
        args: ['bash', '-c', 'read -s -p "Password: " p; echo; exec bash --norc --noprofile -i'],
      }),
    });
    // Waiting once its password question is seen (a prompt is open); never busy or idle: it cannot be read.
    expect((await sessionOf(started.id))?.state).toMatch(/^(running|waiting)$/);
    const terminal = world.terminal(started.id);
    await waitFor('the password question', () => shows(terminal, 'Password:'));
    terminal.send({ type: 'input', data: 'hunter22\r' });
    await waitFor('the shell', () => /[$#] $/.test(terminal.output));
    await waitFor('running again, the question answered', async () =>
      (await sessionOf(started.id))?.state === 'running' ? true : null,
    );
    terminal.send({ type: 'input', data: 'echo second line token=abcd1234secret\r' });
    // Echoed, so kept; the secret in it hidden.
    await waitFor('named by the line that was echoed', async () =>
      (await sessionOf(started.id))?.firstPrompt === 'echo second line token=[redacted]' ? true : null,
    );
    terminal.ws.close();
  });

  it('names a session by a line its program shows only after other output (a TUI that redraws first)', async () => {
    // The terminal echoes nothing; the program prints a status, pauses past a settle, then shows the line.
    const script =
      'stty -echo; printf \'ready> \'; while IFS= read -r l; do echo thinking; sleep 0.3; echo "$l"; done';
    const started = await world.json<WebSession>('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({ agent: 'custom', cwd: world.dir, args: ['bash', '-c', script] }),
    });
    const terminal = world.terminal(started.id);
    await waitFor('the program', () => shows(terminal, 'ready> '));
    terminal.send({ type: 'input', data: 'refactor the billing module\r' });
    await waitFor('the line shown', () => terminal.output.includes('refactor the billing module'));
    await waitFor('named by it', async () =>
      (await sessionOf(started.id))?.firstPrompt === 'refactor the billing module' ? true : null,
    );
    terminal.ws.close();
  });

  it('keeps an ended session, exited and not stoppable, with its recording; starts it again', async () => {
    const started = await startBash();
    world.live.get(started.id)!.terminal!.userInput('exit 3\r');
    await waitFor('exited', async () => (await sessionOf(started.id))?.state === 'exited');
    const ended = (await sessionOf(started.id))!;
    expect(ended).toMatchObject({ live: false, canStop: false, canType: false, canRestart: true });
    expect(ended.ended).toMatchObject({ status: 'completed', exitCode: 3 });
    expect(ended.recording).toBeTruthy();
    expect((await world.api(`/api/sessions/${started.id}/stop`, { method: 'POST' })).status).toBe(404);
    const recordings = await world.json<WebRecording[]>('/api/recordings');
    expect(recordings.find((r) => r.id === ended.recording)?.session).toMatchObject({
      id: started.id,
      name: ended.name,
    });
    const again = await world.json<WebSession>(`/api/sessions/${started.id}/restart`, { method: 'POST' });
    expect(again.id).not.toBe(started.id);
    expect(again).toMatchObject({ agent: 'custom', cwd: started.cwd, live: true });
  });

  it('takes a name from the person, one line, and gives it back on null', async () => {
    const started = await startBash();
    const rename = (name: unknown) =>
      world.api(`/api/sessions/${started.id}/name`, { method: 'POST', body: JSON.stringify({ name }) });
    expect((await rename('API refactor')).status).toBe(200);
    expect((await sessionOf(started.id))?.name).toBe('API refactor');
    expect((await rename('two\nlines')).status).toBe(400);
    expect((await rename('x'.repeat(81))).status).toBe(400);
    expect((await rename(null)).status).toBe(200);
    expect((await sessionOf(started.id))?.customName).toBeNull();
    const missing = await world.api('/api/sessions/nope/name', {
      method: 'POST',
      body: JSON.stringify({ name: 'x' }),
    });
    expect(missing.status).toBe(404);
  });

  it('lists sessions that ended long ago, and resumes only where the agent can', async () => {
    world.store.sessions.create({
      id: 'old-claude',
      agent: 'claude',
      cwd: world.dir,
      pid: 1,
      recording: null,
    });
    world.store.sessions.end('old-claude', 'completed', 0);
    world.store.sessions.create({ id: 'old-shell', agent: 'shell', cwd: world.dir, pid: 1, recording: null });
    world.store.sessions.end('old-shell', 'completed', 0);
    const listed = await sessions();
    expect(listed.find((s) => s.id === 'old-claude')).toMatchObject({ state: 'exited', canResume: true });
    expect(listed.find((s) => s.id === 'old-shell')).toMatchObject({ state: 'exited', canResume: false });
    expect((await world.api('/api/sessions/old-shell/resume', { method: 'POST' })).status).toBe(404);
  });

  it('resumes the same conversation by the id the agent reported, under the same name', async () => {
    // A stand-in for the agent's executable that shows the arguments it was launched with.
    const claude = path.join(world.dir, 'claude');
    writeFileSync(claude, '#!/bin/sh\necho "launched with: $*"\nexec sleep 60\n', { mode: 0o755 });
    process.env.AGENT_BRIDGE_CLAUDE_PATH = claude;
    try {
      world.store.sessions.create({ id: 'talk', agent: 'claude', cwd: world.dir, pid: 1, recording: null });
      world.store.sessions.setAgentSessionId('talk', 'conv-42');
      world.store.sessions.setName('talk', 'Billing bug');
      world.store.sessions.end('talk', 'completed', 0);
      const resumed = await world.json<WebSession>('/api/sessions/talk/resume', { method: 'POST' });
      expect(resumed).toMatchObject({ agent: 'claude', name: 'Billing bug', live: true });
      const terminal = world.terminal(resumed.id);
      await waitFor('the launch line', () =>
        (terminal.json.map((f) => String(f.data ?? '')).join('') + terminal.output).includes(
          '--resume conv-42',
        ),
      );
      terminal.ws.close();
    } finally {
      delete process.env.AGENT_BRIDGE_CLAUDE_PATH;
    }
  });
});
