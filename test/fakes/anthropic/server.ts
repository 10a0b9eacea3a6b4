// A fake Anthropic Messages API on 127.0.0.1, good enough for the real Claude Code CLI.
// See README.md in this folder for what it speaks and how to script turns.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultReply, normalizeTurn, parseRequest, sideCallReply } from './behaviours.js';
import type { FakeAnthropic, ParsedRequest, RecordedRequest, Reply, Script } from './types.js';
import { errorBody, estimateTokens, formatSse, newId, toMessageJson, toSseEvents } from './wire.js';

export type * from './types.js';
export { ASK_QUESTION_INPUT, defaultReply, parseRequest } from './behaviours.js';
export { parseSse, toSseEvents, type SseEvent } from './wire.js';

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'cookie', 'proxy-authorization']);

function recordHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = SECRET_HEADERS.has(name) ? '<redacted>' : Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const part of req) chunks.push(part as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
  res.end(JSON.stringify(body));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function streamReply(res: ServerResponse, reply: Reply, request: ParsedRequest): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': newId('req'),
  });
  res.flushHeaders();
  const events = toSseEvents(reply, request.model, estimateTokens(request.messages));
  for (const [index, event] of events.entries()) {
    if (reply.dropAfterEvents !== undefined && index >= reply.dropAfterEvents) {
      res.socket?.destroy();
      return;
    }
    if (reply.eventDelayMs) await sleep(reply.eventDelayMs);
    // Wait for each event to reach the socket, so a later drop cuts after it rather than before.
    await new Promise<void>((resolve) => res.write(formatSse(event), () => resolve()));
  }
  res.end();
}

/** Holds the script and decides each reply; side calls never consume scripted turns. */
class Scripter {
  private script: Script | undefined;
  private position = 0;

  constructor(script: Script | undefined) {
    this.script = script;
  }

  set(script: Script | undefined): void {
    this.script = script;
    this.position = 0;
  }

  replyFor(request: ParsedRequest): Reply {
    if (request.isSideCall) return sideCallReply(request);
    const turn = typeof this.script === 'function' ? this.script(request) : this.script?.[this.position++];
    return turn === undefined ? defaultReply(request) : normalizeTurn(turn);
  }
}

async function handleMessages(res: ServerResponse, body: unknown, scripter: Scripter): Promise<void> {
  if (!isObject(body)) return sendJson(res, 400, errorBody(400, undefined, 'body must be a JSON object'));
  const request = parseRequest(body);
  const reply = scripter.replyFor(request);
  if (reply.fault) {
    const { status, errorType, message } = reply.fault;
    return sendJson(res, status, errorBody(status, errorType, message));
  }
  if (request.stream) return streamReply(res, reply, request);
  sendJson(res, 200, toMessageJson(reply, request.model, estimateTokens(request.messages)));
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  recorded: RecordedRequest,
  scripter: Scripter,
) {
  const pathname = new URL(recorded.path, 'http://127.0.0.1').pathname;
  if (req.method === 'GET' || req.method === 'HEAD') {
    // The CLI probes `HEAD /` for connectivity; any 200 satisfies it.
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(req.method === 'HEAD' ? undefined : '{}');
  }
  if (req.method === 'POST' && pathname === '/v1/messages')
    return handleMessages(res, recorded.body, scripter);
  if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') {
    const messages = isObject(recorded.body) ? recorded.body.messages : undefined;
    return sendJson(res, 200, { input_tokens: estimateTokens(messages) });
  }
  sendJson(res, 404, errorBody(404, undefined, `no route for ${req.method ?? '?'} ${pathname}`));
}

/**
 * Starts the fake on 127.0.0.1 with a random port. `script` is either a list of turns used in
 * order (then the built-in behaviours) or a function deciding each reply.
 */
export async function startFakeAnthropic(script?: Script): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const scripter = new Scripter(script);

  const server = createServer((req, res) => {
    void (async () => {
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: recordHeaders(req),
        body: parseJson(await readBody(req)),
        at: Date.now(),
      };
      requests.push(recorded);
      await route(req, res, recorded, scripter);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(500, 'api_error', String(error)));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests: () =>
      requests
        .filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages' && isObject(r.body))
        .map((r) => parseRequest(r.body as Record<string, unknown>)),
    setScript: (next) => scripter.set(next),
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets from the CLI would hold close() open otherwise.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
