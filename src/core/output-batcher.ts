import type { Clock, TimerHandle } from './clock.js';

/**
 * Batches an agent's output for chat (seed 000): text accumulates and is flushed at most `flushMs` after it
 * first arrived (500 ms), at once when the batch grows past `threshold` characters (1500), and by close().
 *
 * Seed 000 runs a free ticker every 500 ms; here the timer starts with the first text after a flush, which keeps
 * the same bound on latency (≤ flushMs) and the same rhythm under steady output, and leaves no timer running
 * while the agent is quiet.
 */
export interface OutputBatcherOptions {
  clock: Clock;
  flushMs?: number;
  threshold?: number;
  onFlush: (text: string) => void;
}

export const DEFAULT_FLUSH_MS = 500;
export const DEFAULT_OUTPUT_THRESHOLD = 1_500;

export class OutputBatcher {
  private buffer = '';
  private timer: TimerHandle | undefined;
  private closed = false;
  private readonly clock: Clock;
  private readonly flushMs: number;
  private readonly threshold: number;
  private readonly onFlush: (text: string) => void;

  constructor(options: OutputBatcherOptions) {
    this.clock = options.clock;
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.threshold = options.threshold ?? DEFAULT_OUTPUT_THRESHOLD;
    this.onFlush = options.onFlush;
  }

  /** Adds output. After close(), text is delivered at once rather than lost. */
  push(text: string): void {
    if (text === '') return;
    this.buffer += text;
    if (this.closed || this.buffer.length > this.threshold) {
      this.flush();
      return;
    }
    this.timer ??= this.clock.after(this.flushMs, () => {
      this.timer = undefined;
      this.flush();
    });
  }

  /** Delivers what has accumulated now, if anything. */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    this.onFlush(text);
  }

  /** Flushes the rest and stops batching (end of output). */
  close(): void {
    this.closed = true;
    this.flush();
  }

  /** Characters waiting to be flushed. */
  get pending(): number {
    return this.buffer.length;
  }
}

export type Delivery = { kind: 'text'; text: string } | { kind: 'file'; fileName: string; data: Buffer };

/**
 * How a flushed batch goes to a chat (seed 000): as a message up to `threshold` characters, else as a Markdown
 * file named after the local time, `response-HHMMSS.md`.
 */
export function deliveryFor(text: string, threshold: number, now: number): Delivery {
  if (text.length <= threshold) return { kind: 'text', text };
  return { kind: 'file', fileName: responseFileName(now), data: Buffer.from(text, 'utf8') };
}

/** `response-HHMMSS.md` in local time. */
export function responseFileName(now: number): string {
  const d = new Date(now);
  const two = (n: number) => String(n).padStart(2, '0');
  return `response-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}.md`;
}
