import type { Clock, TimerHandle } from './clock.js';

/** Output gathered at most this long, or this much, before it goes out as one message. */
export const BURST_WINDOW_MS = 2;
export const BURST_MAX_BYTES = 64 * 1024;
/**
 * Output goes out at once, in the turn it was read, while less than this went out in the current
 * BURST_WINDOW_MS window: keystroke echoes and small redraws are never held; only a burst is gathered.
 */
export const INTERACTIVE_BYTES = 16 * 1024;

/**
 * Gathers a terminal's output into few large messages during a burst, and lets small output through at once.
 * Linux hands a PTY's output over in reads of at most 4 KiB, each in an event-loop turn of its own: one
 * message per read costs a frame, a write and a wake-up of the reader per 4 KiB (most of a relay's time,
 * measured), so reads close together are joined (up to BURST_MAX_BYTES or BURST_WINDOW_MS).
 *
 * Whoever sends anything else about the same terminal (a screen, a size, the exit) calls flush() first, so
 * nothing gathered arrives after what it comes before.
 */
export class BurstGatherer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private windowStart = Number.NEGATIVE_INFINITY;
  private windowBytes = 0;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly send: (data: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    const now = this.clock.now();
    if (now - this.windowStart >= BURST_WINDOW_MS) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    if (this.pendingBytes === 0 && this.windowBytes + chunk.length <= INTERACTIVE_BYTES) {
      this.deliver(chunk);
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= BURST_MAX_BYTES) this.flush();
    else this.timer ??= this.clock.after(BURST_WINDOW_MS, () => this.flush());
  }

  /** Sends what is gathered now. */
  flush(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.pendingBytes === 0) return;
    const data =
      this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.deliver(data);
  }

  private deliver(data: Buffer): void {
    this.windowBytes += data.length;
    this.send(data);
  }
}
