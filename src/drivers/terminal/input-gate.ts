/**
 * Keeps a person's keystrokes from interleaving with injected bytes (seed 004 §4.4): while an injection holds
 * the gate, user input is held back and delivered, in order, when the gate opens again.
 */
export class InputGate {
  private held: Array<string | Buffer> = [];
  private holders = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly write: (data: string | Buffer) => Promise<void> | void) {}

  get paused(): boolean {
    return this.holders > 0;
  }

  /** The user's own input: passes straight through unless an injection holds the gate. */
  user(data: string | Buffer): void {
    if (this.paused) this.held.push(data);
    else this.pass(data);
  }

  /** Runs `inject` with user input paused; one injection at a time, in call order. */
  exclusive<T>(inject: () => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      this.holders++;
      try {
        return await inject();
      } finally {
        this.holders--;
        if (!this.paused) this.flush();
      }
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  pause(): void {
    this.holders++;
  }

  resume(): void {
    if (this.holders === 0) return;
    this.holders--;
    if (!this.paused) this.flush();
  }

  private flush(): void {
    const held = this.held;
    this.held = [];
    for (const data of held) this.pass(data);
  }

  /** Keys typed as the agent exits go nowhere: a write it can no longer take is no failure of ours. */
  private pass(data: string | Buffer): void {
    try {
      void this.write(data)?.catch(() => undefined);
    } catch {
      // the same, said at once
    }
  }
}
