import { createWriteStream, type WriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';

/** Output is grouped into one event per this many ms (or per MAX_BATCH_BYTES): fewer, larger JSON writes. */
export const RECORD_BATCH_MS = 20;
const MAX_BATCH_BYTES = 256 * 1024;

export interface AsciicastHeader {
  width: number;
  height: number;
  /** Unix seconds. */
  timestamp: number;
  title?: string;
  command?: string;
  env?: Record<string, string>;
}

/**
 * Writes a terminal session as asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header
 * line, then `[seconds, "o" | "r", data]` lines. Output bytes are decoded as a stream, so a character split
 * across two reads is never mangled. The file is private (0600): terminals show secrets.
 */
export class AsciicastWriter {
  private readonly stream: WriteStream;
  private readonly decoder = new StringDecoder('utf8');
  private readonly clock: Clock;
  private readonly startedAt: number;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private batchAt = 0;
  private timer: TimerHandle | null = null;
  private closed = false;

  /**
   * `onStopped` hears, once, that the recording could not be written (a full or read-only disk): it stops
   * there, and the session goes on; whoever runs it says so rather than letting the recording end silently.
   */
  constructor(
    readonly file: string,
    header: AsciicastHeader,
    clock: Clock = systemClock,
    onStopped?: (error: Error) => void,
  ) {
    this.clock = clock;
    this.startedAt = clock.now();
    this.stream = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    this.stream.on('error', (error) => {
      const wasRecording = !this.closed;
      this.closed = true;
      this.timer?.cancel();
      this.batch = [];
      if (wasRecording) onStopped?.(error);
    });
    this.stream.write(JSON.stringify({ version: 2, ...header }) + '\n');
  }

  output(chunk: Uint8Array): void {
    if (this.closed) return;
    if (this.batch.length === 0) this.batchAt = this.clock.now();
    this.batch.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.batchBytes += chunk.byteLength;
    if (this.batchBytes >= MAX_BATCH_BYTES) this.flush();
    else this.timer ??= this.clock.after(RECORD_BATCH_MS, () => this.flush());
  }

  resize(cols: number, rows: number): void {
    if (this.closed) return;
    this.flush();
    this.event(this.clock.now(), 'r', `${cols}x${rows}`);
  }

  /** Writes what is buffered and closes the file; resolves once it is on disk. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    const rest = this.decoder.end();
    if (rest) this.event(this.clock.now(), 'o', rest);
    this.closed = true;
    return new Promise((resolve) => this.stream.end(resolve));
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.batch.length === 0) return;
    const text = this.decoder.write(this.batch.length === 1 ? this.batch[0]! : Buffer.concat(this.batch));
    this.batch = [];
    this.batchBytes = 0;
    if (text) this.event(this.batchAt, 'o', text);
  }

  private event(at: number, code: 'o' | 'r', data: string): void {
    const seconds = Math.max(0, (at - this.startedAt) / 1000);
    this.stream.write(`[${seconds.toFixed(6)}, "${code}", ${JSON.stringify(data)}]\n`);
  }
}
