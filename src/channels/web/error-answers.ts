import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance } from 'fastify';

/**
 * Every refusal answers as API.md says, `{ error: "<what to fix>" }`: Fastify's own too (a body that is not
 * JSON, empty, of another type or too large; a route that does not exist; a request that is not HTTP), never
 * its `{ statusCode, code, error, message }` nor a stack. The status code is kept.
 */

/** An error says what to fix in a line, not the whole of what went wrong. */
const MAX_ERROR_CHARS = 200;

export function answerErrorsAsApi(
  server: FastifyInstance,
  maxBodyBytes: number,
  log?: (line: string) => void,
): void {
  server.setErrorHandler((error: FastifyError, request, reply) => {
    const status =
      typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode <= 599
        ? error.statusCode
        : 500;
    if (status >= 500)
      log?.(`web: ${request.method} ${request.routeOptions.url ?? '?'} failed: ${error.message}`);
    return reply.code(status).send({ error: whatToFix(error, status, maxBodyBytes) });
  });
  server.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: 'no such route: the API is described in src/channels/web/API.md' }),
  );
}

function whatToFix(error: FastifyError, status: number, maxBodyBytes: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'the body is not valid JSON: send a JSON object, as API.md shows';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the body is empty but its Content-Type is application/json: send a JSON object';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'this Content-Type is not taken: send the body as JSON, with Content-Type: application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `the body is larger than ${maxBodyBytes} bytes: send less`;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'the Content-Length is not the length of the body: send the body whole, with its length';
  }
  // agent-bridge's own failure: what it was is nothing a client can fix (and may name files of this machine).
  if (status >= 500) return 'agent-bridge could not answer this request: try again, or see its log';
  const line = (error.message.split('\n', 1)[0] ?? '').trim() || STATUS_CODES[status] || 'refused';
  return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS)}…` : line;
}

/**
 * Fastify's clientErrorHandler: a request Node's HTTP parser refused (not HTTP, a bad Content-Length, headers
 * too large, too slow) gets the same `{ error }`, then the connection is closed (as Node and Fastify do).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request took too long to arrive: send it whole at once']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the headers are too large: send fewer or shorter ones']
        : [
            400,
            'the request is not valid HTTP/1.1: send one request line, headers and the body they announce',
          ];
  const body = JSON.stringify({ error: message });
  if (socket.writable)
    socket.write(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  socket.destroy(error);
}
