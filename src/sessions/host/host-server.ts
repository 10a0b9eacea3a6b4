import { timingSafeEqual } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Clock } from '../../core/clock.js';
import { parseHello, parseRequest } from './host-requests.js';
import { CLIENTS_CLOSE_GRACE_MS, FRAME_LIMIT, type HostFrame } from './host-wire.js';
import type { Peer, SessionHost } from './session-host.js';

/** A client must say who it is this soon after connecting. */
const HELLO_TIMEOUT_MS = 5_000;
/** Claude Code's hook payloads (a transcript path, a tool's input) fit well within this. */
const MAX_HOOK_BODY_BYTES = 1024 * 1024;
const HOOK_PATH = /^\/hooks\/([A-Za-z]{1,40})$/;

/**
 * The host's unix socket (0600, in a 0700 folder): WebSocket connections from clients, each first presenting
 * the host's secret in a hello, and Claude Code's hook posts (`POST /hooks/<event>`, with the session's hook
 * token). Anything else is refused before it is read.
 */
export async function serveHost(
  host: SessionHost,
  options: { socket: string; secret: string; hookToken: string | null; clock: Clock },
): Promise<{ close(): Promise<void> }> {
  const server = createServer((request, response) => onHttp(host, options.hookToken, request, response));
  const sockets = new WebSocketServer({ server, maxPayload: FRAME_LIMIT });
  sockets.on('connection', (socket) => welcomeOrRefuse(host, socket, options));
  await listen(server, options.socket);
  chmodSync(options.socket, 0o600);
  return {
    close: async () => {
      for (const client of sockets.clients) client.close();
      // Each reads to the end first (the output, then the exit); one that reads nothing any more (paused
      // behind a terminal that went away) is cut off after the grace.
      const cut = options.clock.after(CLIENTS_CLOSE_GRACE_MS, () => {
        for (const client of sockets.clients) client.terminate();
      });
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cut.cancel();
    },
  };
}

function welcomeOrRefuse(
  host: SessionHost,
  socket: WebSocket,
  options: { secret: string; clock: Clock },
): void {
  const timer = options.clock.after(HELLO_TIMEOUT_MS, () => socket.terminate());
  const peer = peerOf(socket, host);
  socket.on('error', () => undefined);
  socket.once('message', (data, isBinary) => {
    timer.cancel();
    const hello = isBinary ? null : parseHello(String(data));
    if (!hello) {
      peer.sendJson({ type: 'refused', code: 'bad-hello', reason: 'the first message must be a hello' });
      return socket.close();
    }
    if (!sameSecret(hello.secret, options.secret)) {
      peer.sendJson({ type: 'refused', code: 'secret', reason: "not this session host's secret" });
      return socket.close();
    }
    socket.on('message', (message, binary) => onMessage(host, peer, message, binary));
    socket.on('close', () => host.leave(peer));
    void host.join(peer, hello);
  });
}

function onMessage(host: SessionHost, peer: Peer, data: RawData, isBinary: boolean): void {
  if (isBinary) return host.input(peer, toBuffer(data));
  const request = parseRequest(String(data));
  if (request) void host.request(peer, request);
}

/** A client's connection as the host writes to it: backlog counted, so a slow one can pause the agent. */
function peerOf(socket: WebSocket, host: SessionHost): Peer {
  let backlog = 0;
  const written = (bytes: number) => () => {
    backlog -= bytes;
    if (backlog <= 0) host.drained();
  };
  const send = (data: string | Buffer, binary: boolean) => {
    if (socket.readyState !== socket.OPEN) return;
    backlog += data.length;
    socket.send(data, { binary }, written(data.length));
  };
  return {
    get open() {
      return socket.readyState === socket.OPEN;
    },
    sendJson: (frame: HostFrame) => send(JSON.stringify(frame), false),
    sendOutput: (chunk: Buffer) => send(chunk, true),
    get backlog() {
      return backlog;
    },
    close: () => socket.close(),
  };
}

/** Claude Code's hooks: checked for the token before anything of the post is read. */
function onHttp(
  host: SessionHost,
  hookToken: string | null,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const event = HOOK_PATH.exec(request.url ?? '')?.[1];
  if (request.method !== 'POST' || !event) return void response.writeHead(404).end();
  const presented = /^Bearer ([0-9a-f]{64})$/.exec(request.headers.authorization ?? '')?.[1];
  if (!hookToken || !presented || !sameSecret(presented, hookToken)) {
    host.hookRefused(event, 'missing or wrong session token');
    return void response.writeHead(401).end();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_HOOK_BODY_BYTES) return void response.writeHead(413).end(() => request.destroy());
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (response.headersSent) return;
    host.hookPost(event, Buffer.concat(chunks).toString('utf8'), {
      answer: (status, body) => {
        if (!response.headersSent)
          response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      },
      onGone: (listener) =>
        response.once('close', () => {
          if (!response.writableFinished) listener();
        }),
    });
  });
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? Buffer.from(data) : data;
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
