/** Retry delays that double from `initialMs` up to `maxMs` (seed 004: 1 s doubling to 60 s), reset on success. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 1_000,
    private readonly maxMs = 60_000,
  ) {}

  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt++;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
  }

  get failures(): number {
    return this.attempt;
  }
}
