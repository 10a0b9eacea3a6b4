// HTTP plumbing: body reading, a lenient multipart parser, parameter coercion and Bot API error replies.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies above this are drained and answered with 413 (Telegram's bot upload limit is 50 MB). */
export const MAX_BODY_BYTES = 60 * 1024 * 1024;

/** Thrown by method handlers; becomes `{ ok: false, error_code, description, parameters? }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

export const badRequest = (what: string): ApiError => new ApiError(400, `Bad Request: ${what}`);

export interface FilePart {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export type Params = Record<string, unknown>;

export function isFilePart(value: unknown): value is FilePart {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as FilePart).bytes);
}

/** Reads the whole body; returns undefined (after draining) when it exceeds MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return total > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks, total);
}

/** Parameters whose form values are JSON-encoded objects or arrays (as grammY and Telegram do it). */
const JSON_KEYS = new Set([
  'reply_markup',
  'reply_parameters',
  'allowed_updates',
  'commands',
  'scope',
  'link_preview_options',
  'entities',
  'caption_entities',
  'media',
]);

/** Form values are strings; only the known object parameters are decoded from JSON. */
function coerce(key: string, value: string): unknown {
  const trimmed = value.trim();
  if (JSON_KEYS.has(key) && (trimmed.startsWith('{') || trimmed.startsWith('['))) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

/** Value of a header parameter such as `boundary=...` or `name="..."`; quoted or bare. */
function headerParam(header: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}=("(?:[^"\\\\]|\\\\.)*"|[^;]*)`, 'i').exec(header);
  if (!match?.[1]) return undefined;
  const raw = match[1].trim();
  return raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
}

/**
 * Parses multipart/form-data leniently: header names in any case, with or without a space after the
 * colon, and `filename=` bare (grammY writes `filename=foo.txt` unquoted, as the last parameter, so a
 * bare filename runs to the end of the header line and may contain `;` or spaces).
 */
export function parseMultipart(body: Buffer, boundary: string): Params {
  const params: Params = {};
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let position = body.indexOf(opening);
  if (position < 0) return params;
  position += opening.length;
  for (;;) {
    if (body.subarray(position, position + 2).toString() === '--') break;
    const headersStart = body.indexOf('\r\n', position) + 2;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    if (headersStart < 2 || headersEnd < 0) break;
    const next = body.indexOf(delimiter, headersEnd + 4);
    if (next < 0) break;
    const headers = new Map<string, string>();
    for (const line of body.subarray(headersStart, headersEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = headerParam(disposition, 'name');
    const data = body.subarray(headersEnd + 4, next);
    if (name !== undefined) params[name] = partValue(name, disposition, headers, data);
    position = next + delimiter.length;
  }
  return params;
}

function partValue(name: string, disposition: string, headers: Map<string, string>, data: Buffer): unknown {
  const star = /filename\*=(?:UTF-8'[^']*')?([^;]*)/i.exec(disposition);
  let filename: string | undefined;
  if (star?.[1]) filename = decodeURIComponent(star[1].trim());
  else {
    const index = disposition.search(/;\s*filename=/i);
    if (index >= 0) {
      const raw = disposition.slice(disposition.indexOf('=', index) + 1).trim();
      filename = raw.startsWith('"') ? (headerParam(disposition, 'filename') ?? '') : raw;
    }
  }
  if (filename === undefined) return coerce(name, data.toString('utf8'));
  return { filename, contentType: headers.get('content-type') ?? 'application/octet-stream', bytes: data };
}

/** Query string and body (JSON, urlencoded or multipart) merged into one parameter object. */
export function parseParams(url: URL, contentType: string, body: Buffer): Params {
  const params: Params = {};
  for (const [key, value] of url.searchParams) params[key] = coerce(key, value);
  if (body.length === 0) return params;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw badRequest("can't parse JSON object");
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw badRequest('parameters must be a JSON object');
    return { ...params, ...(parsed as Params) };
  }
  if (type === 'application/x-www-form-urlencoded') {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params[key] = coerce(key, value);
    return params;
  }
  if (type === 'multipart/form-data') {
    const boundary = headerParam(contentType, 'boundary');
    if (!boundary) throw badRequest('multipart boundary is missing');
    return { ...params, ...parseMultipart(body, boundary) };
  }
  return params;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function errorBody(error: ApiError): Record<string, unknown> {
  return {
    ok: false,
    error_code: error.status,
    description: error.description,
    ...(error.parameters ? { parameters: error.parameters } : {}),
  };
}

/** The description Telegram uses for a status when none is given. */
export function defaultDescription(status: number, retryAfter: number): string {
  if (status === 429) return `Too Many Requests: retry after ${retryAfter}`;
  if (status === 401) return 'Unauthorized';
  if (status === 403) return 'Forbidden: bot was blocked by the user';
  if (status === 404) return 'Not Found';
  if (status === 409) return 'Conflict: terminated by other getUpdates request';
  if (status >= 500) return 'Internal Server Error';
  return 'Bad Request';
}

// --- Parameter readers: form bodies carry strings, JSON bodies carry numbers and booleans.

export function optInt(params: Params, key: string): number | undefined {
  const value = params[key];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number)) throw badRequest(`invalid ${key} specified`);
  return number;
}

export function optString(params: Params, key: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : String(value);
}

export function optBool(params: Params, key: string): boolean | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  return value === true || value === 'true' || value === 1 || value === '1';
}

export function chatIdOf(params: Params): number {
  const value = params.chat_id;
  if (value === undefined || value === null || value === '') throw badRequest('chat_id is empty');
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number) || number === 0) throw badRequest('chat not found');
  return number;
}

export function optObject(params: Params, key: string): Params | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(`can't parse ${key} JSON object`);
  return value as Params;
}
