import type { Clock } from './clock.js';

/**
 * Tells the agent who is speaking when several sources type into one session at once (seed 000's merger).
 *
 * Each format() call forgets sources idle for longer than the window, then prefixes the message with
 * `[source] ` if any *other* source is still within the window, and records this source's activity. So a lone
 * source passes through unchanged; the first message of a burst is unprefixed; once a second source sends
 * within the window, messages from every source active in the window are prefixed; after the window passes
 * without interleaving, messages are unprefixed again. A source idle for exactly `windowMs` still counts.
 */
export class Merger {
  private readonly lastActive = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 2_000,
  ) {}

  format(source: string, content: string): string {
    const now = this.clock.now();
    this.forgetStale(now);
    const conflict = [...this.lastActive.keys()].some((other) => other !== source);
    this.lastActive.set(source, now);
    return conflict ? `[${source}] ${content}` : content;
  }

  /** Sources active within the window, oldest activity first. */
  activeSources(): string[] {
    this.forgetStale(this.clock.now());
    return [...this.lastActive.entries()].sort((a, b) => a[1] - b[1]).map(([source]) => source);
  }

  private forgetStale(now: number): void {
    for (const [source, at] of this.lastActive) {
      if (now - at > this.windowMs) this.lastActive.delete(source);
    }
  }
}
