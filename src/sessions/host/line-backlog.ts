/** Finished lines kept for a controller that was away. */
export const MAX_LINES = 2_000;

/**
 * The finished lines of a session, numbered from 1 as the host reads them off its screen, the newest MAX_LINES
 * kept: a controller that was away asks for the ones after the last it read, and gets each once (older ones
 * are gone; where they start says so).
 */
export class LineBacklog {
  private readonly lines: string[] = [];
  private first = 1;

  /** Adds lines; returns the number of the first of them. */
  add(lines: string[]): number {
    const first = this.first + this.lines.length;
    this.lines.push(...lines);
    const over = this.lines.length - MAX_LINES;
    if (over > 0) {
      this.lines.splice(0, over);
      this.first += over;
    }
    return first;
  }

  /** The lines after number `after` still kept, and the number of the first of them. */
  after(after: number): { first: number; lines: string[] } {
    const first = Math.max(after + 1, this.first);
    return { first, lines: this.lines.slice(first - this.first) };
  }
}
