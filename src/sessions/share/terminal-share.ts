import type { TerminalSession } from '../../drivers/terminal/terminal-session.js';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Store } from '../../store/store.js';
import type { AgentSession } from '../agent-session.js';
import { firstPromptOf } from '../first-prompt.js';
import { ViewerHub } from '../viewer-hub.js';
import { prepareSharesDir, shareSocketPath } from './share-socket.js';
import { parseShareRequest, SHARE_FRAME_LIMIT } from './share-wire.js';

export interface TerminalShareOptions {
  session: AgentSession;
  store: Store;
  /** The person allowed typing from the web (`run --web-input`); otherwise viewers only watch. */
  webInput: boolean;
  /** A web viewer asked to stop the session (only with webInput): stop it as SIGTERM would. */
  onStop: () => void;
}

export interface TerminalShare {
  socket: string;
  /** The terminal `run` runs in was resized: viewers see the new size. */
  resized(cols: number, rows: number): void;
  close(): Promise<void>;
}

/**
 * `agent-bridge run` shares its session's screen with the web UI: `serve` connects to this unix socket (only
 * this user can: share-socket.ts) when a browser opens the session. The terminal `run` runs in keeps the size;
 * keys from the web are taken only when the person said so (`--web-input`), and this process decides that,
 * whatever a client sends. WebSocket frames over the socket (share-wire.ts).
 */
export async function shareTerminal(options: TerminalShareOptions): Promise<TerminalShare> {
  const { session, store, webInput } = options;
  const terminal = session.terminal;
  if (!terminal) throw new Error('only a terminal session has a screen to share');
  prepareSharesDir(store.dir);
  const socketPath = shareSocketPath(store.dir, session.id);
  rmSync(socketPath, { force: true });
  const server = createServer((_request, response) => response.writeHead(426).end());
  const sockets = new WebSocketServer({ server, maxPayload: SHARE_FRAME_LIMIT });
  let hub: ViewerHub | null = null;
  const hubFor = () =>
    (hub ??= new ViewerHub(terminal, null, () => {
      hub = null;
    }));
  sockets.on('connection', (socket) => void serveViewer(socket, terminal, options, hubFor));
  await listen(server, socketPath);
  chmodSync(socketPath, 0o600);
  store.sessions.setViewSocket(session.id, socketPath, webInput);
  return {
    socket: socketPath,
    resized: (cols, rows) => hub?.resized({ cols, rows }),
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(socketPath, { force: true });
    },
  };
}

async function serveViewer(
  socket: WebSocket,
  terminal: TerminalSession,
  options: TerminalShareOptions,
  hubFor: () => ViewerHub,
): Promise<void> {
  const { session, store, webInput } = options;
  const send = (frame: object) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(frame));
  await terminal.screen.catchUp();
  const screen = terminal.screen.serialize();
  if (socket.readyState !== socket.OPEN) return;
  const { cols, rows } = terminal.pty.size;
  send({ type: 'hello', cols, rows, canType: webInput, screen });
  const seat = hubFor().add(
    {
      output: (data) => socket.readyState === socket.OPEN && socket.send(data, { binary: true }),
      exit: (info) => send({ type: 'exit', ...info }),
      size: ({ cols: c, rows: r }) => send({ type: 'size', cols: c, rows: r }),
    },
    { readOnly: !webInput },
  );
  const firstPrompt = firstPromptOf(session, store);
  socket.on('message', (raw, isBinary) => {
    const request = isBinary ? null : parseShareRequest(String(raw));
    if (!request) return;
    if (request.type === 'input' && webInput) {
      seat.input(request.data);
      firstPrompt.typed(request.data);
    }
    if (request.type === 'redraw') {
      void terminal.screen.catchUp().then(() => send({ type: 'screen', data: terminal.screen.serialize() }));
    }
    if (request.type === 'stop' && webInput) options.onStop();
  });
  socket.on('close', () => seat.leave());
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
