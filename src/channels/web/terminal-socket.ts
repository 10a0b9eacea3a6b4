import type { RawData, WebSocket } from 'ws';
import type { TerminalAttachment, TerminalViewer } from './backend.js';

/** Larger frames close the socket (1009): input and resize messages are small. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** No terminal to show here (no such live session, or one the web may not see). */
export const NO_TERMINAL = 4404;

/** serve stopped (RFC 6455's "going away"): the page tries again. */
export const GOING_AWAY = 1001;

/** The terminal's process went away without an exit (an `agent-bridge run` that ended): the page looks again. */
export const TERMINAL_GONE = 4410;

/**
 * Backpressure per viewer: one this far behind (a background tab, a slow phone) is sent nothing more; once what
 * it was sent has gone out, it gets the screen as it is then and goes on from there. The others, and the
 * agent, never wait for it.
 */
export const LAG_LIMIT_BYTES = 4 * 1024 * 1024;

/** Frames a viewer may send before it is greeted (each at most MAX_FRAME_BYTES): the rest are dropped. */
const MAX_EARLY_FRAMES = 64;

/** The widest and tallest terminal a viewer may ask for (the page's own limit too). */
const MAX_VIEWER_CELLS = 1000;

/**
 * The server's side of one browser's `/ws/terminal/:id` (src/channels/web/API.md), wherever it runs: in serve,
 * relaying a terminal, or in the session host the socket was handed to. Output goes out binary, as it comes,
 * the same buffer for every viewer (nothing is re-encoded per viewer); a viewer that falls LAG_LIMIT_BYTES
 * behind skips to the current screen; what it sends is checked here, on the parsed frame, before it reaches
 * the terminal.
 */
export class TerminalSocket implements TerminalViewer {
  private lagging = false;
  /** Frames about the size wait for hello and the screen: the viewer is told its role on joining. */
  private greeted = false;
  private sizeBeforeHello: object | null = null;
  private attachment: TerminalAttachment | null = null;
  /** What the viewer sent before it was attached (a client need not wait for hello): taken in order then. */
  private early: Array<{ raw: RawData; isBinary: boolean }> | null = [];

  constructor(private readonly socket: WebSocket) {
    // A browser that vanishes mid-frame is a closed viewer, nothing more.
    socket.on('error', () => undefined);
    socket.on('message', (raw, isBinary) => {
      if (!this.early) return this.received(raw, isBinary);
      // A client that sends this much before it was even greeted is not a page: it is not heard.
      if (this.early.length < MAX_EARLY_FRAMES) this.early.push({ raw, isBinary });
    });
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  output(data: Uint8Array): void {
    if (!this.open || this.lagging) return;
    if (this.socket.bufferedAmount <= LAG_LIMIT_BYTES) return void this.socket.send(data, { binary: true });
    this.lagging = true;
    // A ping goes out after everything queued: its callback says the backlog has left, even if the agent
    // printed nothing since.
    this.socket.ping(undefined, false, (error) => void (error ? undefined : this.skipAhead()));
  }

  /** The agent ended: said, then the socket closes (1000); the page shows how it ended and asks no more. */
  exit(info: { exitCode: number | null; signal: string | null }): void {
    this.json({ type: 'exit', exitCode: info.exitCode, signal: info.signal });
    this.close(1000, 'the session ended');
  }

  closed(): void {
    this.close(TERMINAL_GONE, 'the terminal went away');
  }

  size(info: { cols: number; rows: number; driving: boolean }): void {
    const frame = { type: 'size', cols: info.cols, rows: info.rows, driving: info.driving };
    if (this.greeted) this.json(frame);
    else this.sizeBeforeHello = frame;
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  /** Attached: hello and the screen go out, then the viewer's keys and sizes reach `attachment`. */
  greet(attachment: TerminalAttachment): void {
    // Gone while it attached: let go at once.
    if (!this.open) return attachment.detach();
    this.attachment = attachment;
    this.socket.on('close', () => attachment.detach());
    const { cols, rows, canType } = attachment;
    this.json({ type: 'hello', cols, rows, canType, ...(attachment.fixedSize ? { fixedSize: true } : {}) });
    this.json({ type: 'screen', data: attachment.screen });
    this.greeted = true;
    if (this.sizeBeforeHello) this.json(this.sizeBeforeHello);
    const early = this.early ?? [];
    this.early = null;
    for (const { raw, isBinary } of early) this.received(raw, isBinary);
  }

  private received(raw: RawData, isBinary: boolean): void {
    const attachment = this.attachment;
    const message = isBinary ? null : parseObject(raw);
    if (!attachment || !message) return;
    if (message.type === 'input' && typeof message.data === 'string') attachment.input(message.data);
    if (message.type === 'resize' && isSize(message.cols) && isSize(message.rows))
      attachment.resize(message.cols, message.rows);
    if (message.type === 'drive') attachment.drive();
  }

  private async skipAhead(): Promise<void> {
    const screen = await this.attachment?.redraw();
    if (screen === undefined || !this.open) return;
    this.json({ type: 'screen', data: screen });
    this.lagging = false;
  }

  private json(frame: object): void {
    if (this.open) this.socket.send(JSON.stringify(frame));
  }
}

function parseObject(
  raw: RawData,
): { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown } | null {
  try {
    const value: unknown = JSON.parse(String(raw));
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= MAX_VIEWER_CELLS;
}
