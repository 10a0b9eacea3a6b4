import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { systemClock } from '../../src/core/clock.js';
import { HostConnection } from '../../src/sessions/host/host-connection.js';
import { postHook } from '../support/hook-host.js';
import { hostFile, listen, startTestHost, type TestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

// Issue 18: a session host's socket is a trust boundary. Node cannot ask the kernel who connected (no
// SO_PEERCRED), so what keeps another user out is checked here, attacked: the folder (0700) and the socket and
// its secret (0600), a client that does not present the secret first, one that lies about what it is, one
// that sends too much, and hook posts without the session's token. Nothing they send reaches the agent.

let dir: string;
const hosts: TestHost[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-host-attack-'));
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.end().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
});

/** A host whose agent touches a file for every line it reads: anything typed into it leaves a trace. */
async function victim(
  options: Parameters<typeof startTestHost>[2] = {},
): Promise<TestHost & { touched: () => boolean }> {
  const trace = path.join(dir, 'typed');
  const started = await startTestHost(dir, `while read -r line; do echo "$line" >> ${trace}; done`, options);
  hosts.push(started);
  return { ...started, touched: () => existsSync(trace) };
}

/** A raw WebSocket client on the socket, sending what it likes; the text frames it got back. */
function raw(socket: string, first: string | Buffer): Promise<string[]> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    const ws = new WebSocket(`ws+unix://${socket}:/`);
    ws.on('open', () => ws.send(first));
    ws.on('message', (data, isBinary) => frames.push(isBinary ? '<binary>' : String(data)));
    ws.on('error', () => undefined);
    ws.on('close', () => resolve(frames));
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('a session host socket', () => {
  it('is a private socket in a private folder, its secret private too', async () => {
    const host = await victim();
    expect(statSync(host.socket).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(host.socket)).mode & 0o777).toBe(0o700);
    expect(statSync(hostFile(dir, `${host.id}.secret`)).mode & 0o777).toBe(0o600);
  });

  it('refuses a client without the secret, with a wrong one, or that types before saying hello; nothing is typed', async () => {
    const host = await victim();
    const hello = (secret: string) =>
      JSON.stringify({ type: 'hello', protocol: 1, secret, client: 'terminal' });
    expect((await raw(host.socket, hello('guessed'))).join()).toContain('"code":"secret"');
    expect((await raw(host.socket, hello('x'.repeat(64)))).join()).toContain('"code":"secret"');
    expect((await raw(host.socket, Buffer.from('rm -rf ~\r'))).join()).toContain('"code":"bad-hello"');
    expect((await raw(host.socket, '{"type":"input","data":"x"}')).join()).toContain('"code":"bad-hello"');
    expect((await raw(host.socket, 'not json')).join()).toContain('"code":"bad-hello"');
    await settle();
    expect(host.touched()).toBe(false);
  });

  it('closes on a frame over the limit, and goes on serving others', async () => {
    const host = await victim();
    const frames = await raw(host.socket, Buffer.alloc(17 * 1024 * 1024, 0x41));
    expect(frames).toEqual([]);
    const client = await host.connect();
    expect(client.welcome.type).toBe('welcome');
  });

  it('lets a browser client neither type, stop, nor inject where the session does not allow the web to type', async () => {
    const host = await victim({ session: { webInput: false } });
    const web = await host.connect({ client: 'web' });
    listen(web);
    web.sendInput('from-the-web\r');
    await expect(web.request({ type: 'stop' })).rejects.toThrow(/may not stop/);
    await expect(web.request({ type: 'inject', parts: ['x\r'], gapMs: 0 })).rejects.toThrow(
      /only the controller/,
    );
    await settle();
    expect(host.touched()).toBe(false);
  });

  it('refuses a browser client outright where the session is not shown on the web', async () => {
    const host = await victim({ session: { webView: false } });
    await expect(host.connect({ client: 'web' })).rejects.toThrow(/not shown on the web/);
  });

  it('types on no one’s behalf for a client that is not the controller, whatever it claims', async () => {
    const host = await victim();
    const controller = await host.connect({ control: 'if-free' });
    const pretender = await host.connect({ client: 'serve', control: 'if-free' });
    expect(pretender.welcome.control).toBe('held');
    listen(controller);
    listen(pretender);
    await expect(pretender.request({ type: 'inject', parts: ['x\r'], gapMs: 0 })).rejects.toThrow(
      /only the controller/,
    );
    pretender.send({ type: 'hookReply', id: 1, status: 200, body: '{}' });
    pretender.send({ type: 'done' });
    await settle();
    expect(host.touched()).toBe(false);
  });

  it('is not reached by a client when its folder is open to others, its secret readable, or it is a link', async () => {
    const host = await victim();
    const secret = hostFile(dir, `${host.id}.secret`);
    const connect = (socket = host.socket) =>
      HostConnection.open({ dataDir: dir, socket, client: 'terminal', clock: systemClock });
    chmodSync(secret, 0o644);
    await expect(connect()).rejects.toThrow(/not to be trusted/);
    chmodSync(secret, 0o600);
    chmodSync(path.dirname(host.socket), 0o755);
    await expect(connect()).rejects.toThrow(/not to be trusted/);
    chmodSync(path.dirname(host.socket), 0o700);
    const link = hostFile(dir, '11111111-2222-3333-4444-555555555555.sock');
    symlinkSync(host.socket, link);
    writeFileSync(hostFile(dir, '11111111-2222-3333-4444-555555555555.secret'), 'x', { mode: 0o600 });
    await expect(connect(link)).rejects.toThrow(/not to be trusted/);
    expect((await connect()).welcome.type).toBe('welcome');
  });
});

describe("a session host's hook route", () => {
  const post = (socket: string, event: string, headers: Record<string, string>, body: string | Buffer) =>
    postHook(socket, event, headers, body).then((answer) => answer.status);

  it('refuses posts without the session token (said to the controller, for its audit) and bodies too large', async () => {
    const token = 'a'.repeat(64);
    const host = await victim({ hookToken: token });
    const controller = await host.connect({ control: 'if-free' });
    const seen = listen(controller);
    const body = JSON.stringify({ session_id: 'x', hook_event_name: 'PermissionRequest' });
    expect(await post(host.socket, 'PermissionRequest', {}, body)).toBe(401);
    expect(
      await post(host.socket, 'PermissionRequest', { authorization: `Bearer ${'b'.repeat(64)}` }, body),
    ).toBe(401);
    expect(
      await post(host.socket, 'Stop', { authorization: `Bearer ${token}` }, Buffer.alloc(2 * 1024 * 1024)),
    ).toBe(413);
    await waitFor(
      'the refusals told',
      () => seen.frames.filter((f) => f.type === 'hookRefused').length === 2,
    );
    expect(seen.frames.some((f) => f.type === 'hook')).toBe(false);
  });
});
