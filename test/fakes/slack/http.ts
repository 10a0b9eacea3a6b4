// The HTTP side: `/api/<method>` (form, JSON or multipart; Bearer token), injected faults, the call log,
// the upload URLs, the file downloads (bot token required) and the response URLs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { listenOnLoopback, type Listening } from '../loopback-server.js';
import { streamZeros } from '../stream-zeros.js';
import { checkBlocks, isObject } from './blocks.js';
import type { FakeCall, FakeDownload, Json } from './types.js';
import { METHODS, SlackApiError } from './web-api.js';
import { APP_TOKEN, BOT_TOKEN, type World } from './world.js';

export type Fault =
  | { kind: 'rate-limit'; method?: string; retryAfterSeconds: number }
  | { kind: 'error'; method: string; error: string }
  | { kind: 'http'; method: string; status: number };

export interface Hooks {
  world: World;
  record(call: FakeCall): void;
  takeFault(method: string): Fault | undefined;
  downloaded(download: FakeDownload): void;
  socketUrl(): string;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export type { Listening } from '../loopback-server.js';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Form, JSON or multipart into one object of parameters (files as Buffers). */
async function parseParams(contentType: string, body: Buffer): Promise<Json> {
  if (body.length === 0) return {};
  if (contentType.includes('application/json')) {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isObject(value) ? value : {};
  }
  if (contentType.includes('multipart/form-data')) {
    const form = await new Response(new Uint8Array(body), {
      headers: { 'content-type': contentType },
    }).formData();
    const params: Json = {};
    for (const [key, value] of form as unknown as Iterable<[string, string | Blob]>)
      params[key] = typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer());
    return params;
  }
  return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

class Router {
  constructor(private readonly hooks: Hooks) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname.startsWith('/api/')) return this.api(req, res, url.pathname.slice(5), body);
    if (url.pathname.startsWith('/upload/')) return this.upload(req, res, url.pathname.slice(8), body);
    if (url.pathname.startsWith('/files-pri/')) return this.download(req, res, url.pathname);
    if (url.pathname.startsWith('/response/')) return this.respond(res, url.pathname.slice(10), body);
    sendJson(res, 404, { ok: false, error: 'not_found' });
  }

  private async api(req: IncomingMessage, res: ServerResponse, method: string, body: Buffer): Promise<void> {
    const at = Date.now();
    let params: Json = {};
    const reply = (status: number, payload: Json, headers: Record<string, string> = {}) => {
      const { token: _token, ...logged } = params;
      this.hooks.record({
        method,
        status,
        ok: payload['ok'] === true,
        ...(typeof payload['error'] === 'string' ? { error: payload['error'] } : {}),
        params: logged,
        at,
      });
      sendJson(res, status, payload, headers);
    };
    try {
      params = await parseParams(String(req.headers['content-type'] ?? ''), body);
    } catch {
      return reply(200, { ok: false, error: 'invalid_form_data' });
    }
    const spec = METHODS[method];
    if (!spec) return reply(200, { ok: false, error: 'unknown_method' });
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const token = bearer ?? (typeof params['token'] === 'string' ? params['token'] : undefined);
    if (!token) return reply(200, { ok: false, error: 'not_authed' });
    if (token !== BOT_TOKEN && token !== APP_TOKEN) return reply(200, { ok: false, error: 'invalid_auth' });
    if ((spec.token === 'app') !== (token === APP_TOKEN))
      return reply(200, { ok: false, error: 'not_allowed_token_type' });
    const fault = this.hooks.takeFault(method);
    if (fault?.kind === 'rate-limit')
      return reply(
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(fault.retryAfterSeconds) },
      );
    if (fault?.kind === 'error') return reply(200, { ok: false, error: fault.error });
    if (fault?.kind === 'http') return reply(fault.status, { ok: false, error: `http_${fault.status}` });
    try {
      const result = spec.run({ world: this.hooks.world, params, socketUrl: () => this.hooks.socketUrl() });
      reply(200, { ok: true, ...result });
    } catch (error) {
      if (error instanceof SlackApiError) return reply(200, { ok: false, error: error.code, ...error.extra });
      reply(500, { ok: false, error: 'internal_error', detail: String(error) });
    }
  }

  /** The upload URL from files.getUploadURLExternal: the bytes, raw or as a multipart file. */
  private async upload(req: IncomingMessage, res: ServerResponse, id: string, body: Buffer): Promise<void> {
    const pending = this.hooks.world.uploads.get(id);
    if (!pending) return sendJson(res, 404, { ok: false, error: 'upload_not_found' });
    const type = String(req.headers['content-type'] ?? '');
    let data = body;
    if (type.includes('multipart/form-data')) {
      const params = await parseParams(type, body);
      data = Object.values(params).find((v): v is Buffer => Buffer.isBuffer(v)) ?? Buffer.alloc(0);
    }
    pending.data = data;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`OK - ${data.length}`);
  }

  /** url_private_download: the bytes with the bot token; without it 403 (real Slack answers with a login page). */
  private download(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    const id = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\//.exec(pathname)?.[1] ?? '';
    const file = this.hooks.world.files.get(id);
    const authorized = req.headers.authorization === `Bearer ${BOT_TOKEN}`;
    const fault = this.hooks.takeFault(`download:${id}`) ?? this.hooks.takeFault('download');
    const status = !file ? 404 : !authorized ? 403 : fault?.kind === 'http' ? fault.status : 200;
    this.hooks.downloaded({ fileId: id, authorized, status });
    if (status !== 200 || !file) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 403 ? 'Forbidden' : 'Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.size) });
    if (file.data) return void res.end(file.data);
    streamZeros(res, file.size);
  }

  /** A response_url: an ephemeral reply (the default), a message in the channel, or the original replaced. */
  private respond(res: ServerResponse, id: string, body: Buffer): void {
    const world = this.hooks.world;
    const target = world.responseFor(id);
    if (!target) return sendJson(res, 404, { ok: false, error: 'expired_url' });
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return sendJson(res, 400, { ok: false, error: 'invalid_payload' });
    }
    if (!isObject(payload)) return sendJson(res, 400, { ok: false, error: 'invalid_payload' });
    const text = payload['text'] === undefined ? '' : String(payload['text']);
    let blocks: Json[] = [];
    try {
      if (payload['blocks'] !== undefined) blocks = checkBlocks(payload['blocks'], 'message');
    } catch {
      return sendJson(res, 400, { ok: false, error: 'invalid_blocks' });
    }
    if (!text && blocks.length === 0) return sendJson(res, 400, { ok: false, error: 'no_text' });
    if ([...text].length > world.textLimit) return sendJson(res, 400, { ok: false, error: 'msg_too_long' });
    target.uses += 1;
    const original = target.messageTs ? world.message(target.channel, target.messageTs) : undefined;
    if (payload['replace_original'] === true && original?.fromBot) {
      original.text = text;
      original.blocks = blocks;
      original.edits += 1;
      world.changed();
      return sendJson(res, 200, { ok: true });
    }
    world.botMessage(target.channel, {
      text,
      blocks,
      ...(target.threadTs ? { threadTs: target.threadTs } : {}),
      ...(payload['response_type'] === 'in_channel' ? {} : { ephemeralFor: target.user }),
      via: 'response_url',
    });
    sendJson(res, 200, { ok: true });
  }
}

export async function listen(hooks: Hooks): Promise<Listening> {
  const router = new Router(hooks);
  return listenOnLoopback(
    (req, res) => router.handle(req, res),
    (res, error) => sendJson(res, 500, { ok: false, error: 'internal_error', detail: String(error) }),
    (req, socket, head) => hooks.upgrade(req, socket, head),
  );
}
