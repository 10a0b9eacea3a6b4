import type { Clock, TimerHandle } from '../../core/clock.js';
import type { HostFrame } from './host-wire.js';

/** How long news waits before it goes out, gathered. */
export const NOTICE_DELAY_MS = 2;

type Notice = Extract<HostFrame, { type: 'typed' | 'active' }>;

interface Recipient {
  sendJson(frame: HostFrame): void;
}

/**
 * News for a client that answers nothing it asked (a viewer typed this; output came after a settle), sent
 * NOTICE_DELAY_MS later rather than in the turn it happened: each is a write that wakes another process, and
 * a keystroke's echo waited behind them (web echo p50 0.1–0.2 ms, measured). Keys typed meanwhile go as one
 * notice and a later `active` replaces the one before; any other frame to the client sends what waits for it
 * first (flush), so nothing arrives out of its order.
 */
export class PendingNotices<P extends Recipient> {
  private readonly pending = new Map<P, Notice[]>();
  private timer: TimerHandle | null = null;

  constructor(private readonly clock: Clock) {}

  add(peer: P, notice: Notice): void {
    const queued = this.pending.get(peer) ?? [];
    const last = queued.at(-1);
    if (last?.type === 'typed' && notice.type === 'typed')
      queued[queued.length - 1] = { ...last, data: last.data + notice.data };
    else if (last?.type === 'active' && notice.type === 'active') queued[queued.length - 1] = notice;
    else queued.push(notice);
    this.pending.set(peer, queued);
    this.timer ??= this.clock.after(NOTICE_DELAY_MS, () => this.flushAll());
  }

  /** What waits for `peer` goes now: before another frame to it. */
  flush(peer: P): void {
    const queued = this.pending.get(peer);
    if (!queued) return;
    this.pending.delete(peer);
    for (const notice of queued) peer.sendJson(notice);
  }

  /** `peer` left: what waited for it is dropped. */
  drop(peer: P): void {
    this.pending.delete(peer);
  }

  private flushAll(): void {
    this.timer = null;
    for (const peer of [...this.pending.keys()]) this.flush(peer);
  }
}
