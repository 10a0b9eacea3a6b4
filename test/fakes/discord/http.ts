// The HTTP side: `/api/v10/...` routing, the bot token, injected faults, the call log and attachment downloads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { listenOnLoopback, type Listening } from '../loopback-server.js';
import { streamZeros } from '../stream-zeros.js';
import { ApiError } from './errors.js';
import { channelRoutes } from './rest-channels.js';
import { interactionRoutes } from './rest-interactions.js';
import { messageRoutes } from './rest-messages.js';
import type { FakeCall, Json } from './types.js';
import { Buckets, parseBody, rateLimitReply, readBody, send, type Route } from './wire.js';
import type { World } from './world.js';

const ROUTES: Route[] = [...channelRoutes, ...messageRoutes, ...interactionRoutes];
const API_PREFIX = '/api/v10';

export type Fault =
  | { kind: 'rate-limit'; route?: RegExp; retryAfterSeconds: number; global: boolean }
  | { kind: 'fail'; route: RegExp; status: number; body?: unknown };

export interface Hooks {
  token: string;
  world: World;
  record(call: FakeCall): void;
  /** Removes and returns the first queued fault whose route matches (`path` or `METHOD path`). */
  takeFault(method: string, path: string): Fault | undefined;
  downloaded(url: string): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export type { Listening } from '../loopback-server.js';

function matchRoute(
  method: string,
  path: string,
): { route?: Route; params: Record<string, string>; other: boolean } {
  let other = false;
  for (const candidate of ROUTES) {
    const match = candidate.regex.exec(path);
    if (!match) continue;
    if (candidate.method !== method) {
      other = true;
      continue;
    }
    const params: Record<string, string> = {};
    candidate.keys.forEach((key, index) => (params[key] = decodeURIComponent(match[index + 1] ?? '')));
    return { route: candidate, params, other };
  }
  return { params: {}, other };
}

class Router {
  private readonly buckets = new Buckets();

  constructor(private readonly hooks: Hooks) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const at = Date.now();
    const body = await readBody(req);
    if (url.pathname.startsWith('/attachments/')) return this.download(res, url.pathname, at);
    const path = url.pathname.startsWith(`${API_PREFIX}/`)
      ? url.pathname.slice(API_PREFIX.length).replace(/\/$/, '')
      : '';
    const { route, params, other } = matchRoute(method, path);
    const reply = (
      status: number,
      payload: unknown,
      headers: Record<string, string>,
      parsed?: unknown,
    ): void => {
      this.hooks.record({
        method,
        path: path || url.pathname,
        status,
        at,
        ...(parsed !== undefined ? { body: parsed } : {}),
      });
      send(res, status, payload, headers);
    };
    if (!route) {
      const status = other ? 405 : 404;
      return reply(
        status,
        { message: `${status}: ${other ? 'Method Not Allowed' : 'Not Found'}`, code: 0 },
        {},
      );
    }
    const headers = this.buckets.headers(method, route.template, majorId(params));
    if (route.auth && req.headers.authorization !== `Bot ${this.hooks.token}`)
      return reply(401, { message: '401: Unauthorized', code: 0 }, headers);
    let parsed: Awaited<ReturnType<typeof parseBody>> = { payload: undefined, files: [] };
    try {
      parsed = await parseBody(String(req.headers['content-type'] ?? ''), body);
      const fault = this.hooks.takeFault(method, path);
      if (fault?.kind === 'rate-limit') {
        const limited = rateLimitReply(method, route.template, fault.retryAfterSeconds, fault.global);
        return reply(429, limited.body, limited.headers, parsed.payload);
      }
      if (fault)
        return reply(fault.status, fault.body ?? defaultFaultBody(fault.status), headers, parsed.payload);
      const ctx = { world: this.hooks.world, params, query: url.searchParams, ...parsed };
      const result = route.handler(ctx);
      reply(result.status, result.body, headers, parsed.payload);
    } catch (error) {
      if (error instanceof ApiError) return reply(error.status, error.body(), headers, parsed.payload);
      reply(
        500,
        { message: `500: Internal Server Error (${String(error)})`, code: 0 },
        headers,
        parsed.payload,
      );
    }
  }

  /** User and bot attachments; a size-only user attachment streams that many zero bytes. */
  private download(res: ServerResponse, pathname: string, at: number): void {
    const [, , channelId, attachmentId] = pathname.split('/');
    const attachment = this.hooks.world.attachments.get(attachmentId ?? '');
    const fault = this.hooks.takeFault('GET', pathname);
    const record = (status: number): void => this.hooks.record({ method: 'GET', path: pathname, status, at });
    this.hooks.downloaded(attachment?.url ?? `${this.hooks.world.baseUrl}${pathname}`);
    if (
      fault?.kind === 'fail' ||
      fault?.kind === 'rate-limit' ||
      !attachment ||
      !attachment.url.includes(`/${channelId}/`)
    ) {
      const status = fault?.kind === 'fail' ? fault.status : fault ? 429 : 404;
      record(status);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 404 ? 'Not Found' : `fault ${status}`);
      return;
    }
    record(200);
    res.writeHead(200, {
      'content-type': attachment.contentType ?? 'application/octet-stream',
      'content-length': String(attachment.size),
    });
    if (attachment.data) {
      res.end(attachment.data);
      return;
    }
    streamZeros(res, attachment.size);
  }
}

function majorId(params: Record<string, string>): string {
  return params['channelId'] ?? params['guildId'] ?? params['token'] ?? params['applicationId'] ?? '';
}

function defaultFaultBody(status: number): Json {
  const text: Record<number, string> = {
    400: 'Bad Request',
    403: 'Missing Access',
    404: 'Not Found',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
  };
  return { message: `${status}: ${text[status] ?? 'Error'}`, code: 0 };
}

export async function listen(hooks: Hooks): Promise<Listening> {
  const router = new Router(hooks);
  return listenOnLoopback(
    (req, res) => router.handle(req, res),
    (res, error) => send(res, 500, { message: String(error), code: 0 }, {}),
    (req, socket, head) => hooks.upgrade(req, socket, head),
  );
}
