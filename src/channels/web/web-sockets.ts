import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { WebBackend } from './backend.js';

/** Larger frames close the socket (1009): input and resize messages are small. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** Live terminals and change notifications. access-guard.ts has already checked the token and the Origin. */
export async function registerSockets(server: FastifyInstance, backend: WebBackend): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  await server.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  server.get<{ Params: { id: string }; Querystring: { watch?: string } }>(
    '/ws/terminal/:id',
    { websocket: true },
    (socket, request) => void attachTerminal(socket, request.params.id, backend, request.query.watch === '1'),
  );
  server.get('/ws/events', { websocket: true }, (socket) => {
    const stop = backend.onEvent((event) => socket.send(JSON.stringify(event)));
    socket.on('close', stop);
  });
}

/** The terminal's process went away without an exit (an `agent-bridge run` that ended): the page looks again. */
export const TERMINAL_GONE = 4410;

/**
 * Backpressure per viewer: one this far behind (a background tab, a slow phone) is sent nothing more; once what
 * it was sent has gone out, it gets the screen as it is then and goes on from there. The others, and the
 * agent, never wait for it.
 */
export const LAG_LIMIT_BYTES = 4 * 1024 * 1024;

async function attachTerminal(
  socket: WebSocket,
  sessionId: string,
  backend: WebBackend,
  readOnly: boolean,
): Promise<void> {
  let lagging = false;
  // Frames about the size wait for hello and the screen: the viewer is told its role on joining.
  let greeted = false;
  let sizeBeforeHello: object | null = null;
  // Output is framed as it comes (binary, the same buffer for every viewer: nothing re-encoded per viewer).
  const attachment = await backend.attach(
    sessionId,
    {
      output: (data) => {
        if (socket.readyState !== socket.OPEN || lagging) return;
        if (socket.bufferedAmount <= LAG_LIMIT_BYTES) return void socket.send(data, { binary: true });
        lagging = true;
        // A ping goes out after everything queued: its callback says the backlog has left, even if the agent
        // printed nothing since.
        socket.ping(undefined, false, (error) => void (error ? undefined : skipAhead()));
      },
      exit: (info) => sendJson(socket, { type: 'exit', ...info }),
      closed: () => socket.close(TERMINAL_GONE, 'the terminal went away'),
      size: (info) => {
        if (greeted) sendJson(socket, { type: 'size', ...info });
        else sizeBeforeHello = { type: 'size', ...info };
      },
    },
    { readOnly },
  );
  const skipAhead = async () => {
    const screen = await attachment!.redraw();
    if (socket.readyState !== socket.OPEN) return;
    sendJson(socket, { type: 'screen', data: screen });
    lagging = false;
  };
  if (!attachment) {
    socket.close(4404, 'no such live session');
    return;
  }
  // Gone while it attached: let go at once.
  if (socket.readyState !== socket.OPEN) return attachment.detach();
  socket.on('close', () => attachment.detach());
  const { cols, rows, canType } = attachment;
  sendJson(socket, { type: 'hello', cols, rows, canType });
  sendJson(socket, { type: 'screen', data: attachment.screen });
  greeted = true;
  if (sizeBeforeHello) sendJson(socket, sizeBeforeHello);
  socket.on('message', (raw, isBinary) => {
    if (isBinary) return;
    let message: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown } | null;
    try {
      message = JSON.parse(String(raw)) as typeof message;
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'input' && typeof message.data === 'string') attachment.input(message.data);
    if (message.type === 'resize' && isSize(message.cols) && isSize(message.rows))
      attachment.resize(message.cols, message.rows);
    if (message.type === 'drive') attachment.drive();
  });
}

function sendJson(socket: WebSocket, frame: object): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= 1000;
}
