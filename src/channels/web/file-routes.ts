import type { FastifyInstance, FastifyReply } from 'fastify';
import type { WebBackend } from './backend.js';
import type { FileAnswer } from './file-views.js';

/**
 * Read-only views of folders (API.md): a session's files and changes, never outside its folder, and folders
 * to start agents in. Every route needs the token (none is public); paths are checked by the backend on the
 * form the file system acts on, after the query string was decoded.
 */
export function registerFileRoutes(server: FastifyInstance, backend: WebBackend): void {
  type WithPath = { Querystring: { path?: unknown } };
  type ForSession = WithPath & { Params: { id: string } };
  server.get('/api/folders', async () => backend.folders());
  server.get<WithPath>('/api/folders/list', async (request, reply) =>
    send(reply, await backend.subfolders(request.query.path)),
  );
  server.get<ForSession>('/api/sessions/:id/files', async (request, reply) =>
    send(reply, await backend.sessionFolder(request.params.id, request.query.path)),
  );
  server.get<ForSession>('/api/sessions/:id/file', async (request, reply) =>
    send(reply, await backend.sessionFile(request.params.id, request.query.path)),
  );
  server.get<{ Params: { id: string } }>('/api/sessions/:id/changes', async (request, reply) =>
    send(reply, await backend.sessionChanges(request.params.id)),
  );
}

function send<T>(reply: FastifyReply, answer: FileAnswer<T>): T | FastifyReply {
  return answer.ok ? answer.value : reply.code(answer.status).send({ error: answer.error });
}
