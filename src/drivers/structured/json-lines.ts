import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** A line longer than this is not a protocol message we can use: dropped and reported, never buffered on. */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

export interface JsonLinesHandlers {
  /** One JSON object per line (arrays and scalars are not messages). */
  message(value: Record<string, unknown>): void;
  /** A line that is not a JSON object: a program's stray print, a too long line. Never fatal. */
  junk?(line: string, reason: string): void;
  end?(): void;
}

/**
 * Newline-delimited JSON over a pair of pipes (the framing Claude's stream-json and Codex's app-server use),
 * apart from what the messages mean.
 */
export class JsonLines {
  private closed = false;

  constructor(
    input: Readable,
    private readonly output: Writable,
    handlers: JsonLinesHandlers,
  ) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      if (line.length > MAX_LINE_CHARS) return handlers.junk?.(line.slice(0, 200), 'line too long');
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return handlers.junk?.(line, 'not JSON');
      }
      if (value && typeof value === 'object' && !Array.isArray(value))
        handlers.message(value as Record<string, unknown>);
      else handlers.junk?.(line, 'not a JSON object');
    });
    lines.on('close', () => {
      this.closed = true;
      handlers.end?.();
    });
  }

  /** Writes one message as one line; false once the other side is gone. */
  send(message: object): boolean {
    if (this.closed || this.output.destroyed || !this.output.writable) return false;
    this.output.write(JSON.stringify(message) + '\n');
    return true;
  }
}
