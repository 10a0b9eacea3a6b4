import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { systemClock } from '../../src/core/clock.js';
import { HostConnection } from '../../src/sessions/host/host-connection.js';
import { hostPaths, prepareHostsDir, writeSecret } from '../../src/sessions/host/host-files.js';
import { PROTOCOL } from '../../src/sessions/host/host-wire.js';
import { RemotePort } from '../../src/sessions/host/remote-port.js';
import { startTestHost, type TestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

// Issue 18: the session-host protocol is versioned. A session host outlives the agent-bridge that started it,
// so an upgraded agent-bridge meets older hosts: it drives one it can (newer fields and messages are
// ignored either way), and for one it cannot it says what to run. A client too old for a host is told too.

let dir: string;
let fake: Server | null = null;
let host: TestHost | null = null;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-protocol-'));
});
afterEach(async () => {
  await host?.end().catch(() => undefined);
  host = null;
  await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
  fake = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A host of another version: its socket and secret where a real one's are, its welcome what `welcome` says. */
async function fakeHost(welcome: (id: string) => object, after: (ws: WebSocket) => void = () => undefined) {
  const id = randomUUID();
  prepareHostsDir(dir);
  const paths = hostPaths(dir, id);
  writeSecret(paths.secret);
  fake = createServer();
  const sockets = new WebSocketServer({ server: fake });
  sockets.on('connection', (ws) =>
    ws.once('message', () => {
      ws.send(JSON.stringify(welcome(id)));
      after(ws);
    }),
  );
  await new Promise<void>((resolve) => fake!.listen(paths.socket, resolve));
  return { id, socket: paths.socket };
}

const session = (id: string) => ({
  id,
  agent: 'shell',
  label: 'x',
  cwd: dir,
  command: 'bash',
  recording: null,
});

describe('the session-host protocol', () => {
  it('refuses a client older than the host, saying which agent-bridge to use', async () => {
    host = await startTestHost(dir, 'sleep 30', { version: '9.1.0' });
    const secret = (await import('node:fs'))
      .readFileSync(host.socket.replace(/\.sock$/, '.secret'), 'utf8')
      .trim();
    const frames: string[] = [];
    const ws = new WebSocket(`ws+unix://${host.socket}:/`);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', protocol: 0, secret, client: 'terminal' })));
    ws.on('message', (data) => frames.push(String(data)));
    await new Promise((resolve) => ws.on('close', resolve));
    expect(JSON.parse(frames[0]!)).toMatchObject({
      type: 'refused',
      code: 'protocol',
      reason: expect.stringContaining('use agent-bridge 9.1.0 or newer'),
    });
  });

  it('says what to run for a host older than it can drive', async () => {
    const { id, socket } = await fakeHost((sessionId) => ({
      type: 'welcome',
      protocol: 0,
      version: '0.0.9',
      session: session(sessionId),
    }));
    const opened = HostConnection.open({ dataDir: dir, socket, client: 'terminal', clock: systemClock });
    await expect(opened).rejects.toThrow(
      `session ${id.slice(0, 8)} runs in a session host of agent-bridge 0.0.9 (protocol 0), older than this agent-bridge can drive`,
    );
    await expect(opened).rejects.toThrow(`npx agent-bridge@0.0.9 attach ${id.slice(0, 8)}`);
  });

  it('drives a newer host at its own protocol, ignoring what it does not know', async () => {
    const { socket } = await fakeHost(
      (sessionId) => ({
        type: 'welcome',
        protocol: PROTOCOL,
        version: '99.0.0',
        session: { ...session(sessionId), somethingNew: true },
        pid: 1234,
        hostPid: 1233,
        ttyPath: '/dev/pts/9',
        cols: 80,
        rows: 24,
        title: '',
        screen: 'hello',
        outputAt: 5,
        control: 'none',
        exit: null,
        aFieldOfTomorrow: { x: 1 },
      }),
      (ws) => {
        ws.send(JSON.stringify({ type: 'hologram', data: 'ignored' }));
        ws.send(Buffer.from(' world'), { binary: true });
        ws.send(JSON.stringify({ type: 'size', cols: 100, rows: 30, driving: false, tilt: 3 }));
      },
    );
    const connection = await HostConnection.open({
      dataDir: dir,
      socket,
      client: 'terminal',
      clock: systemClock,
    });
    const port = new RemotePort(connection, { screen: 'hello', outputAt: 5, cols: 80, rows: 24 });
    let output = '';
    port.onData((chunk) => (output += String(chunk)));
    connection.start();
    await waitFor('the output and the size', () => output === ' world' && port.size.cols === 100);
    connection.close();
  });
});
