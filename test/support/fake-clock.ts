import type { Clock, TimerHandle } from '../../src/core/clock.js';

/** A clock that moves only when told: timers fire inside advance(), in time order. */
export class FakeClock implements Clock {
  private current: number;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 0;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  after(ms: number, fn: () => void): TimerHandle {
    const id = this.nextId++;
    this.timers.push({ at: this.current + ms, fn, id });
    return { cancel: () => (this.timers = this.timers.filter((t) => t.id !== id)) };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  /** Moves time forward, firing due timers (including ones they schedule) in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t.id !== due.id);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }
}
