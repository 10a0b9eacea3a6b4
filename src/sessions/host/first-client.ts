import type { Clock, TimerHandle } from '../../core/clock.js';

/**
 * The spawner attaches within this long of the host's start (it takes well under a second): an agent that
 * ended before waits this long for it, and a host nobody came to by then ends its agent, which nobody could
 * list, attach to or stop (its spawner died before it registered the session).
 */
export const FIRST_CLIENT_MS = 30_000;

/**
 * A session host's wait for its first client (its spawner): the agent's output read before it came is held
 * for it (as from a PTY of its own, it gets every byte), and if it never comes, `neverCame` is called once.
 */
export class FirstClient {
  private held: Buffer[] = [];
  private bytes = 0;
  private came = false;
  private arrived: () => void = () => undefined;
  private readonly arrival = new Promise<void>((resolve) => (this.arrived = resolve));
  private readonly timer: TimerHandle;

  constructor(
    private readonly clock: Clock,
    readonly waitMs: number,
    neverCame: () => void,
  ) {
    this.timer = clock.after(waitMs, () => {
      if (this.came) return;
      neverCame();
      this.arrived();
    });
  }

  /** It came. */
  get here(): boolean {
    return this.came;
  }

  /** Bytes held for it, not yet on any screen it was shown. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Holds `chunk` for the first client if it has not come yet; false once it has. */
  hold(chunk: Buffer): boolean {
    if (this.came) return false;
    this.held.push(chunk);
    this.bytes += chunk.length;
    return true;
  }

  /** It came: the output held for it, to go out after its welcome. */
  come(): Buffer[] {
    const held = this.held;
    this.came = true;
    this.held = [];
    this.bytes = 0;
    this.timer.cancel();
    this.arrived();
    return held;
  }

  /** Resolves when it came, or after `waitMs` (an agent that ended before its spawner attached). */
  async waited(): Promise<void> {
    if (this.came) return;
    const gaveUp = this.clock.after(this.waitMs, () => this.arrived());
    await this.arrival;
    gaveUp.cancel();
  }

  /** The host ended: no more waiting. */
  cancel(): void {
    this.timer.cancel();
  }
}
