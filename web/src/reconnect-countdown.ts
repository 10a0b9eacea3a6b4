import { button } from './dom.js';
import { store } from './store.js';

/**
 * A page's socket waiting to reconnect (the terminal's, a conversation's): "reconnecting in 4 s…", then
 * 3 s…, with a "Reconnect now" button; and it reconnects at once when the page's events socket comes back (the
 * server is reachable again). A timer per second shown, and the watch on the events socket, only while a
 * reconnect is scheduled: nothing runs otherwise.
 */
export class ReconnectCountdown {
  /** "Reconnect now": shown only while a reconnect is scheduled. */
  readonly button: HTMLButtonElement;
  /** When the next try is due (Date.now() time). */
  private retryAt = 0;
  private timer: number | undefined;
  /** Set while a reconnect is scheduled: stops watching the events socket. */
  private offStatus: (() => void) | null = null;
  /** Whether the events socket was up, to notice it coming back. */
  private eventsLive = false;

  /**
   * @param show Shows the link's state: the countdown's text, or "connecting" once reconnecting now.
   * @param reconnect Reconnects now (the socket's `reconnectNow`).
   */
  constructor(
    private readonly show: (text: string) => void,
    private readonly reconnect: () => void,
  ) {
    this.button = button(
      'Reconnect now',
      { class: 'btn btn-small', 'data-testid': 'reconnect-now', hidden: true },
      () => this.now(),
    );
  }

  /** Whether a reconnect is scheduled (the countdown runs). */
  get scheduled(): boolean {
    return this.offStatus !== null;
  }

  /** The next try is in `inMs`: count down to it. */
  start(inMs: number): void {
    this.stop();
    this.retryAt = Date.now() + inMs;
    this.button.hidden = false;
    this.eventsLive = store.status.live;
    this.offStatus = store.on('status', () => this.onEventsStatus());
    this.tick();
  }

  /** No reconnect is scheduled any more (connected, connecting, given up, or the page left). */
  stop(): void {
    window.clearTimeout(this.timer);
    this.timer = undefined;
    this.offStatus?.();
    this.offStatus = null;
    this.button.hidden = true;
  }

  /** Reconnects now rather than when the countdown ends. */
  now(): void {
    if (!this.scheduled) return;
    this.stop();
    this.show('connecting');
    this.reconnect();
  }

  private tick(): void {
    const left = this.retryAt - Date.now();
    this.show(`reconnecting in ${Math.max(1, Math.ceil(left / 1000))} s…`);
    if (left > 1000) this.timer = window.setTimeout(() => this.tick(), left % 1000 || 1000);
    else this.timer = undefined;
  }

  /** The page's events socket came back: the server is reachable again, so is this socket (no need to wait). */
  private onEventsStatus(): void {
    const live = store.status.live;
    const back = live && !this.eventsLive;
    this.eventsLive = live;
    if (back) this.now();
  }
}
