/**
 * A WebSocket that reconnects with backoff (0.5 s doubling to 15 s, with jitter) until closed, and at once
 * when the page comes back to the foreground or the network returns.
 */

export interface SocketHandlers {
  onOpen?(): void;
  onMessage(event: MessageEvent): void;
  /** `retryInMs` is null when it will not reconnect. */
  onDown?(info: { code: number; retryInMs: number | null }): void;
  /** Asked before each reconnect; false stops for good (e.g. the session ended). */
  shouldReconnect?(code: number): boolean | Promise<boolean>;
}

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 15_000;
/** A connection that lasted this long resets the backoff. */
const STABLE_MS = 3_000;

export class ReconnectingSocket {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private timer: number | undefined;
  private closed = false;
  private openedAt = 0;
  private readonly wake = (): void => {
    if (document.visibilityState === 'visible' && this.timer !== undefined) this.reconnectNow();
  };

  constructor(
    private readonly url: string,
    private readonly handlers: SocketHandlers,
  ) {
    document.addEventListener('visibilitychange', this.wake);
    window.addEventListener('online', this.wake);
    this.connect();
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  send(data: string): boolean {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(data);
    return true;
  }

  /** Got a message: the server is well, so the next drop starts the backoff again. */
  markHealthy(): void {
    this.attempt = 0;
  }

  reconnectNow(): void {
    if (this.closed) return;
    window.clearTimeout(this.timer);
    this.timer = undefined;
    this.attempt = 0;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) return;
    this.connect();
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.timer);
    document.removeEventListener('visibilitychange', this.wake);
    window.removeEventListener('online', this.wake);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
  }

  private connect(): void {
    this.timer = undefined;
    const socket = new WebSocket(this.url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      this.openedAt = Date.now();
      this.handlers.onOpen?.();
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.handlers.onMessage(event);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.openedAt && Date.now() - this.openedAt >= STABLE_MS) this.attempt = 0;
      this.openedAt = 0;
      void this.scheduleReconnect(event.code);
    };
  }

  private async scheduleReconnect(code: number): Promise<void> {
    if (this.closed) return;
    const wanted = this.handlers.shouldReconnect ? await this.handlers.shouldReconnect(code) : true;
    // Closed meanwhile, or reconnected already (reconnectNow): nothing more to schedule.
    if (this.closed || this.socket) return;
    if (!wanted) {
      this.handlers.onDown?.({ code, retryInMs: null });
      return;
    }
    const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt++;
    this.handlers.onDown?.({ code, retryInMs: delay });
    this.timer = window.setTimeout(() => this.connect(), delay);
  }
}
