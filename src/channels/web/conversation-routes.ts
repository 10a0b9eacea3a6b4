import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { parseMessage } from './api-bodies.js';
import type { WebBackend } from './backend.js';
import type { ConversationFrame } from './conversation-types.js';

/** A viewer this far behind is dropped (1013): it comes back for a fresh snapshot rather than a backlog. */
export const CONVERSATION_LAG_BYTES = 4 * 1024 * 1024;
/** The close code for a session with no conversation here (a terminal session, or none at all). */
export const NO_CONVERSATION = 4404;

const NONE = 'no such session with a conversation here';

/**
 * A structured session's conversation (API.md): its history, its live updates, and a person's message for it.
 * Every route needs the token and passes the access guard (none is public): writes and the socket need the
 * page's own Origin with the cookie, as every other route.
 */
export function registerConversationRoutes(server: FastifyInstance, backend: WebBackend): void {
  type ForSession = { Params: { id: string } };
  server.get<ForSession>('/api/sessions/:id/conversation', async (request, reply) => {
    const snapshot = backend.conversation(request.params.id);
    return snapshot ?? reply.code(404).send({ error: NONE });
  });
  server.post<ForSession>('/api/sessions/:id/message', async (request, reply) => {
    const body = parseMessage(request.body);
    if (!body.ok) return reply.code(400).send({ error: body.error });
    const result = backend.sendMessage(request.params.id, body.value.text, who(request));
    return result.ok ? result : reply.code(result.status).send({ error: result.error });
  });
  server.get<ForSession>('/ws/conversation/:id', { websocket: true }, (socket, request) =>
    watch(socket, request.params.id, backend),
  );
}

function who(request: FastifyRequest): string {
  return `web:${request.ip}`;
}

/** The snapshot first, then each change; the page sends nothing on this socket (messages are POSTed). */
function watch(socket: WebSocket, sessionId: string, backend: WebBackend): void {
  const send = (frame: ConversationFrame): void => {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > CONVERSATION_LAG_BYTES) return socket.close(1013, 'fell behind: reconnect');
    socket.send(JSON.stringify(frame));
  };
  const watching = backend.watchConversation(sessionId, send);
  if (!watching) return socket.close(NO_CONVERSATION, NONE);
  socket.on('close', () => watching.stop());
  send({ type: 'history', ...watching.snapshot });
}
