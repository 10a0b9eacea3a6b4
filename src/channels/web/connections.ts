import type { Server, Socket } from 'node:net';
import type { Clock } from '../../core/clock.js';

/** How long open WebSockets and requests get to finish when the server stops, before their sockets are cut. */
export const CLOSE_GRACE_MS = 1_000;

/**
 * Every socket the server accepted, so that stopping never waits on a client: an upgraded WebSocket, a
 * browser's keep-alive connection, or a client that simply never closes its end is cut after a short grace.
 */
export class Connections {
  private readonly sockets = new Set<Socket>();
  private stopping = false;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      if (this.stopping) return void socket.destroy();
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get open(): number {
    return this.sockets.size;
  }

  /** Waits for the open sockets to close, at most `CLOSE_GRACE_MS`, then destroys those left. */
  async closeAll(clock: Clock): Promise<void> {
    this.stopping = true;
    if (this.sockets.size > 0) {
      await new Promise<void>((resolve) => {
        const grace = clock.after(CLOSE_GRACE_MS, resolve);
        const check = () => {
          if (this.sockets.size > 0) return;
          grace.cancel();
          resolve();
        };
        for (const socket of this.sockets) socket.once('close', check);
      });
    }
    for (const socket of this.sockets) socket.destroy();
  }
}

/**
 * A refused WebSocket upgrade: the refusal was written on a socket that Node's HTTP server no longer reads or
 * closes (it was handed over for the upgrade), so close it here or it stays open (CLOSE-WAIT) for good.
 */
export function closeIfRefusedUpgrade(raw: { upgrade?: boolean; socket: Socket | null }): void {
  if (raw.upgrade === true) raw.socket?.destroy();
}
