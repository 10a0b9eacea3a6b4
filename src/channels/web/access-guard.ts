import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentedCredential, type AuthResult, type TokenGuard } from './auth.js';
import { closeIfRefusedUpgrade } from './connections.js';
import { requestTargetAuthority, type OwnAddresses } from './own-addresses.js';
import type { RefusalAudit } from './refusal-audit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the token: only the app shell's files and the token exchange. Everything else needs it. */
    public?: boolean;
  }
}

/** Methods that change nothing: all a public route answers, and all a cookie may send without an Origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

export interface Refused {
  status: 401 | 403 | 421 | 429;
  reason: string;
  message: string;
}

export interface AccessOptions {
  tokens: TokenGuard;
  refusals: RefusalAudit;
  /** This server's names; known once it listens (no request arrives before). */
  own: () => OwnAddresses;
}

/**
 * Deny by default, decided on the route the router matched (so on the path as it decodes and normalises it,
 * absolute-form targets included), for HTTP and WebSocket upgrades alike: the Host must name this server;
 * then only routes marked `public` go without the token; then a foreign Origin is refused, and a cookie (which
 * a browser attaches on its own) must come with this server's Origin on writes and WebSockets.
 */
export function guardRequests(server: FastifyInstance, options: AccessOptions): void {
  server.addHook('onRequest', async (request, reply) => {
    setSafetyHeaders(reply);
    const refused = accessRefusal(request, options);
    if (refused) await refuse(request, reply, refused, options.refusals);
  });
  server.addHook('onResponse', async (request) => closeIfRefusedUpgrade(request.raw));
}

function accessRefusal(request: FastifyRequest, options: AccessOptions): Refused | null {
  const own = options.own();
  const authority = requestTargetAuthority(request.raw.url ?? '');
  if (!own.isOwnHost(request.headers.host) || (authority !== undefined && !own.isOwnHost(authority))) {
    return {
      status: 421,
      reason: 'host',
      message: 'refused: the Host does not name this server (open the address agent-bridge printed)',
    };
  }
  const isUpgrade = (request.raw as { upgrade?: boolean }).upgrade === true;
  if (request.routeOptions.config.public === true && SAFE_METHODS.has(request.method) && !isUpgrade)
    return null;
  const credential = presentedCredential(request.headers);
  const result = options.tokens.check(credential, request.ip);
  if (result !== 'ok') return tokenRefusal(result);
  const origin = request.headers.origin;
  if (origin !== undefined && !own.isOwnOrigin(origin, request.headers.host))
    return crossOrigin('origin', isUpgrade);
  if (isUpgrade && origin === undefined) return crossOrigin('no origin', true);
  if (credential?.via !== 'cookie') return null;
  if (!SAFE_METHODS.has(request.method) && origin === undefined) return crossOrigin('no origin', false);
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return crossOrigin(`sec-fetch-site ${site}`, isUpgrade);
  return null;
}

export function tokenRefusal(result: Exclude<AuthResult, 'ok'>): Refused {
  return result === 'throttled'
    ? { status: 429, reason: result, message: 'too many bad tokens from this address: wait a minute' }
    : { status: 401, reason: result, message: 'open the URL agent-bridge printed (it carries the token)' };
}

function crossOrigin(reason: string, websocket: boolean): Refused {
  return {
    status: 403,
    reason,
    message: websocket
      ? 'cross-origin WebSocket refused'
      : "cross-origin request refused: use this server's own page, or send Authorization: Bearer <token>",
  };
}

export async function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  refused: Refused,
  refusals: RefusalAudit,
): Promise<void> {
  refusals.refused({ ip: request.ip, path: request.raw.url ?? '', reason: refused.reason });
  if (refused.status === 429) reply.header('retry-after', '60');
  await reply.code(refused.status).send({ error: refused.message });
}

/** Nothing of ours may be framed (clickjacking the answer buttons), sniffed, or read by another origin's page. */
function setSafetyHeaders(reply: FastifyReply): void {
  reply.header('x-frame-options', 'DENY');
  reply.header('content-security-policy', "frame-ancestors 'none'");
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cross-origin-resource-policy', 'same-origin');
  reply.header('referrer-policy', 'no-referrer');
}
