import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface Listening {
  port: number;
  /** Closes the server and cuts every connection still open (keep-alive ones, sockets upgraded elsewhere). */
  close(): Promise<void>;
}

/** An HTTP server for a fake on 127.0.0.1 (a random port); a handler that throws answers `failed`. */
export async function listenOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  failed: (res: ServerResponse, error: unknown) => void,
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
): Promise<Listening> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) failed(res, error);
      else res.destroy();
    });
  });
  if (upgrade) server.on('upgrade', upgrade);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise((resolve) => setImmediate(resolve));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
