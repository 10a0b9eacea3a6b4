import { fstatSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';

type Input = NodeJS.ReadStream & Partial<Pick<ReadStream, 'setRawMode' | 'isRaw'>>;
type Output = NodeJS.WriteStream & Partial<Pick<WriteStream, 'columns' | 'rows'>>;

/**
 * The user's own terminal while an agent runs inside it: raw mode so every key reaches the agent, its size
 * passed through, and everything put back on every exit path.
 */
export class HostTerminal {
  private raw = false;
  private restored = false;

  constructor(
    readonly input: Input = process.stdin,
    readonly output: Output = process.stdout,
    private readonly fallbackSize = { cols: 80, rows: 24 },
  ) {}

  get interactive(): boolean {
    return Boolean(this.input.isTTY && this.input.setRawMode);
  }

  /**
   * Input that ends after what it held (a pipe, a file, a socket): its end is the agent's end-of-file. Not
   * /dev/null or another device: started with no input (`< /dev/null`, nohup, a service), the agent's input is
   * the chats and the web, and it must not read an end the user never typed.
   */
  get inputEnds(): boolean {
    const fd = (this.input as { fd?: unknown }).fd;
    if (typeof fd !== 'number') return true;
    try {
      const stat = fstatSync(fd);
      return stat.isFIFO() || stat.isFile() || stat.isSocket();
    } catch {
      return false;
    }
  }

  size(): { cols: number; rows: number } {
    const cols = this.output.isTTY ? this.output.columns : undefined;
    const rows = this.output.isTTY ? this.output.rows : undefined;
    return { cols: cols || this.fallbackSize.cols, rows: rows || this.fallbackSize.rows };
  }

  enterRawMode(): void {
    if (!this.interactive || this.raw) return;
    this.input.setRawMode?.(true);
    this.raw = true;
  }

  /** Calls back with the new size whenever the user's terminal is resized (SIGWINCH). */
  onResize(listener: (size: { cols: number; rows: number }) => void): () => void {
    if (!this.output.isTTY) return () => {};
    const handler = () => listener(this.size());
    this.output.on('resize', handler);
    return () => this.output.off('resize', handler);
  }

  /**
   * The terminal is gone (SIGHUP: its window closed): nothing more is read from or written to it, so a
   * process that goes on a moment (stopping its agent) never spins on a hung-up device.
   */
  hangUp(): void {
    this.restored = true;
    this.raw = false;
    this.input.destroy();
    this.output.destroy();
  }

  /**
   * Leaves raw mode and turns off modes the agent left on (mouse, bracketed paste, hidden cursor, the
   * alternate screen), so a crashed agent never leaves the terminal unusable. Safe to call more than once.
   */
  restore(resetSequence = ''): void {
    if (this.restored) return;
    this.restored = true;
    if (resetSequence && this.output.isTTY) {
      try {
        this.output.write(resetSequence);
      } catch {
        // output closed: nothing to reset
      }
    }
    if (this.raw) {
      try {
        this.input.setRawMode?.(false);
      } catch {
        // stdin already closed
      }
      this.raw = false;
    }
    this.input.pause();
  }
}
