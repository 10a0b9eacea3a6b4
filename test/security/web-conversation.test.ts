import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentSession } from '../../src/sessions/agent-session.js';
import { startFakeAcpSession } from '../support/fake-acp.js';
import { rawRequest, UPGRADE_HEADERS } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';
import { waitFor } from '../support/wait.js';

// Issue 16: a structured session's conversation in the web UI, attacked. Its history, its live socket and a
// message for it need the token; a message carrying the cookie from another page is refused, and so is a socket
// from one; a message reaches only the structured session it names, while it runs here; a body that is not
// exactly `{ text }` (too long, another shape, control characters or bidi overrides) types nothing.

let world: WebWorld;
let session: AgentSession;
beforeEach(async () => {
  world = await new WebWorld().start();
  session = await startFakeAcpSession(world.store, world.dir);
  world.live.add(session);
});
afterEach(async () => world.close());

const cookie = `Cookie: agent_bridge_token=${WEB_TOKEN}`;
const bearer = `Authorization: Bearer ${WEB_TOKEN}`;
/** What reached the agent as its turns (the fake agent logs each one). */
const turnsLog = () => path.join(world.dir, 'fake-acp-prompts.log');
const inputs = () =>
  (world.store.db.prepare('SELECT COUNT(*) AS n FROM session_inputs').get() as { n: number }).n;

const post = (target: string, body: string, extra: string[]) => world.rawPost(target, body, extra);

const message = (text: unknown, extra = [bearer]) =>
  post(`/api/sessions/${session.id}/message`, JSON.stringify({ text }), extra);

describe("a structured session's conversation", () => {
  it('gives nothing and types nothing without the token, or with a wrong one', async () => {
    for (const credential of [[], [`Authorization: Bearer ${WEB_TOKEN.slice(1)}`], [`${cookie}x`]]) {
      const read = await rawRequest(
        world.port,
        [
          `GET /api/sessions/${session.id}/conversation HTTP/1.1`,
          `Host: ${world.host}`,
          'Connection: close',
          ...credential,
        ].join('\r\n'),
      );
      expect(read.status).toBe(401);
      const sent = await message('TOOL:pwned.txt', [`Origin: ${world.url}`, ...credential]);
      expect(sent.status).toBe(401);
      const socket = await rawRequest(
        world.port,
        [
          `GET /ws/conversation/${session.id} HTTP/1.1`,
          `Host: ${world.host}`,
          `Origin: ${world.url}`,
          ...credential,
          ...UPGRADE_HEADERS,
        ].join('\r\n'),
      );
      expect(socket.status).toBe(401);
      socket.socket.destroy();
    }
    expect(inputs()).toBe(0);
    expect(existsSync(turnsLog())).toBe(false);
  });

  it('refuses a message carrying the cookie from another page, or from none; a script sends one with its Bearer', async () => {
    for (const origin of ['https://evil.example', `http://localhost:${world.port + 1}`, 'null']) {
      expect((await message('TOOL:pwned.txt', [cookie, `Origin: ${origin}`])).status).toBe(403);
      expect((await message('TOOL:pwned.txt', [bearer, `Origin: ${origin}`])).status).toBe(403);
    }
    expect((await message('TOOL:pwned.txt', [cookie])).status).toBe(403);
    const crossSite = await message('TOOL:pwned.txt', [
      cookie,
      `Origin: ${world.url}`,
      'Sec-Fetch-Site: cross-site',
    ]);
    expect(crossSite.status).toBe(403);
    expect(inputs()).toBe(0);
    // The page's own origin with the cookie, or a script's Bearer, is heard.
    expect((await message('hello', [cookie, `Origin: ${world.url}`])).status).toBe(200);
    expect((await message('again')).status).toBe(200);
    await waitFor('both turns', () => existsSync(turnsLog()));
  });

  it('opens its socket only from the page itself', async () => {
    const open = (origin: string | undefined) =>
      new Promise<number | 'open'>((resolve) => {
        const ws = new WebSocket(`${world.url.replace('http', 'ws')}/ws/conversation/${session.id}`, {
          headers: { authorization: `Bearer ${WEB_TOKEN}`, ...(origin ? { origin } : {}) },
        });
        ws.on('open', () => {
          ws.close();
          resolve('open');
        });
        ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        ws.on('error', () => undefined);
      });
    expect(await open('https://evil.example')).toBe(403);
    expect(await open(`http://localhost:${world.port + 1}`)).toBe(403);
    expect(await open(undefined)).toBe(403);
    expect(await open(world.url)).toBe('open');
  });

  it("reaches only the structured session it names, while it runs here: not a terminal session's, another id, or an ended one", async () => {
    const shell = await world.json<{ id: string }>('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({ agent: 'shell', cwd: world.dir }),
    });
    world.store.sessions.create({ id: 'stored-only', agent: 'acp', cwd: world.dir, pid: 1, recording: null });
    for (const id of [
      shell.id,
      'stored-only',
      'nope',
      '..%2f..%2fapi',
      encodeURIComponent(`${session.id} `),
    ]) {
      const sent = await post(`/api/sessions/${id}/message`, JSON.stringify({ text: 'echo pwned' }), [
        bearer,
      ]);
      expect(sent.status, id).toBe(404);
      expect(JSON.parse(sent.body)).toEqual({ error: expect.any(String) });
      expect((await world.api(`/api/sessions/${id}/conversation`)).status, id).toBe(404);
    }
    // The terminal session has no conversation socket either.
    const ws = new WebSocket(`${world.url.replace('http', 'ws')}/ws/conversation/${shell.id}`, {
      headers: { authorization: `Bearer ${WEB_TOKEN}`, origin: world.url },
    });
    expect(await new Promise((resolve) => ws.on('close', (code) => resolve(code)))).toBe(4404);
    expect(inputs()).toBe(0);
    await session.stop();
    expect((await message('after the end')).status).toBe(404);
    expect(inputs()).toBe(0);
  });

  it('types nothing for a body that is not exactly { text }: too big, too long, another shape, not JSON', async () => {
    const route = `/api/sessions/${session.id}/message`;
    const bodies = [
      JSON.stringify({ text: 'x'.repeat(10_001) }),
      JSON.stringify({ text: 'hi', sentBy: 'telegram:1' }),
      JSON.stringify({ text: 42 }),
      JSON.stringify({ text: ['TOOL:a'] }),
      JSON.stringify({ text: '' }),
      JSON.stringify({ text: ' \n\t ' }),
      JSON.stringify({}),
      JSON.stringify(['TOOL:a']),
      'null',
      '{"text": "TOOL:a"',
      'text=TOOL:a',
    ];
    for (const body of bodies) {
      const sent = await post(route, body, [bearer]);
      expect(sent.status, body.slice(0, 40)).toBe(400);
      expect(sent.body, body.slice(0, 40)).not.toMatch(/at .*\.(ts|js):\d+/);
    }
    const tooLong = await post(route, JSON.stringify({ text: 'x'.repeat(10_001) }), [bearer]);
    expect(JSON.parse(tooLong.body).error).toMatch(/^send \{ text: "\.\.\." \} \(at most 10000 characters\)/);
    // Over the server's body limit: refused before it is read whole.
    const huge = await post(route, JSON.stringify({ text: 'x'.repeat(70 * 1024) }), [bearer]);
    expect(huge.status).toBe(413);
    expect(inputs()).toBe(0);
    expect(existsSync(turnsLog())).toBe(false);
  });

  it('types nothing with a control character or a bidi override in it, and says which', async () => {
    for (const [text, named] of [
      ['ls\x03', 'Ctrl-C'],
      ['\x1b[2Jclear', 'ESC'],
      ['a\x00b', '\\x00'],
      ['rm -rf /\x7f', 'DEL'],
      ['\x9b31m', '\\x9b'],
      ['\u202eevil\u202c', 'bidirectional'],
    ] as const) {
      const sent = await message(text);
      expect(sent.status, JSON.stringify(text)).toBe(400);
      expect(JSON.parse(sent.body).error).toContain(named);
    }
    expect(inputs()).toBe(0);
    expect(existsSync(turnsLog())).toBe(false);
    // Line breaks and tabs are text.
    expect((await message('two\nlines\tand a tab')).status).toBe(200);
    await waitFor('the turn', () => existsSync(turnsLog()));
  });
});
