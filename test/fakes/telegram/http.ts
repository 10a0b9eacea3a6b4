// The HTTP side: routing `/bot<token>/<method>` and `/file/bot<token>/<path>`, faults, stalls, offline.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DOWNLOAD_LIMIT, METHOD_NAMES, METHODS } from './methods.js';
import type { World } from './world.js';
import type { FakeCall, FaultSpec, OfflineMode } from './types.js';
import { ApiError, defaultDescription, errorBody, parseParams, readBody, sendJson } from './wire.js';

/** What the HTTP side needs from the fake. */
export interface Hooks {
  token: string;
  world: World;
  offline(): OfflineMode | undefined;
  record(call: FakeCall): void;
  responded(call: FakeCall): void;
  takeFault(method: string): FaultSpec | undefined;
  takeStall(method: string): number | undefined;
}

export interface Listening {
  port: number;
  /** Destroys every open connection (pending long polls included). */
  dropConnections(): void;
  close(): Promise<void>;
}

const BAD_GATEWAY =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n';

function faultError(fault: FaultSpec): ApiError {
  const retryAfter = fault.retryAfter ?? 1;
  const description = fault.description ?? defaultDescription(fault.status, retryAfter);
  return new ApiError(
    fault.status,
    description,
    fault.status === 429 ? { retry_after: retryAfter } : undefined,
  );
}

class Router {
  readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly hooks: Hooks) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const offline = this.hooks.offline();
    if (offline === 'reset') {
      req.socket.destroy();
      return;
    }
    if (offline === 'bad-gateway') {
      res.writeHead(502, { 'content-type': 'text/html', connection: 'close' });
      res.end(BAD_GATEWAY);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    const api = /^\/bot([^/]+)\/([^/]+?)\/?$/.exec(url.pathname);
    const token = decodeURIComponent((file ?? api)?.[1] ?? '');
    const body = await readBody(req);
    if (!file && !api) return sendJson(res, 404, errorBody(new ApiError(404, 'Not Found')));
    if (token !== this.hooks.token) return sendJson(res, 401, errorBody(new ApiError(401, 'Unauthorized')));
    if (file) return this.download(res, decodeURIComponent(file[2] ?? ''));
    const method = METHOD_NAMES.get((api?.[2] ?? '').toLowerCase()) ?? api?.[2] ?? '';
    if (body === undefined)
      return sendJson(res, 413, errorBody(new ApiError(413, 'Request Entity Too Large')));
    let params: Record<string, unknown>;
    try {
      params = parseParams(url, req.headers['content-type'] ?? '', body);
    } catch (error) {
      if (error instanceof ApiError) return sendJson(res, error.status, errorBody(error));
      throw error;
    }
    this.call(res, method, params);
  }

  private call(res: ServerResponse, method: string, params: Record<string, unknown>): void {
    const call: FakeCall = { method, params, at: Date.now() };
    this.hooks.record(call);
    const reply = (status: number, body: unknown): void => this.reply(res, call, status, body);
    const fail = (error: unknown): void => {
      if (error instanceof ApiError) reply(error.status, errorBody(error));
      else reply(500, { ok: false, error_code: 500, description: `Internal Server Error: ${String(error)}` });
    };
    const fault = this.hooks.takeFault(method);
    if (fault) return fail(faultError(fault));
    if (method === 'getUpdates') {
      try {
        const poll = this.hooks.world.updates.poll(params);
        res.on('close', poll.cancel);
        poll.result.then((result) => reply(200, { ok: true, result }), fail);
      } catch (error) {
        fail(error);
      }
      return;
    }
    const handler = METHODS[method];
    if (!handler) return fail(new ApiError(404, 'Not Found'));
    try {
      reply(200, { ok: true, result: handler(this.hooks.world, params) });
    } catch (error) {
      fail(error);
    }
  }

  /** Sends now, or after a stall (the work is already done: "sent, but the answer came late"). */
  private reply(res: ServerResponse, call: FakeCall, status: number, body: unknown): void {
    const send = (): void => {
      if (res.destroyed) call.aborted = true;
      else call.status = status;
      this.hooks.responded(call);
      sendJson(res, status, body);
    };
    const stall = this.hooks.takeStall(call.method);
    if (stall === undefined) return send();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, stall);
    this.timers.add(timer);
  }

  private download(res: ServerResponse, filePath: string): void {
    const call: FakeCall = { method: 'downloadFile', params: { file_path: filePath }, at: Date.now() };
    this.hooks.record(call);
    const fault = this.hooks.takeFault('downloadFile');
    const file = this.hooks.world.store.fileByPath(filePath);
    if (fault || !file || file.size > DOWNLOAD_LIMIT) {
      const error = fault ? faultError(fault) : new ApiError(404, 'Not Found');
      return this.reply(res, call, error.status, errorBody(error));
    }
    const send = (): void => {
      call.status = 200;
      this.hooks.responded(call);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.size });
      res.end(file.bytes);
    };
    const stall = this.hooks.takeStall('downloadFile');
    if (stall === undefined) return send();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, stall);
    this.timers.add(timer);
  }
}

export async function listen(hooks: Hooks): Promise<Listening> {
  const router = new Router(hooks);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    router.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error_code: 500, description: String(error) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    if (hooks.offline() === 'reset') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const dropConnections = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    dropConnections,
    close: async () => {
      for (const timer of router.timers) clearTimeout(timer);
      router.timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Let answers already written (e.g. a long poll ended with []) leave before cutting the rest.
      await new Promise((resolve) => setImmediate(resolve));
      server.closeAllConnections();
      dropConnections();
      await closed;
    },
  };
}
