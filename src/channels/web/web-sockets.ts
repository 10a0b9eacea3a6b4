import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { WebBackend } from './backend.js';

/** Larger frames close the socket (1009): input and resize messages are small. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** Live terminals and change notifications. access-guard.ts has already checked the token and the Origin. */
export async function registerSockets(server: FastifyInstance, backend: WebBackend): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  await server.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  server.get<{ Params: { id: string } }>(
    '/ws/terminal/:id',
    { websocket: true },
    (socket, request) => void attachTerminal(socket, request.params.id, backend),
  );
  server.get('/ws/events', { websocket: true }, (socket) => {
    const stop = backend.onEvent((event) => socket.send(JSON.stringify(event)));
    socket.on('close', stop);
  });
}

/** A viewer this far behind (a background tab, a slow link) is skipped, then redrawn once it caught up. */
export const LAG_LIMIT_BYTES = 4 * 1024 * 1024;
const CAUGHT_UP_BYTES = 256 * 1024;

async function attachTerminal(socket: WebSocket, sessionId: string, backend: WebBackend): Promise<void> {
  let lagging = false;
  let redrawing = false;
  const attachment = await backend.attach(sessionId, {
    output: (data) => {
      if (socket.readyState !== socket.OPEN) return;
      if (!lagging && socket.bufferedAmount > LAG_LIMIT_BYTES) lagging = true;
      if (!lagging) return void socket.send(data, { binary: true });
      if (redrawing || socket.bufferedAmount > CAUGHT_UP_BYTES) return;
      // Caught up: the screen now is what it would have seen; skip the backlog.
      redrawing = true;
      void attachment?.redraw().then((screen) => {
        socket.send(JSON.stringify({ type: 'screen', data: screen }));
        lagging = false;
        redrawing = false;
      });
    },
    exit: (info) =>
      socket.readyState === socket.OPEN && socket.send(JSON.stringify({ type: 'exit', ...info })),
  });
  if (!attachment) {
    socket.close(4404, 'no such live session');
    return;
  }
  socket.send(JSON.stringify({ type: 'hello', cols: attachment.cols, rows: attachment.rows }));
  socket.send(JSON.stringify({ type: 'screen', data: attachment.screen }));
  socket.on('message', (raw, isBinary) => {
    if (isBinary) return;
    let message: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
    try {
      message = JSON.parse(String(raw)) as typeof message;
    } catch {
      return;
    }
    if (message.type === 'input' && typeof message.data === 'string') attachment.input(message.data);
    if (message.type === 'resize' && isSize(message.cols) && isSize(message.rows))
      attachment.resize(message.cols, message.rows);
  });
  socket.on('close', () => attachment.detach());
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= 1000;
}
