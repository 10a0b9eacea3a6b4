import type { Clock, TimerHandle } from '../../core/clock.js';

/** How long refusals from one address are gathered into one audit line. */
export const REFUSAL_WINDOW_MS = 60_000;
const MAX_PATH_CHARS = 200;

export interface Refusal {
  ip: string;
  /** The request target as sent, without its query (which may hold a token). */
  path: string;
  /** Why: missing, wrong, throttled, host, origin, ... */
  reason: string;
}

interface Burst {
  count: number;
  reasons: Map<string, number>;
  lastPath: string;
  timer: TimerHandle;
}

/**
 * Refused web requests, audited without flooding the log: the first refusal from an address is written at
 * once (an attack shows up immediately, and survives a crash); the ones that follow it within the window are
 * written as one line with their count when the window ends, and so on while they keep coming.
 */
export class RefusalAudit {
  private readonly bursts = new Map<string, Burst>();

  constructor(
    private readonly write: (details: Record<string, string | number>) => void,
    private readonly clock: Clock,
  ) {}

  refused(refusal: Refusal): void {
    const burst = this.bursts.get(refusal.ip);
    if (!burst) {
      this.write({ source: 'web', ip: refusal.ip, path: shortPath(refusal.path), reason: refusal.reason });
      this.bursts.set(refusal.ip, this.newBurst(refusal.ip));
      return;
    }
    burst.count += 1;
    burst.reasons.set(refusal.reason, (burst.reasons.get(refusal.reason) ?? 0) + 1);
    burst.lastPath = refusal.path;
  }

  /** Writes what is gathered (at shutdown). */
  flush(): void {
    for (const ip of [...this.bursts.keys()]) this.endWindow(ip, false);
  }

  private newBurst(ip: string): Burst {
    return {
      count: 0,
      reasons: new Map(),
      lastPath: '',
      timer: this.clock.after(REFUSAL_WINDOW_MS, () => this.endWindow(ip, true)),
    };
  }

  private endWindow(ip: string, keepGoing: boolean): void {
    const burst = this.bursts.get(ip);
    if (!burst) return;
    burst.timer.cancel();
    this.bursts.delete(ip);
    if (burst.count === 0) return;
    this.write({
      source: 'web',
      ip,
      count: burst.count,
      reason: [...burst.reasons].map(([reason, n]) => `${reason} ${n}`).join(', '),
      path: shortPath(burst.lastPath),
      note: `${burst.count} more refused requests from this address within ${REFUSAL_WINDOW_MS / 1000} s`,
    });
    // Still coming: the next window is summed up too, rather than starting over with a line of its own.
    if (keepGoing) this.bursts.set(ip, this.newBurst(ip));
  }
}

function shortPath(path: string): string {
  const clean = path.split('?')[0] ?? '';
  return clean.length > MAX_PATH_CHARS ? `${clean.slice(0, MAX_PATH_CHARS)}…` : clean;
}
