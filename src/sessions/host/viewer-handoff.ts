import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { TerminalUpgrade } from '../../channels/web/backend.js';
import type { ViewerMessage } from './browser-viewers.js';

/** serve's side of the IPC channel it started a session host with: browsers' terminals go over it. */
export interface ViewerHandoff {
  /**
   * Hands a browser's checked, unanswered terminal upgrade to the host, which serves it from then on (true);
   * false when it cannot (the host is gone, the connection is TLS): serve relays that viewer itself.
   */
  hand(upgrade: TerminalUpgrade): boolean;
  /** This serve lets the session go: the host lets the browsers it was handed go too. */
  close(): void;
}

/**
 * Sockets on their way to one host, at most: Node sends them one at a time, each once the host said it has the
 * one before (a few ms each). Every browser of a team watching at once is handed over (one relayed here costs
 * a second process's copy of every byte for as long as it watches: 8 let 2 of 10 viewers through serve); a
 * burst past this, or a host too busy to take them, is relayed rather than kept waiting behind the queue.
 */
export const MAX_PENDING_HANDOFFS = 32;

export function viewerHandoff(child: ChildProcess): ViewerHandoff {
  let pending = 0;
  return {
    hand(upgrade) {
      const socket = upgrade.socket;
      // A TLS connection's keys live in this process: only a plain one can change hands.
      if (!child.connected || !(socket instanceof Socket) || 'encrypted' in socket) return false;
      if (pending >= MAX_PENDING_HANDOFFS) return false;
      const message: ViewerMessage = {
        type: 'viewer',
        headers: upgrade.headers,
        head: Buffer.concat([upgrade.head, stopReading(socket)]).toString('base64'),
        watch: upgrade.readOnly,
      };
      // Sent as a socket no server of ours tracks (Node would have the HTTP server ask the host about it before
      // it could close): it is the host's from now on, and counts as closed here once sent.
      (socket as { server?: unknown }).server = null;
      pending++;
      child.send(message, socket, { keepOpen: false }, () => {
        pending--;
        socket.destroy();
      });
      return true;
    },
    close() {
      if (child.connected) child.disconnect();
    },
  };
}

/**
 * What the browser sent after its request head and this process read already (it goes with the head), the
 * socket no longer read here: until the host has it, what arrives waits in the kernel for the host. Node reads
 * on and drops what it reads once the handle is on its way (nodejs/node#8353, whose maintainers point to
 * readStop for this; a handle without it is sent as it is).
 */
function stopReading(socket: Socket): Buffer {
  const read = socket.readableLength > 0 ? (socket.read(socket.readableLength) as Buffer | null) : null;
  (socket as unknown as { _handle?: { readStop?(): number } })._handle?.readStop?.();
  return read ?? Buffer.alloc(0);
}
