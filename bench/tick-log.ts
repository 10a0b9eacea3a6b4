/**
 * Tick lines of the daemon-sessions agent (bench/daemon-agent.sh), "<name> tick <n> at=<seconds>": how long
 * each took from being printed to being received, and whether any was lost or delivered twice.
 */
/** Not anchored: the echo of a message typed while the agent prints can share a line with a tick. */
const TICK = /tick (\d+) at=(\d+\.\d+)/g;

/** Tick lines per source (one agent each), by the time they were printed; delays while `recording`. */
export class TickLog {
  recording = false;
  readonly delays: number[] = [];
  readonly oldest: number[] = [];
  readonly seen = new Map<string, number[]>();
  private readonly tails = new Map<string, string>();

  feed(source: string, text: string, at: number): void {
    const all = (this.tails.get(source) ?? '') + text;
    const cut = all.lastIndexOf('\n') + 1;
    this.tails.set(source, all.slice(cut).slice(-200));
    let worst = -Infinity;
    for (const m of all.slice(0, cut).matchAll(TICK)) {
      const list = this.seen.get(source) ?? [];
      this.seen.set(source, list);
      list.push(Number(m[1]));
      if (!this.recording) continue;
      const delay = at - Number(m[2]) * 1000;
      this.delays.push(delay);
      worst = Math.max(worst, delay);
    }
    if (worst > -Infinity) this.oldest.push(worst);
  }

  /** Lines lost (a number missing below the highest) or delivered twice, per agent. */
  gaps(): string[] {
    const found: string[] = [];
    for (const [name, list] of this.seen) {
      const unique = new Set(list);
      const missing = Math.max(...list) - unique.size;
      const twice = list.length - unique.size;
      if (missing > 0 || twice > 0)
        found.push(`${name}: ${missing} tick line(s) never reached the channel, ${twice} arrived twice`);
    }
    return found;
  }
}
