// HTTP plumbing: bodies (JSON or multipart with payload_json + files[n]), routes, replies and rate-limit headers.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.js';
import type { Json } from './types.js';
import type { World } from './world.js';

export interface UploadedFile {
  /** n of the `files[n]` field (matches `attachments[].id` in the payload). */
  index: number;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface RestContext {
  world: World;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body or the multipart `payload_json` (or the multipart text fields); undefined without a body. */
  payload: Json | undefined;
  files: UploadedFile[];
}

/** `body` undefined → 204 without a body or content-type. */
export interface Reply {
  status: number;
  body?: unknown;
}

export interface Route {
  method: string;
  /** `/channels/:channelId/messages`: also the rate-limit bucket. */
  template: string;
  auth: boolean;
  handler: (ctx: RestContext) => Reply;
  regex: RegExp;
  keys: string[];
}

export function route(
  method: string,
  template: string,
  handler: (ctx: RestContext) => Reply,
  auth = true,
): Route {
  const keys: string[] = [];
  const source = template
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/:([a-zA-Z]+)/g, (_match, key: string) => {
      keys.push(key);
      return '([^/]+)';
    });
  return { method, template, auth, handler, regex: new RegExp(`^${source}$`), keys };
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const noContent = (): Reply => ({ status: 204 });

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseMultipart(
  contentType: string,
  body: Buffer,
): Promise<Omit<RestContext, 'world' | 'params' | 'query'>> {
  const form = await new Response(new Uint8Array(body), {
    headers: { 'content-type': contentType },
  }).formData();
  const fields: Json = {};
  const files: UploadedFile[] = [];
  let payload: Json | undefined;
  for (const [key, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === 'string') {
      if (key === 'payload_json') payload = JSON.parse(value) as Json;
      else fields[key] = value;
      continue;
    }
    const index = Number(/\[(\d+)\]$/.exec(key)?.[1] ?? files.length);
    files.push({
      index,
      filename: value.name,
      contentType: value.type || 'application/octet-stream',
      data: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { payload: payload ?? (Object.keys(fields).length ? fields : undefined), files };
}

/** Parses a JSON or multipart body; a malformed one is 400 / 50109 as on Discord. */
export async function parseBody(
  contentType: string,
  body: Buffer,
): Promise<Omit<RestContext, 'world' | 'params' | 'query'>> {
  if (body.length === 0) return { payload: undefined, files: [] };
  try {
    if (contentType.startsWith('multipart/form-data')) return await parseMultipart(contentType, body);
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return { payload: typeof parsed === 'object' && parsed !== null ? (parsed as Json) : {}, files: [] };
  } catch {
    throw new ApiError(400, 50109, 'The request body contains invalid JSON.');
  }
}

/** Writes a reply; JSON bodies get `application/json`, a 204 gets no content-type at all. */
export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  if (body === undefined || status === 204) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

const LIMIT = 50;
const WINDOW_MS = 1_000;

/**
 * `X-RateLimit-*` headers for every reply: each bucket (method + route + major id) allows 50 calls a second.
 * The fake never answers 429 on its own (only after `rateLimitNext`); discord.js still waits when
 * `remaining` reaches 0, as it would on Discord.
 */
export class Buckets {
  private readonly windows = new Map<string, { start: number; count: number }>();

  headers(method: string, template: string, majorId: string): Record<string, string> {
    const now = Date.now();
    const key = `${method} ${template} ${majorId}`;
    let window = this.windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const resetAfter = (window.start + WINDOW_MS - now) / 1000;
    return {
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': String(Math.max(0, LIMIT - window.count)),
      'x-ratelimit-reset': ((now + resetAfter * 1000) / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': bucketHash(method, template),
    };
  }
}

export function bucketHash(method: string, template: string): string {
  return createHash('sha1').update(`${method} ${template}`).digest('hex').slice(0, 32);
}

/** The headers and body of a 429, as Discord sends them. */
export function rateLimitReply(
  method: string,
  template: string,
  retryAfterSeconds: number,
  global: boolean,
): { headers: Record<string, string>; body: Json } {
  const retry = String(retryAfterSeconds);
  return {
    headers: {
      'retry-after': retry,
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': ((Date.now() + retryAfterSeconds * 1000) / 1000).toFixed(3),
      'x-ratelimit-reset-after': retry,
      'x-ratelimit-bucket': bucketHash(method, template),
      'x-ratelimit-scope': global ? 'global' : 'user',
      ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global },
  };
}
