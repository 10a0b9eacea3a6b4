import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseAnswer, parseName, parseStartSession } from './api-bodies.js';
import type { WebBackend } from './backend.js';

/** The JSON API (API.md). Every route here needs the token: none is marked public. */
export function registerApi(server: FastifyInstance, backend: WebBackend): void {
  const who = (request: FastifyRequest) => `web:${request.ip}`;
  server.get('/api/config', async () => ({
    host: backend.host,
    version: backend.version,
    cwd: backend.cwd,
    agents: await backend.tools(),
    nodes: await backend.nodes(),
  }));
  server.get('/api/sessions', async () => backend.sessions());
  server.post('/api/sessions', async (request, reply) => {
    const body = parseStartSession(request.body);
    if (!body.ok) return reply.code(400).send({ error: body.error });
    const { agent, cwd, args, node } = body.value;
    try {
      return reply
        .code(201)
        .send(
          await backend.start(
            { agent, cwd, ...(args ? { args } : {}), ...(node ? { node } : {}) },
            who(request),
          ),
        );
    } catch (error) {
      return reply.code(refusalStatus(error)).send({ error: (error as Error).message });
    }
  });
  server.post<{ Params: { id: string } }>('/api/sessions/:id/stop', async (request, reply) =>
    (await backend.stop(request.params.id))
      ? { ok: true }
      : reply.code(404).send({ error: 'no such session that this page may stop' }),
  );
  server.post<{ Params: { id: string } }>('/api/sessions/:id/restart', async (request, reply) => {
    const session = await started(reply, () => backend.restart(request.params.id, who(request)));
    return session ?? reply.code(404).send({ error: 'no such session that this page may restart' });
  });
  server.post<{ Params: { id: string } }>('/api/sessions/:id/resume', async (request, reply) => {
    const session = await started(reply, () => backend.resume(request.params.id, who(request)));
    return session ?? reply.code(404).send({ error: 'no such ended session whose agent can resume' });
  });
  server.post<{ Params: { id: string } }>('/api/sessions/:id/name', async (request, reply) => {
    const body = parseName(request.body);
    if (!body.ok) return reply.code(400).send({ error: body.error });
    const name = body.value.name?.trim() || null;
    return backend.rename(request.params.id, name)
      ? { ok: true, name }
      : reply.code(404).send({ error: 'no such session' });
  });
  server.get('/api/prompts', async () => backend.prompts());
  server.post<{ Params: { id: string } }>('/api/prompts/:id/answer', async (request, reply) => {
    const body = parseAnswer(request.body);
    if (!body.ok) return reply.code(400).send({ error: body.error });
    const result = backend.answer(request.params.id, body.value.answer, who(request));
    return result.ok ? result : reply.code(result.status).send({ error: result.error });
  });
  server.get('/api/recordings', async () => backend.recordings());
  server.get<{ Params: { id: string } }>('/api/recordings/:id', async (request, reply) => {
    const recording = await backend.recording(request.params.id);
    if (!recording.ok) return reply.code(recording.status).send({ error: recording.error });
    return reply.type('application/x-asciicast').send(recording.value.stream);
  });
}

/** A session that could not start (agent gone, folder removed) is a 400 that says why. */
async function started<T>(reply: FastifyReply, start: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await start();
  } catch (error) {
    return reply.code(refusalStatus(error)).send({ error: (error as Error).message });
  }
}

/** A refusal that says its own status (a machine of the cluster that is away: 409), else 400. */
function refusalStatus(error: unknown): number {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
}
