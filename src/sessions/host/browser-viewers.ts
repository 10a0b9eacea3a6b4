import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import * as z from 'zod/mini';
import { systemClock, type Clock } from '../../core/clock.js';
import { MAX_FRAME_BYTES, NO_TERMINAL, TerminalSocket } from '../../channels/web/terminal-socket.js';
import { CLIENTS_CLOSE_GRACE_MS, PROTOCOL, type Hello } from './host-wire.js';
import type { Peer, SessionHost } from './session-host.js';

/** Node's HTTP server takes request heads of up to 16 KiB: no header serve passed on is longer. */
const MAX_HEADER_CHARS = 16 * 1024;
/**
 * The bytes a client sent after its request head before any answer, as base64 (none from a page): what serve
 * read of them, at most a socket's read buffer and the first packet, far below this.
 */
const MAX_HEAD_CHARS = 4 * 1024 * 1024;

/**
 * What the spawner (serve) sends with a browser's socket over the IPC channel it started this host with: the
 * handshake's own headers (never its cookie or token: serve checked those), what followed the request head,
 * and whether the viewer only watches.
 */
const viewerMessage = z.object({
  type: z.literal('viewer'),
  headers: z.record(z.string(), z.string().check(z.maxLength(MAX_HEADER_CHARS))),
  head: z.string().check(z.maxLength(MAX_HEAD_CHARS)),
  watch: z.boolean(),
});

export type ViewerMessage = z.infer<typeof viewerMessage>;

/**
 * Browsers watching the session from serve's web UI, served by the host itself: serve checks the request
 * (Host, Origin, token) and hands the connection over before answering it; the host finishes the WebSocket
 * handshake and speaks the page's terminal protocol (terminal-socket.ts), so the output goes from the PTY to
 * the browser through one process, not two. Each browser is a `web` client of the host, held to what the
 * session lets the web do, as if it had connected to the host's socket.
 */
export class BrowserViewers {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  constructor(
    private readonly host: SessionHost,
    private readonly clock: Clock = systemClock,
  ) {}

  /** A message from the spawner, with a socket or not: a viewer when both are what they must be. */
  take(message: unknown, handle: unknown): void {
    if (!(handle instanceof Socket)) return;
    const viewer = viewerMessage.safeParse(message);
    if (!viewer.success) return void handle.destroy();
    handle.on('error', () => handle.destroy());
    const request = { method: 'GET', url: '/', headers: viewer.data.headers } as unknown as IncomingMessage;
    // A handshake that is not one (no key, another version) is answered 400 and closed by ws.
    this.server.handleUpgrade(request, handle, Buffer.from(viewer.data.head, 'base64'), (socket) => {
      const terminal = new TerminalSocket(socket);
      void this.host.join(browserPeer(terminal, this.host), browserHello(viewer.data.watch));
    });
  }

  /**
   * Every browser is let go (`code`: 1001, serve went away; 1000, the session ended), after what it was sent:
   * resolves once each has closed, or CLIENTS_CLOSE_GRACE_MS later (the rest cut off). The host's process
   * must not end before: what a slow browser was not yet sent, the end of the output and the exit, would be
   * lost with it.
   */
  async close(code: number, reason: string): Promise<void> {
    for (const socket of this.server.clients) socket.close(code, reason);
    const cut = this.clock.after(CLIENTS_CLOSE_GRACE_MS, () => {
      for (const socket of this.server.clients) socket.terminate();
    });
    // A server with no HTTP server of its own says it closed once its last client has.
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    cut.cancel();
  }
}

function browserHello(watch: boolean): Hello {
  return {
    type: 'hello',
    protocol: PROTOCOL,
    // Checked by serve, which handed the socket over a channel only it has: nothing to present here.
    secret: '-',
    client: 'web',
    control: 'no',
    drives: true,
    output: true,
    screens: false,
    direct: false,
    watch,
  };
}

/**
 * The host's view of a browser: its frames in the page's terms. It never pauses the agent (backlog 0): one
 * that falls behind skips to the current screen instead (TerminalSocket), so a slow phone slows nobody else.
 */
function browserPeer(terminal: TerminalSocket, host: SessionHost): Peer {
  const peer: Peer = {
    get open() {
      return terminal.open;
    },
    sendJson(frame) {
      if (frame.type === 'welcome')
        terminal.greet({
          cols: frame.cols,
          rows: frame.rows,
          canType: frame.canType ?? false,
          screen: frame.screen,
          redraw: () => host.redraw(),
          input: (data) => host.input(peer, Buffer.from(data, 'utf8')),
          resize: (cols, rows) => void host.request(peer, { type: 'resize', cols, rows }),
          drive: () => void host.request(peer, { type: 'drive' }),
          detach: () => host.leave(peer),
        });
      else if (frame.type === 'size') terminal.size(frame);
      else if (frame.type === 'exit') terminal.exit(frame.report);
      else if (frame.type === 'refused') terminal.close(NO_TERMINAL, 'no terminal to show here');
    },
    sendOutput: (chunk) => terminal.output(chunk),
    backlog: 0,
    close: () => terminal.close(),
  };
  return peer;
}
