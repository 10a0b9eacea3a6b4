import net from 'node:net';

/** What came back on a raw connection: the parsed response, and whether the server closed the socket. */
export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Resolves when the server ends the connection (never, for a leaked socket). */
  closedByServer: Promise<void>;
  socket: net.Socket;
  /** Every byte received so far, the response included (after a 101, the WebSocket frames that follow). */
  received(): string;
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the blank line) and `body` exactly as given
 * on a new TCP connection, as an attacker would: no client library normalises the target or the headers.
 * Resolves once the whole response is in (Content-Length or the server closing).
 */
export function rawRequest(
  port: number,
  head: string,
  body = '',
  address = '127.0.0.1',
): Promise<RawExchange> {
  const socket = net.connect(port, address);
  const closedByServer = new Promise<void>((resolve) => {
    socket.once('end', resolve);
    socket.once('close', resolve);
  });
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const done = (complete: boolean) => {
      const parsed = parseResponse(data, complete, head.startsWith('HEAD '));
      if (parsed) resolve({ ...parsed, closedByServer, socket, received: () => data.toString('latin1') });
      else if (complete) reject(new Error(`no HTTP response: ${JSON.stringify(data.toString())}`));
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      done(false);
    });
    socket.once('close', () => done(true));
    socket.once('connect', () => socket.write(`${head}\r\n\r\n${body}`));
  });
}

function parseResponse(data: Buffer, complete: boolean, bodiless: boolean) {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const rest = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  const length = headers['content-length'];
  if (status === 101 || bodiless) return { status, headers, body: '' };
  if (length !== undefined) {
    if (rest.length < Number(length)) return null;
    return { status, headers, body: rest.subarray(0, Number(length)).toString('utf8') };
  }
  return complete ? { status, headers, body: rest.toString('utf8') } : null;
}

/** The headers of a WebSocket upgrade request. */
export const UPGRADE_HEADERS = [
  'Upgrade: websocket',
  'Connection: Upgrade',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Version: 13',
];

/** A client's masked WebSocket text frame of the page's `input` message (`data`: the keys), byte for byte. */
export function inputFrame(data: string): Buffer {
  const payload = Buffer.from(JSON.stringify({ type: 'input', data }));
  const mask = Buffer.from([1, 2, 3, 4]);
  const length =
    payload.length < 126
      ? Buffer.from([0x80 | payload.length])
      : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([Buffer.from([0x81]), length, mask, payload.map((byte, i) => byte ^ mask[i % 4]!)]);
}
