import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebServer } from '../../src/channels/web/web-server.js';
import { LAG_LIMIT_BYTES } from '../../src/channels/web/terminal-socket.js';
import { systemClock } from '../../src/core/clock.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { openStore, type Store } from '../../src/store/store.js';
import { openPrompt, yesNoPrompt } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'test-token-1234567890abcdef';
let dir: string;
let store: Store;
let watchStore: Store;
let backend: SessionsWebBackend;
let server: { url: string; close(): Promise<void> };
let live: LiveSessions;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-web-'));
  process.env.AGENT_BRIDGE_HOME = path.join(dir, 'data');
  store = openStore({ dir: path.join(dir, 'data') });
  watchStore = openStore({ dir: path.join(dir, 'data') });
  live = new LiveSessions();
  backend = new SessionsWebBackend({
    store,
    watchStore,
    clock: systemClock,
    live,
    version: '0.0.0',
    cwd: dir,
  });
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

const auth = { authorization: `Bearer ${TOKEN}` };
const api = (route: string, init: RequestInit = {}) =>
  fetch(`${server.url}${route}`, {
    ...init,
    headers: { ...auth, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

function socket(route: string, headers: Record<string, string>) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}${route}`, { headers });
  const frames: Array<string | Buffer> = [];
  ws.on('message', (data, isBinary) => frames.push(isBinary ? (data as Buffer) : String(data)));
  return { ws, frames };
}

describe('web UI security', () => {
  it('listens on loopback and refuses requests without the token', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/api/sessions`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/api/sessions`, { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    expect(
      (await fetch(`${server.url}/api/sessions`, { headers: { cookie: 'agent_bridge_token=wrong' } })).status,
    ).toBe(401);
  });

  it('trades the token in the URL for an HttpOnly cookie and a clean address', async () => {
    const response = await fetch(`${server.url}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/');
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^agent_bridge_token=test-token-1234567890abcdef; HttpOnly; SameSite=Strict; Path=\//,
    );
    expect(
      (await fetch(`${server.url}/api/sessions`, { headers: { cookie: cookie.split(';')[0]! } })).status,
    ).toBe(200);
  });

  it('throttles repeated bad tokens but never the right one, and audits the burst in a line', async () => {
    for (let i = 0; i < 10; i++)
      expect(
        (await fetch(`${server.url}/api/config`, { headers: { authorization: `Bearer guess${i}` } })).status,
      ).toBe(401);
    expect(
      (await fetch(`${server.url}/api/config`, { headers: { authorization: 'Bearer guess' } })).status,
    ).toBe(429);
    expect((await api('/api/config')).status).toBe(200);
    const audited = store.db
      .prepare("SELECT COUNT(*) AS n FROM audit_events WHERE event = 'UNAUTHORIZED'")
      .get() as { n: number };
    // The first refusal at once; the other ten are written as one line with their count at the window's end.
    expect(audited.n).toBe(1);
  });

  it('refuses path traversal in recordings', async () => {
    mkdirSync(path.join(dir, 'data', 'recordings'), { recursive: true });
    writeFileSync(path.join(dir, 'secret.cast'), 'nope');
    for (const id of ['..%2Fsecret', '..%2F..%2Fsecret', '%2E%2E%2Fsecret', 'a%00b']) {
      expect((await api(`/api/recordings/${id}`)).status).toBe(404);
    }
  });

  it('refuses oversized requests and nothing changes', async () => {
    const big = JSON.stringify({ agent: 'shell', cwd: dir, args: ['x'.repeat(100_000)] });
    expect((await api('/api/sessions', { method: 'POST', body: big })).status).toBe(413);
    expect(live.all()).toHaveLength(0);
  });

  it('refuses a cross-origin WebSocket, even with the token', async () => {
    const { ws } = socket('/ws/events', { ...auth, origin: 'https://evil.example' });
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(403);
  });
});

describe('web UI API and live terminals', () => {
  it('lists agents, starts a shell, attaches a terminal that shows the screen and takes keys', async () => {
    const config = (await (await api('/api/config')).json()) as {
      agents: Array<{ id: string; found: boolean }>;
    };
    expect(config.agents.find((a) => a.id === 'shell')?.found).toBe(true);
    const started = (await (
      await api('/api/sessions', {
        method: 'POST',
        body: JSON.stringify({ agent: 'custom', cwd: dir, args: ['bash', '--norc', '-i'] }),
      })
    ).json()) as { id: string; live: boolean };
    expect(started.live).toBe(true);
    const origin = server.url;
    const { ws, frames } = socket(`/ws/terminal/${started.id}`, { ...auth, origin });
    await waitFor('hello and screen', () => frames.length >= 2);
    expect(JSON.parse(frames[0] as string)).toEqual({ type: 'hello', cols: 120, rows: 40, canType: true });
    expect(JSON.parse(frames[1] as string).type).toBe('screen');
    ws.send(JSON.stringify({ type: 'input', data: 'echo $((6*7))\r' }));
    await waitFor('the output', () => frames.some((f) => Buffer.isBuffer(f) && f.toString().includes('42')));
    const second = socket(`/ws/terminal/${started.id}`, { ...auth, origin });
    await waitFor(
      'a second viewer gets the screen so far',
      () => second.frames.length >= 2 && String(second.frames[1]).includes('42'),
    );
    ws.close();
    second.ws.close();
  });

  it('skips a viewer that stopped reading to the current screen once it drains; the others get every byte', async () => {
    // Far more than LAG_LIMIT_BYTES, then a last line, then silence: the stalled viewer must still see it.
    const bytes = 4 * LAG_LIMIT_BYTES;
    const script = `stty -echo; IFS= read -r x; head -c ${bytes} /dev/zero | tr '\\0' a; printf '\\nlast line\\n'; sleep 30`;
    const started = (await (
      await api('/api/sessions', {
        method: 'POST',
        body: JSON.stringify({ agent: 'custom', cwd: dir, args: ['sh', '-c', script] }),
      })
    ).json()) as { id: string };
    const headers = { ...auth, origin: server.url };
    const steady = socket(`/ws/terminal/${started.id}`, headers);
    const stalled = socket(`/ws/terminal/${started.id}`, headers);
    await waitFor('both attached', () => steady.frames.length >= 2 && stalled.frames.length >= 2);
    // The stalled one reads nothing: a background tab. Its kernel buffers fill, then the server's queue.
    (stalled.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    steady.ws.send(JSON.stringify({ type: 'input', data: '\r' }));
    const received = () =>
      steady.frames.reduce<number>((sum, f) => sum + (Buffer.isBuffer(f) ? f.length : 0), 0);
    await waitFor('every byte at the steady viewer', () => received() >= bytes + '\r\nlast line\r\n'.length, {
      timeoutMs: 60_000,
    });
    expect(
      steady.frames
        .filter((f) => Buffer.isBuffer(f))
        .map(String)
        .join(''),
    ).toMatch(/^a+\r\nlast line\r\n$/);
    (stalled.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await waitFor(
      'the stalled viewer redrawn with the current screen',
      () =>
        stalled.frames
          .slice(2)
          .some((f) => typeof f === 'string' && f.includes('"screen"') && f.includes('last line')),
      { timeoutMs: 60_000 },
    );
    const got = stalled.frames.reduce<number>((sum, f) => sum + (Buffer.isBuffer(f) ? f.length : 0), 0);
    expect(got).toBeLessThan(bytes);
    steady.ws.close();
    stalled.ws.close();
  });

  it('closes a socket that sends an oversized frame', async () => {
    const started = (await (
      await api('/api/sessions', { method: 'POST', body: JSON.stringify({ agent: 'shell', cwd: dir }) })
    ).json()) as { id: string };
    const { ws } = socket(`/ws/terminal/${started.id}`, { ...auth, origin: server.url });
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(JSON.stringify({ type: 'input', data: 'x'.repeat(100_000) }));
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(code).toBe(1009);
  });

  it('answers a prompt once: 200, then 409; a bad answer is 400; an unknown prompt 404', async () => {
    store.sessions.create({ id: 'sess', agent: 'shell', cwd: dir, pid: 1, recording: null });
    const record = openPrompt(
      store,
      'sess',
      yesNoPrompt({ excerpt: 'Go? (y/n)', detail: 'Go? (y/n)', key: 'k' }),
    );
    const prompts = (await (await api('/api/prompts')).json()) as Array<{ id: string; excerpt: string }>;
    expect(prompts.map((p) => p.excerpt)).toEqual(['Go? (y/n)']);
    const post = (answer: string, id = record.id) =>
      api(`/api/prompts/${id}/answer`, { method: 'POST', body: JSON.stringify({ answer }) });
    expect((await post('maybe')).status).toBe(400);
    const first = await post('yes');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, summary: 'yes', queued: false });
    expect((await post('no')).status).toBe(409);
    expect((await post('yes', 'ffffffff')).status).toBe(404);
  });
});
