import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { WebBackend } from './backend.js';

/** Larger frames close the socket (1009): input and resize messages are small. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** Live terminals and change notifications; each socket must come from the page's own origin. */
export async function registerSockets(server: FastifyInstance, backend: WebBackend): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  await server.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  server.get<{ Params: { id: string } }>(
    '/ws/terminal/:id',
    { websocket: true, preValidation: checkOrigin(backend) },
    (socket, request) => void attachTerminal(socket, request.params.id, backend),
  );
  server.get('/ws/events', { websocket: true, preValidation: checkOrigin(backend) }, (socket) => {
    const stop = backend.onEvent((event) => socket.send(JSON.stringify(event)));
    socket.on('close', stop);
  });
}

/** Browsers send Origin on WebSockets: another site's page must not drive the terminal (CSWSH). */
function checkOrigin(backend: WebBackend) {
  return async (request: FastifyRequest, reply: { code(n: number): { send(body: unknown): unknown } }) => {
    const origin = request.headers.origin;
    const host = request.headers.host;
    const allowed = host ? [`http://${host}`, `https://${host}`] : [];
    if (!origin || !allowed.includes(origin)) {
      backend.unauthorized({
        source: 'web',
        ip: request.ip,
        path: request.url,
        reason: `websocket from origin ${origin ?? 'none'}`,
      });
      await reply.code(403).send({ error: 'cross-origin WebSocket refused' });
    }
  };
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
