import { createRequire } from 'node:module';
import type * as XTermHeadless from '@xterm/headless';
import type * as XTermSerialize from '@xterm/addon-serialize';
import type { Terminal as XTerm } from '@xterm/headless';
import { systemClock, type Clock, type TimerHandle } from '../../core/clock.js';
import { redactWrappedRows } from '../../core/redact.js';

// The CommonJS build loads about 3x faster than the ESM one (measured: 12 ms against 40 ms).
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof XTermHeadless;

/** Output is parsed once it pauses this long: a prompt is on screen only once output stops. */
export const SCREEN_SETTLE_MS = 8;
/** Bytes kept unparsed during a burst; older ones are skipped (full-screen apps redraw, so the model heals). */
export const MAX_PENDING_BYTES = 256 * 1024;
export const DEFAULT_SCROLLBACK = 1000;

export interface ScreenSnapshot {
  /** The visible rows, right-trimmed, secrets redacted, joined with newlines. */
  text: string;
  lines: string[];
  cursor: { x: number; y: number };
  title: string;
  cols: number;
  rows: number;
  /** Bytes skipped during bursts since the start: the model may have been briefly wrong. */
  skippedBytes: number;
  bracketedPaste: boolean;
  alternateScreen: boolean;
}

/**
 * What a person would see, on @xterm/headless. The relay never waits for it: feed() only queues bytes, and
 * parsing happens when output pauses (perf-facts: parsing every byte halves throughput). Text read from it
 * (snapshot, tail, finished lines) has its secrets redacted on logical lines, rows the terminal wrapped
 * joined again, so a token split across rows never reaches a prompt, a chat or the store; the raw bytes
 * (live terminals, recordings, serialize()) are the terminal itself.
 */
export class ScreenModel {
  private readonly terminal: XTerm;
  private readonly clock: Clock;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipped = 0;
  private lastFeedAt = 0;
  private timer: TimerHandle | null = null;
  private parsing: Promise<void> | null = null;
  private title = '';
  private serializer: { serialize(options?: { scrollback?: number }): string } | null = null;
  /** The last line takeFinishedLines() gave. */
  private taken: { line: number; isDisposed: boolean; dispose(): void } | null = null;
  private readonly settleListeners: Array<(screen: ScreenModel) => void> = [];
  /** A parse in flight may end after dispose(): nobody is told about a disposed screen. */
  private disposed = false;
  private lastSnapshot: ScreenSnapshot | null = null;

  constructor(options: { cols: number; rows: number; scrollback?: number; clock?: Clock }) {
    this.clock = options.clock ?? systemClock;
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? DEFAULT_SCROLLBACK,
      allowProposedApi: true,
    });
    this.terminal.onTitleChange((title) => {
      this.title = title;
    });
  }

  /** Queues output for parsing; cheap enough for the hot path. */
  feed(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes > MAX_PENDING_BYTES) this.skipOldest();
    this.lastFeedAt = this.clock.now();
    this.timer ??= this.clock.after(SCREEN_SETTLE_MS, () => this.onQuietCheck());
  }

  /** Called once each time the screen has caught up with paused output. */
  onSettled(listener: (screen: ScreenModel) => void): void {
    this.settleListeners.push(listener);
  }

  /** Resolves when the screen next settles, or after `timeoutMs` (the program may print nothing at all). */
  nextSettle(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        const at = this.settleListeners.indexOf(done);
        if (at >= 0) this.settleListeners.splice(at, 1);
        resolve();
      };
      const timer = this.clock.after(timeoutMs, done);
      this.settleListeners.push(done);
    });
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
  }

  private async parsePending(): Promise<void> {
    if (this.parsing) await this.parsing;
    if (this.pending.length === 0) return;
    const data = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.parsing = new Promise<void>((resolve) => this.terminal.write(data, resolve)).finally(() => {
      this.parsing = null;
    });
    await this.parsing;
  }

  /** Parses everything queued so far. */
  async catchUp(): Promise<void> {
    while (this.pending.length > 0 || this.parsing) {
      if (this.parsing) {
        await this.parsing;
        continue;
      }
      const data = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      this.parsing = new Promise<void>((resolve) => this.terminal.write(data, resolve)).finally(() => {
        this.parsing = null;
      });
    }
  }

  snapshot(): ScreenSnapshot {
    // After dispose() the screen is what it was last (late readers must not touch a disposed terminal).
    if (this.lastSnapshot) return { ...this.lastSnapshot, lines: [...this.lastSnapshot.lines] };
    const buffer = this.terminal.buffer.active;
    const lines = this.readRows(buffer.viewportY, buffer.viewportY + this.terminal.rows);
    return {
      text: lines.join('\n'),
      lines,
      cursor: { x: buffer.cursorX, y: buffer.cursorY },
      title: this.title,
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      skippedBytes: this.skipped,
      bracketedPaste: this.terminal.modes.bracketedPasteMode,
      alternateScreen: buffer.type === 'alternate',
    };
  }

  /** The last `count` rendered lines including scrollback: the rolling buffer. */
  tail(count: number): string[] {
    const buffer = this.terminal.buffer.active;
    const end = buffer.baseY + this.terminal.rows;
    const start = Math.max(0, end - count);
    const lines = this.readRows(start, end);
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  /** ANSI that redraws this screen (and its scrollback) in a fresh terminal: a browser viewer reconnecting. */
  serialize(): string {
    if (!this.serializer) {
      const { SerializeAddon } = createRequire(import.meta.url)(
        '@xterm/addon-serialize',
      ) as typeof XTermSerialize;
      this.serializer = new SerializeAddon();
      this.terminal.loadAddon(this.serializer as never);
    }
    return this.serializer.serialize({ scrollback: 200 });
  }

  /**
   * The lines the program finished (the cursor moved past them) since the last call: what it wrote, for chat.
   * Anchored on an xterm marker, which follows its line as the scrollback trims (line numbers stop growing
   * once the buffer is full). Empty on the alternate screen (a full-screen program).
   */
  takeFinishedLines(): string[] {
    const buffer = this.terminal.buffer.active;
    if (buffer.type === 'alternate') return [];
    // The line the cursor is on is not finished, even where it wrapped onto several rows.
    let cursorLine = buffer.baseY + buffer.cursorY;
    while (cursorLine > 0 && buffer.getLine(cursorLine)?.isWrapped) cursorLine--;
    const end = cursorLine - 1;
    // A marker that was trimmed off the top means everything still in the buffer is new.
    let start = this.taken && !this.taken.isDisposed ? this.taken.line + 1 : 0;
    // The rest of a line whose start scrolled off the buffer is dropped: a token's tail is never seen alone.
    while (start <= end && buffer.getLine(start)?.isWrapped) start++;
    if (end < start) return [];
    const lines: string[] = [];
    for (let i = start; i <= end; i++) {
      const line = buffer.getLine(i);
      const text = rowText(line, buffer.getLine(i + 1));
      // A long line the terminal wrapped is one line of output: join its rows again.
      if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    this.taken?.dispose();
    this.taken = this.terminal.registerMarker(end - (buffer.baseY + buffer.cursorY)) ?? null;
    return lines.map((line) => line.trimEnd());
  }

  /**
   * Rows `start` (inclusive) to `end` (exclusive), right-trimmed, secrets redacted on whole logical lines:
   * the rows a wrapped line continues from above or onto below are read too, so a token is seen whole.
   */
  private readRows(start: number, end: number): string[] {
    const buffer = this.terminal.buffer.active;
    let from = start;
    while (from > 0 && buffer.getLine(from)?.isWrapped) from--;
    let to = end;
    while (to < buffer.length && buffer.getLine(to)?.isWrapped) to++;
    const rows: string[] = [];
    const continues: boolean[] = [];
    for (let i = from; i < to; i++) {
      const line = buffer.getLine(i);
      rows.push(rowText(line, buffer.getLine(i + 1)));
      continues.push(i > from && Boolean(line?.isWrapped));
    }
    return redactWrappedRows(rows, continues)
      .slice(start - from, end - from)
      .map((row) => row.trimEnd());
  }

  /**
   * Escape sequences that turn off what the application left on (from the modes it set), to hand a clean
   * terminal back to the user after it exits or crashes.
   */
  resetSequence(): string {
    const modes = this.terminal.modes;
    let reset = '';
    if (this.terminal.buffer.active.type === 'alternate') reset += '\x1b[?1049l';
    if (modes.mouseTrackingMode !== 'none') reset += '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l';
    if (modes.bracketedPasteMode) reset += '\x1b[?2004l';
    if (modes.sendFocusMode) reset += '\x1b[?1004l';
    if (modes.applicationCursorKeysMode) reset += '\x1b[?1l';
    if (modes.applicationKeypadMode) reset += '\x1b>';
    // Always: show the cursor and reset colours; both are harmless when already so.
    return reset + '\x1b[?25h\x1b[0m';
  }

  dispose(): void {
    if (this.disposed) return;
    this.lastSnapshot = this.snapshot();
    this.disposed = true;
    this.timer?.cancel();
    this.timer = null;
    this.terminal.dispose();
  }

  private skipOldest(): void {
    while (this.pendingBytes > MAX_PENDING_BYTES && this.pending.length > 1) {
      const dropped = this.pending.shift();
      if (!dropped) break;
      this.pendingBytes -= dropped.length;
      this.skipped += dropped.length;
    }
  }

  private onQuietCheck(): void {
    this.timer = null;
    const quietFor = this.clock.now() - this.lastFeedAt;
    if (quietFor < SCREEN_SETTLE_MS) {
      this.timer = this.clock.after(SCREEN_SETTLE_MS - quietFor, () => this.onQuietCheck());
      return;
    }
    // Parse what was pending at the pause, once: output that arrives meanwhile waits for the next pause, so a
    // single pause in a stream never makes the model parse the rest of it (the relay must not wait for it).
    void this.parsePending().then(() => {
      if (this.pending.length === 0 && !this.timer && !this.disposed)
        for (const listener of [...this.settleListeners]) listener(this);
    });
  }
}

type BufferLine = ReturnType<XTerm['buffer']['active']['getLine']>;

/** A row's text; a row the next one continues keeps its trailing spaces, which are part of the line. */
function rowText(line: BufferLine, next: BufferLine): string {
  return line?.translateToString(!next?.isWrapped) ?? '';
}
