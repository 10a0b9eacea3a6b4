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

/**
 * Backpressure per viewer: one this far behind (a background tab, a slow phone) is sent nothing more; once what
 * it was sent has gone out, it gets the screen as it is then and goes on from there. The others, and the
 * agent, never wait for it.
 */
export const LAG_LIMIT_BYTES = 4 * 1024 * 1024;

async function attachTerminal(socket: WebSocket, sessionId: string, backend: WebBackend): Promise<void> {
  let lagging = false;
  // Output is framed as it comes (binary, the same buffer for every viewer: nothing re-encoded per viewer).
  const attachment = await backend.attach(sessionId, {
    output: (data) => {
      if (socket.readyState !== socket.OPEN || lagging) return;
      if (socket.bufferedAmount <= LAG_LIMIT_BYTES) return void socket.send(data, { binary: true });
      lagging = true;
      // A ping goes out after everything queued: its callback says the backlog has left, even if the agent
      // printed nothing since.
      socket.ping(undefined, false, (error) => void (error ? undefined : skipAhead()));
    },
    exit: (info) =>
      socket.readyState === socket.OPEN && socket.send(JSON.stringify({ type: 'exit', ...info })),
  });
  const skipAhead = async () => {
    const screen = await attachment!.redraw();
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify({ type: 'screen', data: screen }));
    lagging = false;
  };
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
