import type { Clock } from '../../core/clock.js';
import type { ExitInfo } from '../../core/events.js';
import { InputGate } from './input-gate.js';
import { PtyProcess, type PtySpawnOptions } from './pty-process.js';

export interface CellSize {
  cols: number;
  rows: number;
}

/** Keys agent-bridge types on someone's behalf (an answer, a chat message, a start-up answer). */
export interface InjectRequest {
  /** Written in order, each as its own write: TUIs mishandle keys that arrive in one write (agent-facts). */
  parts: string[];
  /** Pause between two parts. */
  gapMs: number;
  /** Before the last part, wait (at most 1 s) for the echo of the others to settle: a TUI turning a paste into input. */
  settleBeforeLast?: boolean;
  /**
   * Each part once the program has redrawn for the one before (its echo, then quiet; bounded), as well as the
   * gap: a TUI that reads several keys at once mishandles them (Claude Code acts on an Enter read with an arrow
   * before the arrow; Gemini CLI drops words typed while its dialog closes), and a busy machine delays the
   * reading, not the writing.
   */
  awaitRedraw?: boolean;
  /**
   * Typed only if the program wrote nothing since this many output bytes: the screen the caller checked is
   * still the screen now. Otherwise nothing is typed and the caller looks again.
   */
  ifOutputAt?: number;
  /** Typed at most once: the same id again types nothing and says it was typed (a caller that crashed mid-way). */
  once?: string;
}

export type InjectResult = { typed: true } | { typed: false; outputAt: number };

/**
 * The agent's output written straight to this process's own terminal by whoever holds the PTY (a session
 * host this process started with its terminal), instead of arriving here as data.
 */
export interface TerminalOutput {
  /** The terminal is ready for the agent: the output held for it is written, the rest as it comes. */
  start(): void;
  /** The terminal is let go (detached): resolves once everything before is written and nothing more will be. */
  stop(): Promise<void>;
}

/**
 * The terminal an agent runs in, as the terminal driver uses it: its output, a person's keys (held back while
 * agent-bridge types), keys typed on someone's behalf, its size and its end. The PTY may be in this process
 * (LocalPty) or in a session host of its own (sessions/host/remote-port.ts), reached over a socket.
 */
export interface TerminalPort {
  readonly pid: number;
  /** The terminal device the agent sees ('' where unknown). */
  readonly ttyPath: string;
  readonly size: CellSize;
  readonly running: boolean;
  readonly exited: Promise<ExitInfo>;
  /** Set when the output goes straight to this process's terminal; `onData` then hears none of it. */
  readonly terminalOutput?: TerminalOutput | null;
  onData(listener: (chunk: Buffer) => void): void;
  onExit(listener: (exit: ExitInfo) => void): void;
  /** The terminal took a new size (asked here, or by another client of its host). */
  onResize(listener: (size: CellSize) => void): void;
  /** A person's keys: straight through, unless an injection holds them back until it is done. */
  userInput(data: string | Buffer): void;
  /** Types on someone's behalf, one injection at a time, with the person's keys held back meanwhile. */
  inject(request: InjectRequest): Promise<InjectResult>;
  /** Whether an injection with this `once` id was typed. */
  injected(id: string): Promise<boolean>;
  resize(cols: number, rows: number): void;
  /** Stops reading output (a slow consumer); resume() continues. */
  pause(): void;
  resume(): void;
  /** A signal to the terminal's foreground process group (what Ctrl-C would reach). */
  interrupt(signal?: NodeJS.Signals): void;
  /** Ends the agent and everything it started. */
  stop(): Promise<ExitInfo>;
}

/**
 * How long an injection waits for a paste's echo to settle before its last part (the Enter): a busy machine
 * takes seconds to redraw a TUI, and an Enter read with the paste is a new line in it, not a submit.
 */
export const PASTE_SETTLE_MAX_MS = 3_000;
/**
 * The longest wait for a program to redraw after one key of an answer before the next key is typed. A key
 * that draws nothing (a password's) costs all of it; one typed sooner can be read with the key before it: on a
 * busy machine Claude Code took over 400 ms to draw its review tab, read the Tab and the `1` after it at once,
 * and the `1` ticked a box instead of submitting.
 */
export const KEY_ECHO_MAX_MS = 1_000;
/** After a key, quiet this long means the redraw is over (a dialog closing, the input box coming back)... */
export const KEY_QUIET_MS = 100;
/** ...and this is the longest wait for it (a spinner never stops). */
export const KEY_SETTLE_MAX_MS = 800;
/** Injections remembered by id (`once`): enough for every prompt a session can have open. */
const REMEMBERED_INJECTIONS = 256;

/**
 * A PTY in this process as a TerminalPort: the agent's terminal for an in-process session, and what a session
 * host holds. `settle` waits for the screen model to settle (the owner of the screen gives it).
 */
export class LocalPty implements TerminalPort {
  private readonly gate: InputGate;
  private bytes = 0;
  private lastOutputAt = 0;
  private readonly typedOnce: string[] = [];
  private readonly resizeListeners: Array<(size: CellSize) => void> = [];
  private settle: (timeoutMs: number) => Promise<void> = () => Promise.resolve();

  private constructor(
    readonly pty: PtyProcess,
    private readonly clock: Clock,
  ) {
    this.gate = new InputGate((data) => this.pty.write(data));
    pty.onData((chunk) => {
      this.bytes += chunk.length;
      this.lastOutputAt = this.clock.now();
    });
  }

  static async spawn(options: PtySpawnOptions & { clock: Clock }): Promise<LocalPty> {
    return new LocalPty(await PtyProcess.spawn(options), options.clock);
  }

  /** How an injection waits for the screen to settle (see InjectRequest.settleBeforeLast). */
  settleWith(settle: (timeoutMs: number) => Promise<void>): void {
    this.settle = settle;
  }

  get pid(): number {
    return this.pty.pid;
  }

  get ttyPath(): string {
    return this.pty.ttyPath;
  }

  get size(): CellSize {
    return this.pty.size;
  }

  get running(): boolean {
    return this.pty.running;
  }

  get exited(): Promise<ExitInfo> {
    return this.pty.exited;
  }

  /** Output bytes read so far (the count `ifOutputAt` compares with). */
  get outputBytes(): number {
    return this.bytes;
  }

  /** Keys are held back right now (an injection runs). */
  get holding(): boolean {
    return this.gate.paused;
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.pty.onData(listener);
  }

  onExit(listener: (exit: ExitInfo) => void): void {
    this.pty.onExit(listener);
  }

  onResize(listener: (size: CellSize) => void): void {
    this.resizeListeners.push(listener);
  }

  userInput(data: string | Buffer): void {
    this.gate.user(data);
  }

  inject(request: InjectRequest): Promise<InjectResult> {
    return this.gate.exclusive(async () => {
      if (request.once !== undefined && this.typedOnce.includes(request.once)) return { typed: true };
      if (request.ifOutputAt !== undefined && request.ifOutputAt !== this.bytes)
        return { typed: false, outputAt: this.bytes };
      if (request.once !== undefined) this.remember(request.once);
      await this.typeParts(request);
      return { typed: true };
    });
  }

  private async typeParts(request: InjectRequest): Promise<void> {
    const last = request.parts.length - 1;
    let echo: Promise<void> = Promise.resolve();
    let pasteShown: Promise<void> = Promise.resolve();
    for (const [i, part] of request.parts.entries()) {
      if (i > 0 && i === last && request.settleBeforeLast) await pasteShown;
      if (i > 0 && request.awaitRedraw) await this.redrawn(echo, request.gapMs);
      else if (i > 0 && request.gapMs > 0) await this.clock.sleep(request.gapMs);
      if (request.awaitRedraw) echo = this.settle(KEY_ECHO_MAX_MS);
      const before = this.bytes;
      await this.pty.write(part);
      if (i === last - 1 && request.settleBeforeLast)
        pasteShown = this.settledAfter(before, PASTE_SETTLE_MAX_MS);
    }
  }

  /**
   * The screen settled with output written after `bytes` (the program's answer to what was typed, not a
   * settle of what it wrote before), or `maxMs` passed.
   */
  private async settledAfter(bytes: number, maxMs: number): Promise<void> {
    const deadline = this.clock.now() + maxMs;
    for (let left = maxMs; left > 0; left = deadline - this.clock.now()) {
      await this.settle(left);
      if (this.bytes > bytes) return;
    }
  }

  /** The gap has passed, the key's echo came (or did not, in time), and the output has gone quiet. */
  private async redrawn(echo: Promise<void>, gapMs: number): Promise<void> {
    await Promise.all([this.clock.sleep(gapMs), echo]);
    const deadline = this.clock.now() + KEY_SETTLE_MAX_MS;
    for (;;) {
      const quiet = this.clock.now() - this.lastOutputAt;
      if (quiet >= KEY_QUIET_MS || this.clock.now() >= deadline) return;
      await this.clock.sleep(Math.min(KEY_QUIET_MS - quiet, deadline - this.clock.now()));
    }
  }

  injected(id: string): Promise<boolean> {
    return Promise.resolve(this.typedOnce.includes(id));
  }

  resize(cols: number, rows: number): void {
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.pty.resize(cols, rows);
    for (const listener of this.resizeListeners) listener({ cols, rows });
  }

  pause(): void {
    this.pty.pause();
  }

  resume(): void {
    this.pty.resume();
  }

  interrupt(signal: NodeJS.Signals = 'SIGINT'): void {
    this.pty.interrupt(signal);
  }

  stop(): Promise<ExitInfo> {
    return this.pty.stop();
  }

  /** Remembered before the first key goes out: a typing cut short by an exit is never typed again. */
  private remember(id: string): void {
    this.typedOnce.push(id);
    if (this.typedOnce.length > REMEMBERED_INJECTIONS) this.typedOnce.shift();
  }
}
