// A structured session in the web UI's backend: listed, its prompts in the inbox and answered there, no
// terminal to attach (the socket says so and closes), stopped from the page.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getAgent } from '../../src/agents/registry.js';
import { startWebServer } from '../../src/channels/web/web-server.js';
import { systemClock } from '../../src/core/clock.js';
import { AgentSession } from '../../src/sessions/agent-session.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { sendTextToSession } from '../../src/sessions/typed-text.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { openStore, type Store } from '../../src/store/store.js';
import { FAKE_ACP_AGENT } from '../support/fake-acp.js';
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
  const session = await AgentSession.start({
    spec: getAgent('acp'),
    command: process.execPath,
    args: [FAKE_ACP_AGENT],
    cwd: dir,
    env: { ...process.env, FAKE_ACP_STATE: dir },
    cols: 120,
    rows: 40,
    autoTrust: true,
    record: true,
    store,
    clock: systemClock,
    structured: {},
  });
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
