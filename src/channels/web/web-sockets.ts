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

/** A viewer this far behind (a background tab, a slow link) is skipped, then redrawn once it caught up. */
export const LAG_LIMIT_BYTES = 4 * 1024 * 1024;
const CAUGHT_UP_BYTES = 256 * 1024;

async function attachTerminal(
  socket: WebSocket,
  sessionId: string,
  backend: WebBackend,
  readOnly: boolean,
): Promise<void> {
  let lagging = false;
  let redrawing = false;
  // Frames about the size wait for hello and the screen: the viewer is told its role on joining.
  let greeted = false;
  let sizeBeforeHello: object | null = null;
  const attachment = await backend.attach(
    sessionId,
    {
      output: (data) => {
        if (socket.readyState !== socket.OPEN) return;
        if (!lagging && socket.bufferedAmount > LAG_LIMIT_BYTES) lagging = true;
        if (!lagging) return void socket.send(data, { binary: true });
        if (redrawing || socket.bufferedAmount > CAUGHT_UP_BYTES) return;
        // Caught up: the screen now is what it would have seen; skip the backlog.
        redrawing = true;
        void attachment?.redraw().then((screen) => {
          sendJson(socket, { type: 'screen', data: screen });
          lagging = false;
          redrawing = false;
        });
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
