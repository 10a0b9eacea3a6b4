import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { WebBackend } from './backend.js';
import { GOING_AWAY, MAX_FRAME_BYTES, NO_TERMINAL, TerminalSocket } from './terminal-socket.js';

/** The headers a WebSocket handshake is answered from: all the process a terminal is handed to gets. */
const HANDSHAKE_HEADERS = [
  'host',
  'origin',
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
];

type TerminalRoute = { Params: { id: string }; Querystring: { watch?: string | string[] } };

/**
 * `?watch=1` (the page's "Watch only"): only watch. Any `watch` but `watch=0` watches, however often or
 * however written: an ambiguous ask to watch never comes out as leave to type.
 */
export function watchOnly(query: TerminalRoute['Querystring']): boolean {
  const values = query.watch === undefined ? [] : [query.watch].flat();
  return values.some((value) => value !== '0');
}

/**
 * Live terminals and change notifications. access-guard.ts has already checked the token and the Origin.
 * `handOff`: a terminal's upgrade may be handed to the process holding it (a plain connection; never TLS).
 */
export async function registerSockets(
  server: FastifyInstance,
  backend: WebBackend,
  options: { handOff: boolean },
): Promise<void> {
  const { default: websocket } = await import('@fastify/websocket');
  // Before the plugin's own close, which closes its sockets with no code (the page would see 1005).
  server.addHook('preClose', (done) => {
    for (const client of server.websocketServer.clients)
      client.close(GOING_AWAY, 'agent-bridge serve stopped');
    done();
  });
  await server.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  const handOff = options.handOff ? handOffTerminals(server, backend) : undefined;
  server.get<TerminalRoute>(
    '/ws/terminal/:id',
    { websocket: true, ...(handOff ? { preHandler: handOff } : {}) },
    (socket, request) => void attachTerminal(socket, request.params.id, backend, watchOnly(request.query)),
  );
  server.get('/ws/events', { websocket: true }, (socket) => {
    const stop = backend.onEvent((event) => socket.send(JSON.stringify(event)));
    socket.on('close', stop);
  });
}

async function attachTerminal(
  socket: WebSocket,
  sessionId: string,
  backend: WebBackend,
  readOnly: boolean,
): Promise<void> {
  const viewer = new TerminalSocket(socket);
  const attachment = await backend.attach(sessionId, viewer, { readOnly });
  if (!attachment) return viewer.close(NO_TERMINAL, 'no such live session');
  viewer.greet(attachment);
}

/**
 * Before the upgrade is answered: a terminal whose process takes its browsers (a session host serve started)
 * gets the connection, and serve is out of the path between the agent and this browser.
 */
function handOffTerminals(
  server: FastifyInstance,
  backend: WebBackend,
): (request: FastifyRequest<TerminalRoute>, reply: FastifyReply) => Promise<void> {
  // What followed each upgrade's request head, which only the upgrade event carries.
  const heads = new WeakMap<object, Buffer>();
  server.server.prependListener('upgrade', (request: object, _socket: unknown, head: Buffer) =>
    heads.set(request, head),
  );
  return async (request, reply) => {
    // A GET that asks to upgrade, as ws answers no other (fastify's HEAD route shares this handler).
    if (!backend.handOffTerminal || request.raw.method !== 'GET') return;
    if (!(request.raw as { upgrade?: boolean }).upgrade) return;
    const headers: Record<string, string> = {};
    for (const name of HANDSHAKE_HEADERS) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const upgrade = {
      socket: request.raw.socket,
      head: heads.get(request.raw) ?? Buffer.alloc(0),
      headers,
      readOnly: watchOnly(request.query),
    };
    if (backend.handOffTerminal(request.params.id, upgrade)) reply.hijack();
  };
}
