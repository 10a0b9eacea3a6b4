// A structured session in the web UI's backend: listed, its prompts in the inbox and answered there, no
// terminal to attach (the socket says so and closes), stopped from the page; shown as a conversation (its
// history and live updates) that takes messages from the page.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ConversationEntry, ConversationFrame } from '../../src/channels/web/conversation-types.js';
import { startWebServer } from '../../src/channels/web/web-server.js';
import { systemClock } from '../../src/core/clock.js';
import type { AgentSession } from '../../src/sessions/agent-session.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { sendTextToSession } from '../../src/sessions/typed-text.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { openStore, type Store } from '../../src/store/store.js';
import { FAKE_ACP_AGENT, startFakeAcpSession } from '../support/fake-acp.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'test-token-1234567890abcdef';
let dir: string;
let store: Store;
let watchStore: Store;
let backend: SessionsWebBackend;
let server: { url: string; close(): Promise<void> };
let live: LiveSessions;

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-web-structured-')));
  process.env.AGENT_BRIDGE_HOME = path.join(dir, 'data');
  store = openStore({ dir: path.join(dir, 'data') });
  watchStore = openStore({ dir: path.join(dir, 'data') });
  live = new LiveSessions();
  backend = new SessionsWebBackend({ store, watchStore, clock: systemClock, live, version: '0', cwd: dir });
  server = await startWebServer({
    backend,
    token: TOKEN,
    host: '127.0.0.1',
    port: 0,
    clock: systemClock,
    staticDir: path.join(dir, 'no-app'),
  });
});

afterEach(async () => {
  await Promise.all(live.all().map((s) => s.driver.stop()));
  await server.close();
  backend.close();
  store.close();
  watchStore.close();
  rmSync(dir, { recursive: true, force: true });
});

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const api = (route: string, init: RequestInit = {}) => fetch(`${server.url}${route}`, { ...init, headers });

async function structuredSession(): Promise<AgentSession> {
  const session = await startFakeAcpSession(store, dir);
  live.add(session);
  return session;
}

describe('web UI with a structured session', () => {
  it('lists it without a terminal; the socket for its terminal closes with a reason; no recording', async () => {
    const session = await structuredSession();
    const listed = (await (await api('/api/sessions')).json()) as Array<{
      id: string;
      live: boolean;
      recording: string | null;
    }>;
    expect(listed.find((s) => s.id === session.id)).toMatchObject({ live: false, recording: null });
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws/terminal/${session.id}`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: server.url },
    });
    const closed = await new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    expect(closed).toBe(4404);
  });

  it('its permission is in the inbox and answered from it: the tool runs; then it is stopped from the page', async () => {
    const session = await structuredSession();
    sendTextToSession(store, session.id, 'TOOL:web.txt', 'web:test');
    session.poke();
    const prompt = await waitFor('the prompt in the inbox', async () => {
      const prompts = (await (await api('/api/prompts')).json()) as Array<{
        id: string;
        choices: Array<{ label: string }>;
      }>;
      return prompts[0];
    });
    expect(prompt.choices.map((c) => c.label)).toEqual(['Allow once', 'Always allow', 'Reject']);
    const answered = await api(`/api/prompts/${prompt.id}/answer`, {
      method: 'POST',
      body: JSON.stringify({ answer: '1' }),
    });
    expect(answered.status).toBe(200);
    await waitFor('the file', () => existsSync(path.join(dir, 'web.txt')));
    expect((await api(`/api/sessions/${session.id}/stop`, { method: 'POST', body: '{}' })).status).toBe(200);
    await session.exited;
  });
});

/** `/ws/conversation/:id` as the page opens it, and every frame it got. */
function watchConversation(id: string): { frames: ConversationFrame[]; ws: WebSocket } {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws/conversation/${id}`, {
    headers: { authorization: `Bearer ${TOKEN}`, origin: server.url },
  });
  const frames: ConversationFrame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as ConversationFrame));
  return { frames, ws };
}

/** The entries as the page has them: each frame's entry replaces the one with its id. */
function entriesOf(frames: ConversationFrame[]): ConversationEntry[] {
  const byId = new Map<number, ConversationEntry>();
  for (const frame of frames) {
    if (frame.type === 'history') for (const entry of frame.entries) byId.set(entry.id, entry);
    if (frame.type === 'entry') byId.set(frame.entry.id, frame.entry);
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

const send = (id: string, text: string) =>
  api(`/api/sessions/${id}/message`, { method: 'POST', body: JSON.stringify({ text }) });

describe('an ACP agent started from the page', () => {
  it('runs under its protocol (the driver run picks), as a conversation, not a dead terminal', async () => {
    const started = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { ...headers, origin: server.url },
      body: JSON.stringify({ agent: 'acp', cwd: dir, args: [process.execPath, FAKE_ACP_AGENT] }),
    });
    expect(started.status).toBe(201);
    const session = (await started.json()) as { id: string; live: boolean; conversation: boolean };
    expect(session).toMatchObject({ live: false, conversation: true });
    const sent = await send(session.id, 'hello there');
    expect(await sent.json()).toMatchObject({ ok: true, outcome: 'queued' });
    const { frames, ws } = watchConversation(session.id);
    await waitFor('its answer', () =>
      entriesOf(frames).some((e) => e.kind === 'agent' && e.text.includes('You said: hello there')),
    );
    ws.close();
  });
});

describe('a structured session as a conversation', () => {
  it('a message from the page reaches it; its answer, a plan, a tool card, its diff and the footer arrive live', async () => {
    const session = await structuredSession();
    const listed = async () =>
      ((await (await api('/api/sessions')).json()) as Array<{ id: string; state: string }>).find(
        (s) => s.id === session.id,
      );
    // Its protocol says when a turn runs: idle until it is sent something.
    expect(await listed()).toMatchObject({ conversation: true, live: false, state: 'idle' });
    const { frames, ws } = watchConversation(session.id);
    await waitFor('the history', () => frames[0]);
    expect(frames[0]).toMatchObject({ type: 'history', entries: [], canSend: true, exit: null });

    const sent = await send(session.id, 'hello there');
    expect(await sent.json()).toEqual({ ok: true, outcome: 'queued', notice: null });
    await waitFor('the answer', () =>
      entriesOf(frames).find((e) => e.kind === 'agent' && e.text.includes('You said: hello there')),
    );
    await send(session.id, 'PLAN');
    await waitFor('the usage', () =>
      frames.find((f) => f.type === 'status' && f.usage?.contextPercent === 21 && f.usage.costUsd === 0.12),
    );
    await send(session.id, 'SLOW');
    await waitFor('busy in the list', async () => (await listed())?.state === 'busy');
    session.driver.interrupt();
    await waitFor('idle again', async () => (await listed())?.state === 'idle');
    await send(session.id, 'WRITE:w.txt');
    await waitFor('its answer after the write', () =>
      entriesOf(frames).find((e) => e.kind === 'agent' && e.text === 'Wrote w.txt.'),
    );
    const expected = [
      { kind: 'person', text: 'hello there', outcome: 'queued' },
      { kind: 'agent', text: 'Hello from the fake agent! You said: hello there' },
      { kind: 'person', text: 'PLAN' },
      {
        kind: 'plan',
        steps: [
          { text: 'Read the code', status: 'completed' },
          { text: 'Fix the bug', status: 'in_progress' },
          { text: 'Run the tests', status: 'pending' },
        ],
      },
      { kind: 'agent', text: 'Planned.' },
      { kind: 'person', text: 'SLOW' },
      { kind: 'person', text: 'WRITE:w.txt' },
      { kind: 'tool', tool: 'edit', text: 'Write w.txt', status: 'done' },
      { kind: 'diff', file: path.join(dir, 'w.txt'), proposed: false },
      { kind: 'agent', text: 'Wrote w.txt.' },
    ];
    expect(entriesOf(frames)).toMatchObject(expected);
    // The tool card was seen running first, then done, under one id.
    const cards = frames.flatMap((f) => (f.type === 'entry' && f.entry.kind === 'tool' ? [f.entry] : []));
    expect(cards.map((c) => [c.id, c.status])).toEqual([
      [cards[0]!.id, 'running'],
      [cards[0]!.id, 'done'],
    ]);
    // The history for scripts (and a page that reloads) is the same.
    const history = (await (await api(`/api/sessions/${session.id}/conversation`)).json()) as {
      entries: ConversationEntry[];
      usage: { model?: string; contextPercent?: number };
      state: string;
    };
    expect(history.entries).toMatchObject(expected);
    const diff = history.entries.find((e) => e.kind === 'diff');
    expect(diff?.kind === 'diff' && diff.diff).toContain('+line 100 of the new file');
    expect(history).toMatchObject({ state: 'idle', usage: { contextPercent: 21 } });
    ws.close();
  });

  it('a message while its permission waits is never typed into it: it is the No, and its words go to the agent', async () => {
    const session = await structuredSession();
    await send(session.id, 'TOOL:never.txt');
    await waitFor('the prompt', async () => ((await (await api('/api/prompts')).json()) as unknown[])[0]);
    const answered = await send(session.id, 'no, call it other.txt');
    expect(await answered.json()).toMatchObject({ ok: true, outcome: 'answered' });
    const conversation = async () =>
      (await (await api(`/api/sessions/${session.id}/conversation`)).json()) as {
        entries: ConversationEntry[];
      };
    await waitFor('the words as its next message', async () =>
      (await conversation()).entries.find(
        (e) => e.kind === 'agent' && /You said: Denied by web:.*: no, call it other\.txt$/.test(e.text),
      ),
    );
    expect(existsSync(path.join(dir, 'never.txt'))).toBe(false);
    const entries = (await conversation()).entries;
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'prompt', promptKind: 'permission' }));
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'tool', status: 'failed' }));
    // What the agent was sent: the tool request, then the words, and nothing typed into the prompt.
    const turns = readFileSync(path.join(dir, 'fake-acp-prompts.log'), 'utf8').trim().split('\n');
    expect(turns.map((line) => (JSON.parse(line) as { text: string }).text)).toEqual([
      'TOOL:never.txt',
      expect.stringMatching(/^Denied by web:\S+, who says: no, call it other\.txt$/),
    ]);
  });

  it('once it ended, its conversation is still there, and takes no message', async () => {
    const session = await structuredSession();
    await send(session.id, 'hi');
    await waitFor('its answer', async () =>
      (
        (await (await api(`/api/sessions/${session.id}/conversation`)).json()) as {
          entries: ConversationEntry[];
        }
      ).entries.find((e) => e.kind === 'agent'),
    );
    await api(`/api/sessions/${session.id}/stop`, { method: 'POST', body: '{}' });
    await session.exited;
    const after = (await (await api(`/api/sessions/${session.id}/conversation`)).json()) as Record<
      string,
      unknown
    >;
    expect(after).toMatchObject({ state: 'exited', canSend: false, exit: { signal: expect.any(String) } });
    expect((after.entries as unknown[]).length).toBe(2);
    const refused = await send(session.id, 'anyone?');
    expect(refused.status).toBe(404);
  });
});
