import { createRequire } from 'node:module';
import type * as XTermHeadless from '@xterm/headless';
import type * as XTermSerialize from '@xterm/addon-serialize';
import type { Terminal as XTerm } from '@xterm/headless';
import { nextCallOr, systemClock, type Clock, type TimerHandle } from '../../core/clock.js';
import { redactWrappedRows } from '../../core/redact.js';

let headless: typeof XTermHeadless | null = null;
/**
 * xterm.js, loaded on first use: a controller whose sessions run in session hosts reads their screens and
 * never loads it (12 ms off `run`'s start). The CommonJS build loads about 3x faster than the ESM one.
 */
function xterm(): typeof XTermHeadless {
  headless ??= createRequire(import.meta.url)('@xterm/headless') as typeof XTermHeadless;
  return headless;
}

/** The screen settles (the detector looks) once output paused this long: a prompt shows only once it stops. */
export const SCREEN_SETTLE_MS = 8;
/** The wait for the screen to settle again before a caller reads it once more (a frame still being drawn). */
export const RETRY_SETTLE_MS = 250;
/**
 * A pause this long is a quiet moment: what is pending is parsed then, in slices, while output stays paused,
 * so the settle finds little left to parse (a prompt after a burst is not held up by the burst's backlog).
 */
export const QUIET_PARSE_MS = 1;
/**
 * The first slice of a quiet moment is small, and each next one of the same moment four times larger, up to
 * the last size: a hiccup in a stream (the writer descheduled for a millisecond) costs a 4 KiB parse, a real
 * pause gets through the backlog in a few slices; output that resumes waits at most one slice (~1 ms).
 */
export const PARSE_SLICE_BYTES = [4 * 1024, 16 * 1024, 64 * 1024] as const;
/** Bytes kept unparsed during a burst; older ones are skipped (full-screen apps redraw, so the model heals). */
export const MAX_PENDING_BYTES = 256 * 1024;
/**
 * How far above and below the rows read a wrapped line is followed for redaction: a secret longer than
 * this is still hidden by the part of it inside the window. Without a bound, one long line in the
 * scrollback (a minified file, a log blob) made every read of the screen walk and redact all of it.
 */
const REDACT_CONTEXT_CHARS = 16 * 1024;
export const DEFAULT_SCROLLBACK = 1000;
/** Always part of a reset: show the cursor and reset colours; both are harmless when already so. */
const RESET_ALWAYS = '\x1b[?25h\x1b[0m';

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
  /** Bytes of output this screen shows (parsed, or skipped during a burst). */
  outputAt: number;
}

/** A screen as a session host hands it to its controller: the snapshot, and what resets the terminal after it. */
export interface ScreenState extends ScreenSnapshot {
  reset: string;
}

/**
 * What the terminal driver reads an agent's screen through: a model parsed here (ScreenModel), or the one its
 * session host keeps (sessions/host/remote-screen.ts), so each terminal's output is parsed once.
 */
export interface TerminalScreen {
  /** Output as it arrives (a screen read elsewhere ignores it). */
  feed(chunk: Buffer): void;
  /** Output arrived: the listener gets the output bytes so far (at least once after each settle). */
  onOutput(listener: (outputAt: number) => void): void;
  /** Called once each time the screen has caught up with paused output. */
  onSettled(listener: (screen: TerminalScreen) => void): void;
  /** Resolves when the screen next settles, or after `timeoutMs`. */
  nextSettle(timeoutMs: number): Promise<void>;
  resize(cols: number, rows: number): void;
  /** The screen shows all output read so far, once this resolves. */
  catchUp(): Promise<void>;
  /** What it shows now (as of the last catch-up or settle). */
  snapshot(): ScreenSnapshot;
  /** Escape sequences that turn off what the program left on (see ScreenModel.resetSequence). */
  resetSequence(): string;
  /** ANSI that draws the caught-up screen (and its scrollback) in a fresh terminal. */
  redraw(): Promise<string>;
  dispose(): void;
}

/**
 * What a person would see, on @xterm/headless. The relay never waits for it: feed() only queues bytes, and
 * parsing happens when output pauses (perf-facts: parsing every byte halves throughput). Text read from it
 * (snapshot, tail, finished lines) has its secrets redacted on logical lines, rows the terminal wrapped
 * joined again, so a token split across rows never reaches a prompt, a chat or the store; the raw bytes
 * (live terminals, recordings, serialize()) are the terminal itself.
 */
export class ScreenModel implements TerminalScreen {
  /** xterm.js's terminal, made at its first use (see warm()). */
  private made: { terminal: XTerm; writes: WritesAtOnce | null } | null = null;
  private readonly size: { cols: number; rows: number; scrollback: number };
  private readonly clock: Clock;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes fed so far, and how many of them the screen shows (parsed or skipped). */
  private fed = 0;
  private parsedAt = 0;
  private readonly outputListeners: Array<(outputAt: number) => void> = [];
  private skipped = 0;
  private lastFeedAt = 0;
  private timer: TimerHandle | null = null;
  private timerAt = 0;
  private parsing: Promise<void> | null = null;
  private title = '';
  private serializer: { serialize(options?: { scrollback?: number }): string } | null = null;
  /** The last line takeFinishedLines() gave. */
  private taken: { line: number; isDisposed: boolean; dispose(): void } | null = null;
  private readonly settleListeners: Array<(screen: ScreenModel) => void> = [];
  /** A parse in flight may end after dispose(): nobody is told about a disposed screen. */
  private disposed = false;
  private lastSnapshot: ScreenSnapshot | null = null;
  /** The last snapshot and the parse it was read after: reads between two parses cost nothing. */
  private cached: { snapshot: ScreenSnapshot; version: number } | null = null;
  private version = 0;
  /** A slice of the backlog is being parsed in a quiet moment. */
  private slicing = false;
  /** Slices parsed in this quiet moment (new output starts a new one). */
  private slicesThisQuiet = 0;

  constructor(options: { cols: number; rows: number; scrollback?: number; clock?: Clock }) {
    this.clock = options.clock ?? systemClock;
    const { cols, rows } = options;
    this.size = { cols, rows, scrollback: options.scrollback ?? DEFAULT_SCROLLBACK };
  }

  /**
   * Makes xterm.js's terminal now (loading xterm.js: ~70 ms the first time in a process) rather than at the
   * first parse: a session host does it once its first client is welcome, while that client gets ready.
   */
  warm(): void {
    void this.terminal;
  }

  private get terminal(): XTerm {
    return this.ownTerminal().terminal;
  }

  /** xterm's queue of writes, to parse a slice at once (see writesAtOnce); null: its write() and a timer. */
  private get writes(): WritesAtOnce | null {
    return this.ownTerminal().writes;
  }

  private ownTerminal(): { terminal: XTerm; writes: WritesAtOnce | null } {
    if (this.made) return this.made;
    // logLevel off: a burst's skipped bytes can cut an escape sequence, which xterm.js would warn of on the
    // console of whatever process hosts the model (it heals at the next redraw: nothing to tell anyone).
    const terminal = new (xterm().Terminal)({ ...this.size, allowProposedApi: true, logLevel: 'off' });
    terminal.onTitleChange((title) => {
      this.title = title;
    });
    this.made = { terminal, writes: writesAtOnce(terminal) };
    return this.made;
  }

  /** Slices of the backlog are parsed as they are taken, not on a timer of xterm's own (see writesAtOnce). */
  get parsesAtOnce(): boolean {
    return this.writes !== null;
  }

  /** Queues output for parsing; cheap enough for the hot path. */
  feed(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.fed += chunk.length;
    for (const listener of this.outputListeners) listener(this.fed);
    if (this.pendingBytes > MAX_PENDING_BYTES) this.skipOldest();
    this.lastFeedAt = this.clock.now();
    this.slicesThisQuiet = 0;
    // A settle check due later would leave this output unparsed through the quiet moment after it.
    if (this.timer && this.timerAt > this.lastFeedAt + QUIET_PARSE_MS) {
      this.timer.cancel();
      this.timer = null;
    }
    this.checkIn(QUIET_PARSE_MS);
  }

  /**
   * Draws a screen another process parsed (a session host's welcome), standing for `outputAt` bytes of
   * output: what is fed after it counts on from there.
   */
  show(ansi: string, outputAt: number): void {
    const drawn = Buffer.from(ansi, 'utf8');
    this.fed = outputAt - drawn.length;
    if (drawn.length > 0) this.feed(drawn);
  }

  onOutput(listener: (outputAt: number) => void): void {
    this.outputListeners.push(listener);
  }

  /** Called once each time the screen has caught up with paused output. */
  onSettled(listener: (screen: ScreenModel) => void): void {
    this.settleListeners.push(listener);
  }

  /** Resolves when the screen next settles, or after `timeoutMs` (the program may print nothing at all). */
  nextSettle(timeoutMs: number): Promise<void> {
    return nextCallOr(this.clock, this.settleListeners, timeoutMs);
  }

  resize(cols: number, rows: number): void {
    if (this.made) this.terminal.resize(cols, rows);
    else Object.assign(this.size, { cols, rows });
    this.version++;
  }

  /** Hands up to `limit` pending bytes (all when absent) to xterm; the promise ends when they are parsed. */
  private parse(limit = Infinity): Promise<void> {
    const chunks = this.takePending(limit);
    const upTo = this.fed - this.pendingBytes;
    if (this.writes) {
      // Chunk by chunk, never joined: xterm's UTF-8 decoder carries a character split between two over.
      for (const chunk of chunks) this.writes.writeSync(chunk);
      this.parsedUpTo(upTo);
      return Promise.resolve();
    }
    const last = chunks.pop() ?? Buffer.alloc(0);
    for (const chunk of chunks) this.terminal.write(chunk);
    this.parsing = new Promise<void>((resolve) => this.terminal.write(last, resolve)).finally(() => {
      this.parsedUpTo(upTo);
      this.parsing = null;
    });
    return this.parsing;
  }

  /** The screen shows the output up to byte `upTo` now: snapshots read after this are new. */
  private parsedUpTo(upTo: number): void {
    this.parsedAt = Math.max(this.parsedAt, upTo);
    this.version++;
  }

  /**
   * Up to `limit` of the oldest pending bytes, as the chunks they arrived in (only the last one cut): a slice of
   * the backlog costs no copy of the rest of it (joining all of it for every slice did, each quiet moment).
   */
  private takePending(limit: number): Buffer[] {
    if (this.pendingBytes <= limit) {
      const all = this.pending;
      this.pending = [];
      this.pendingBytes = 0;
      return all;
    }
    const taken: Buffer[] = [];
    let size = 0;
    while (size < limit) {
      const head = this.pending[0]!;
      const room = limit - size;
      if (head.length <= room) {
        taken.push(head);
        this.pending.shift();
        size += head.length;
      } else {
        taken.push(head.subarray(0, room));
        this.pending[0] = head.subarray(room);
        size += room;
      }
    }
    this.pendingBytes -= size;
    return taken;
  }

  /** Parses everything queued so far. */
  async catchUp(): Promise<void> {
    while (this.pending.length > 0 || this.parsing) {
      if (this.parsing) {
        await this.parsing;
        continue;
      }
      void this.parse();
    }
  }

  snapshot(): ScreenSnapshot {
    // After dispose() the screen is what it was last (late readers must not touch a disposed terminal).
    const kept = this.lastSnapshot ?? (this.cached?.version === this.version ? this.cached.snapshot : null);
    if (kept) return { ...kept, lines: [...kept.lines], skippedBytes: this.skipped };
    const snapshot = this.readSnapshot();
    this.cached = { snapshot, version: this.version };
    return { ...snapshot, lines: [...snapshot.lines] };
  }

  private readSnapshot(): ScreenSnapshot {
    if (!this.made) return this.blankSnapshot();
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
      outputAt: this.parsedAt,
    };
  }

  /** What a terminal nothing was parsed into shows: blank rows, the cursor home, no modes. */
  private blankSnapshot(): ScreenSnapshot {
    const { cols, rows } = this.size;
    const lines = Array.from({ length: rows }, () => '');
    return {
      text: lines.join('\n'),
      lines,
      cursor: { x: 0, y: 0 },
      title: this.title,
      cols,
      rows,
      skippedBytes: this.skipped,
      bracketedPaste: false,
      alternateScreen: false,
      outputAt: this.parsedAt,
    };
  }

  /** The snapshot with what resets the terminal after it: what a session host hands its controller. */
  state(): ScreenState {
    return { ...this.snapshot(), reset: this.resetSequence() };
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

  async redraw(): Promise<string> {
    await this.catchUp();
    return this.serialize();
  }

  /** ANSI that redraws this screen (and its scrollback) in a fresh terminal: a browser viewer reconnecting. */
  serialize(): string {
    if (!this.made) return '';
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
    const reach = Math.ceil(REDACT_CONTEXT_CHARS / this.terminal.cols);
    let from = start;
    while (from > 0 && from > start - reach && buffer.getLine(from)?.isWrapped) from--;
    let to = end;
    while (to < buffer.length && to < end + reach && buffer.getLine(to)?.isWrapped) to++;
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
    if (!this.made) return RESET_ALWAYS;
    const modes = this.terminal.modes;
    let reset = '';
    if (this.terminal.buffer.active.type === 'alternate') reset += '\x1b[?1049l';
    if (modes.mouseTrackingMode !== 'none') reset += '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l';
    if (modes.bracketedPasteMode) reset += '\x1b[?2004l';
    if (modes.sendFocusMode) reset += '\x1b[?1004l';
    if (modes.applicationCursorKeysMode) reset += '\x1b[?1l';
    if (modes.applicationKeypadMode) reset += '\x1b>';
    return reset + RESET_ALWAYS;
  }

  dispose(): void {
    if (this.disposed) return;
    this.lastSnapshot = this.snapshot();
    this.disposed = true;
    this.timer?.cancel();
    this.timer = null;
    this.made?.terminal.dispose();
  }

  private skipOldest(): void {
    while (this.pendingBytes > MAX_PENDING_BYTES && this.pending.length > 1) {
      const dropped = this.pending.shift();
      if (!dropped) break;
      this.pendingBytes -= dropped.length;
      this.skipped += dropped.length;
    }
  }

  /**
   * Runs while output is paused: after QUIET_PARSE_MS the backlog is parsed a slice at a time, each slice
   * only while output stays paused (a single pause in a stream never makes the model parse the rest of it:
   * the relay must not wait for it); after SCREEN_SETTLE_MS of quiet with nothing left, the screen settles.
   */
  private onQuietCheck(): void {
    this.timer = null;
    if (this.slicing || this.disposed) return; // the slice in flight looks again when it is done
    const quietFor = this.clock.now() - this.lastFeedAt;
    if (quietFor < QUIET_PARSE_MS) return this.checkIn(QUIET_PARSE_MS - quietFor);
    if (this.pendingBytes > 0 || this.parsing) return void this.parseSlice();
    if (quietFor < SCREEN_SETTLE_MS) return this.checkIn(SCREEN_SETTLE_MS - quietFor);
    for (const listener of [...this.settleListeners]) listener(this);
  }

  private checkIn(ms: number): void {
    if (this.timer) return;
    this.timerAt = this.clock.now() + ms;
    this.timer = this.clock.after(ms, () => this.onQuietCheck());
  }

  private async parseSlice(): Promise<void> {
    this.slicing = true;
    try {
      if (this.parsing) await this.parsing;
      const size = PARSE_SLICE_BYTES[Math.min(this.slicesThisQuiet++, PARSE_SLICE_BYTES.length - 1)]!;
      if (this.pendingBytes > 0) await this.parse(size);
    } finally {
      this.slicing = false;
    }
    // Look again on the next turn, once output that arrived meanwhile has been read (and re-armed the check).
    setImmediate(() => {
      if (!this.timer) this.onQuietCheck();
    });
  }
}

interface WritesAtOnce {
  writeSync(data: Uint8Array): void;
}

/**
 * xterm's write() parses on a timer of its own (setTimeout: a millisecond or more in Node) whenever its queue
 * was empty, so every slice of a quiet moment waited that long before it was parsed (six slices: ~6 ms added
 * to a prompt after a burst). Its write queue parses at once on request; that is exact here, where no parser
 * handler is asynchronous (none is registered). Internal to xterm 6: `parsesAtOnce` says whether it is there
 * (a test checks it), and without it parsing goes through write() as before.
 */
function writesAtOnce(terminal: XTerm): WritesAtOnce | null {
  const queue = (terminal as unknown as { _core?: { _writeBuffer?: Partial<WritesAtOnce> } })._core
    ?._writeBuffer;
  return typeof queue?.writeSync === 'function' ? (queue as WritesAtOnce) : null;
}

type BufferLine = ReturnType<XTerm['buffer']['active']['getLine']>;

/** A row's text; a row the next one continues keeps its trailing spaces, which are part of the line. */
function rowText(line: BufferLine, next: BufferLine): string {
  return line?.translateToString(!next?.isWrapped) ?? '';
}
