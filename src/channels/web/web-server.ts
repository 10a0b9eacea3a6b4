import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { registerApi } from './api-routes.js';
import { TOKEN_COOKIE, TokenGuard } from './auth.js';
import type { WebBackend } from './backend.js';
import { closeIfRefusedUpgrade, Connections } from './connections.js';
import { registerSockets } from './web-sockets.js';

export interface WebServerOptions {
  backend: WebBackend;
  token: string;
  host: string;
  port: number;
  clock: Clock;
  /** The built browser app (dist/web). */
  staticDir: string;
  /** TLS certificate and key (PEM), required to listen anywhere but loopback unless insecure is set. */
  tls?: { cert: Buffer; key: Buffer };
}

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The web UI's server: the browser app, a JSON API and WebSockets (src/channels/web/API.md). Every request
 * carries the access token (cookie after the first visit); WebSockets must come from the page's own origin.
 * Stopping never waits on a client (connections.ts).
 */
export async function startWebServer(
  options: WebServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const { default: Fastify } = await import('fastify');
  const server = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    frameworkErrors: refuseMalformed,
    ...(options.tls ? { https: options.tls } : {}),
  }) as unknown as FastifyInstance;
  const connections = new Connections(server.server);
  const guard = new TokenGuard(options.token, options.clock);
  server.addHook('onRequest', async (request, reply) => authenticate(request, reply, guard, options));
  server.addHook('onResponse', async (request) => closeIfRefusedUpgrade(request.raw));
  await registerSockets(server, options.backend);
  registerApi(server, options.backend);
  await registerApp(server, options.staticDir);
  const address = await server.listen({ host: options.host, port: options.port });
  return {
    url: address.replace('[::1]', 'localhost'),
    close: async () => {
      const closing = server.close();
      await connections.closeAll(options.clock);
      await closing;
    },
  };
}

async function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  guard: TokenGuard,
  options: WebServerOptions,
): Promise<void> {
  const urlToken = (request.query as { token?: string } | undefined)?.token;
  // The app's own files hold no data: they load without the token, so a page opened from a link elsewhere
  // (where the SameSite=Strict cookie is not sent) can still say it needs the printed URL.
  if (!urlToken && !isPrivate(request.url)) return;
  const result = guard.check({ headers: request.headers, ip: request.ip }, urlToken);
  if (result === 'ok') {
    if (urlToken) {
      // The token leaves the address bar for a cookie the page's scripts cannot read.
      const secure = options.tls ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${TOKEN_COOKIE}=${encodeURIComponent(urlToken)}; HttpOnly; SameSite=Strict; Path=/${secure}`,
      );
      await reply.redirect(request.url.split('?')[0] || '/');
    }
    return;
  }
  options.backend.unauthorized({
    source: 'web',
    ip: request.ip,
    path: request.url.split('?')[0] ?? '',
    reason: result,
  });
  const status = result === 'throttled' ? 429 : 401;
  await reply.code(status).send({
    error:
      result === 'throttled'
        ? 'too many bad tokens: wait a minute'
        : 'open the URL agent-bridge printed (it carries the token)',
  });
}

async function registerApp(server: FastifyInstance, staticDir: string): Promise<void> {
  if (!existsSync(path.join(staticDir, 'index.html'))) {
    server.get('/', async (_request, reply) =>
      reply.type('text/plain').send('agent-bridge: the web app is not built (npm run build)'),
    );
    return;
  }
  const { default: fastifyStatic } = await import('@fastify/static');
  await server.register(fastifyStatic, { root: staticDir, index: 'index.html', serveDotFiles: false });
}

function isPrivate(url: string): boolean {
  return url.startsWith('/api/') || url.startsWith('/ws/');
}

/** A URL the router cannot read (bad escapes, an overlong parameter): refused, saying nothing of it. */
function refuseMalformed(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => closeIfRefusedUpgrade(request.raw));
  void reply.code(error.statusCode ?? 400).send({ error: 'malformed request' });
}
