import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { guardRequests, refuse, tokenRefusal } from './access-guard.js';
import { registerApi } from './api-routes.js';
import { registerConversationRoutes } from './conversation-routes.js';
import { registerFileRoutes } from './file-routes.js';
import { TOKEN_COOKIE, TokenGuard } from './auth.js';
import type { WebBackend } from './backend.js';
import { closeIfRefusedUpgrade, Connections } from './connections.js';
import { answerClientError, answerErrorsAsApi } from './error-answers.js';
import { OwnAddresses } from './own-addresses.js';
import { RefusalAudit } from './refusal-audit.js';
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
  /** Where agent-bridge's own failures go (serve's log): the client is told only to look there. */
  log?: (line: string) => void;
}

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The web UI's server: the browser app, a JSON API and WebSockets (src/channels/web/API.md). Every route needs
 * the access token except the app shell's files and the token exchange (access-guard.ts decides); stopping
 * never waits on a client (connections.ts).
 */
export async function startWebServer(
  options: WebServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const { default: Fastify } = await import('fastify');
  const server = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    frameworkErrors: refuseMalformed,
    clientErrorHandler: answerClientError,
    ...(options.tls ? { https: options.tls } : {}),
  }) as unknown as FastifyInstance;
  const connections = new Connections(server.server);
  const tokens = new TokenGuard(options.token, options.clock);
  const refusals = new RefusalAudit((details) => options.backend.unauthorized(details), options.clock);
  let own: OwnAddresses | null = null;
  answerErrorsAsApi(server, MAX_BODY_BYTES, options.log);
  guardRequests(server, { tokens, refusals, own: () => own! });
  await registerSockets(server, options.backend, { handOff: !options.tls });
  registerApi(server, options.backend);
  registerFileRoutes(server, options.backend);
  registerConversationRoutes(server, options.backend);
  await registerAppShell(server, options.staticDir, async (request, reply) => {
    const token = (request.query as { token?: unknown }).token;
    const result = tokens.check({ token: typeof token === 'string' ? token : '', via: 'url' }, request.ip);
    if (result !== 'ok') return refuse(request, reply, tokenRefusal(result), refusals);
    // The token leaves the address bar for a cookie the page's scripts cannot read.
    const secure = options.tls ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${TOKEN_COOKIE}=${encodeURIComponent(token as string)}; HttpOnly; SameSite=Strict; Path=/${secure}`,
    );
    await reply.redirect('/');
  });
  const address = await server.listen({ host: options.host, port: options.port });
  const { port } = server.server.address() as AddressInfo;
  own = new OwnAddresses({ host: options.host, port, tls: Boolean(options.tls) });
  return {
    url: address.replace('[::1]', 'localhost'),
    close: async () => {
      const closing = server.close();
      await connections.closeAll(options.clock);
      await closing;
      refusals.flush();
    },
  };
}

/**
 * The app shell: its files hold no data, so they load without the token (a page opened from a link elsewhere,
 * where the SameSite=Strict cookie is not sent, can still say it needs the printed URL). `GET /?token=` trades
 * the printed token for the cookie. Only the files present at start are routes: any other path is not public.
 */
async function registerAppShell(
  server: FastifyInstance,
  staticDir: string,
  exchangeToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): Promise<void> {
  const built = existsSync(path.join(staticDir, 'index.html'));
  await server.register(async (shell) => {
    shell.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    if (built) {
      const { default: fastifyStatic } = await import('@fastify/static');
      await shell.register(fastifyStatic, {
        root: staticDir,
        index: false,
        wildcard: false,
        serveDotFiles: false,
      });
    }
    shell.get('/', async (request, reply) => {
      if ((request.query as { token?: unknown }).token !== undefined) return exchangeToken(request, reply);
      if (built) return reply.sendFile('index.html');
      return reply.type('text/plain').send('agent-bridge: the web app is not built (npm run build)');
    });
  });
}

/** A URL the router cannot read (bad escapes, an overlong parameter): refused, saying nothing of it. */
function refuseMalformed(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => closeIfRefusedUpgrade(request.raw));
  void reply.code(error.statusCode ?? 400).send({ error: 'malformed request' });
}
