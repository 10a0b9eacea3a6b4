import { constants as osConstants } from 'node:os';
import { readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { IPty } from 'node-pty';
import { systemClock, type Clock, type TimerHandle } from '../../core/clock.js';
import type { ExitInfo } from '../../core/events.js';
import { isFolder, ProcessFamily, signalGroup } from './process-tree.js';
import { loadNodePty } from './node-pty-loader.js';

export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;
/** Writes are split so a large paste never overflows the PTY input queue (ConPTY needs it most). */
export const WRITE_CHUNK_BYTES = 4096;
const WINDOWS_CHUNK_DELAY_MS = 10;
export const KILL_GRACE_MS = 5_000;
/**
 * Windows only: ConPTY can hang silently at start, so a child that shows nothing at all in 30 s is killed.
 * Elsewhere the spawn cannot hang unseen, and a quiet command (`sleep`, `cat` waiting for input, a build
 * that prints at the end) is a normal one: it runs as long as it likes.
 */
export const SPAWN_WATCHDOG_MS = 30_000;
const DEFAULT_WATCHDOG_MS = process.platform === 'win32' ? SPAWN_WATCHDOG_MS : null;

export interface PtySpawnOptions {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment of the child (the caller merges process.env if it wants it). */
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  clock?: Clock;
  killGraceMs?: number;
  /** Kill a child that shows nothing (no output, no exit) this long after its start; null: never. */
  watchdogMs?: number | null;
}

export class SpawnError extends Error {
  override name = 'SpawnError';
}

type DataListener = (chunk: Buffer) => void;
type ExitListener = (exit: ExitInfo) => void;

/**
 * A child process in its own pseudo-terminal (node-pty puts it in a new session and process group).
 * Output arrives as Buffers (no decoding on the hot path); stop() ends the whole session, never more.
 */
export class PtyProcess {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  private readonly pty: IPty;
  private readonly clock: Clock;
  private readonly killGraceMs: number;
  private readonly dataListeners: DataListener[] = [];
  private readonly exitListeners: ExitListener[] = [];
  private readonly family: ProcessFamily;
  private watchdog: TimerHandle | null;
  private exitInfo: ExitInfo | null = null;
  private stopReason: string | undefined;
  private writeQueue: Promise<void> = Promise.resolve();
  /** Writes in writeQueue not yet done. */
  private queuedWrites = 0;
  private cols: number;
  private rows: number;

  private constructor(pty: IPty, options: PtySpawnOptions) {
    this.pty = pty;
    this.pid = pty.pid;
    this.family = new ProcessFamily(pty.pid);
    this.clock = options.clock ?? systemClock;
    this.killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
    this.cols = options.cols ?? DEFAULT_COLS;
    this.rows = options.rows ?? DEFAULT_ROWS;
    const watchdogMs = options.watchdogMs === undefined ? DEFAULT_WATCHDOG_MS : options.watchdogMs;
    this.watchdog =
      watchdogMs === null ? null : this.clock.after(watchdogMs, () => this.onWatchdog(watchdogMs));
    this.exited = new Promise((resolve) => this.exitListeners.push(resolve));
    rescueTailOnDestroy(pty, (chunk) => this.handleData(chunk));
    pty.onData((data) => this.handleData(data as unknown as Buffer));
    pty.onExit(({ exitCode, signal }) => this.handleExit(exitCode, signal));
  }

  static async spawn(options: PtySpawnOptions): Promise<PtyProcess> {
    assertDirectory(options.cwd);
    const nodePty = await loadNodePty();
    let pty: IPty;
    try {
      pty = nodePty.spawn(options.command, options.args, {
        name: 'xterm-256color',
        cols: options.cols ?? DEFAULT_COLS,
        rows: options.rows ?? DEFAULT_ROWS,
        cwd: options.cwd,
        env: { ...options.env, TERM: 'xterm-256color', COLORTERM: 'truecolor', FORCE_COLOR: '1' },
        encoding: null,
      });
    } catch (error) {
      throw new SpawnError(`cannot start ${options.command}: ${(error as Error).message}`);
    }
    return new PtyProcess(pty, options);
  }

  /** The terminal device the child sees, e.g. /dev/pts/3 ('' where unknown). */
  get ttyPath(): string {
    return (this.pty as IPty & { ptsName?: string }).ptsName ?? '';
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.cols, rows: this.rows };
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  onData(listener: DataListener): void {
    this.dataListeners.push(listener);
  }

  onExit(listener: ExitListener): void {
    if (this.exitInfo) listener(this.exitInfo);
    else this.exitListeners.push(listener);
  }

  /**
   * Writes in 4 KB chunks, in order across calls. With nothing queued before it, a write starts at once, in
   * this turn: whatever the caller does next (telling another process it was typed) never delays the echo.
   */
  write(data: string | Buffer): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const started =
      this.queuedWrites === 0 ? this.writeChunks(bytes) : this.writeQueue.then(() => this.writeChunks(bytes));
    this.queuedWrites++;
    this.writeQueue = started.finally(() => this.queuedWrites--);
    return this.writeQueue;
  }

  private async writeChunks(bytes: Buffer): Promise<void> {
    for (let offset = 0; offset < bytes.length; offset += WRITE_CHUNK_BYTES) {
      if (!this.running) throw new SpawnError('the process has exited');
      this.pty.write(bytes.subarray(offset, offset + WRITE_CHUNK_BYTES));
      const more = offset + WRITE_CHUNK_BYTES < bytes.length;
      if (more && process.platform === 'win32') await this.clock.sleep(WINDOWS_CHUNK_DELAY_MS);
    }
  }

  resize(cols: number, rows: number): void {
    if (!this.running || cols < 1 || rows < 1) return;
    this.cols = cols;
    this.rows = rows;
    try {
      this.pty.resize(cols, rows);
    } catch {
      // the pty closed between the check and the call
    }
  }

  /** Stops reading (backpressure from a slow consumer); resume() continues. */
  pause(): void {
    this.pty.pause();
  }

  resume(): void {
    this.pty.resume();
  }

  /** Sends a signal to the foreground process group of the terminal (what Ctrl-C would reach). */
  interrupt(signal: NodeJS.Signals = 'SIGINT'): void {
    signalGroup(this.pid, signal);
  }

  /**
   * SIGHUP and SIGTERM to every process of the session (SIGHUP is what a closing terminal sends: interactive
   * shells ignore SIGTERM but not it), SIGKILL to what is left after the grace period.
   */
  async stop(): Promise<ExitInfo> {
    if (this.running) {
      this.family.signal('SIGHUP');
      this.family.signal('SIGTERM');
      const grace = this.clock.after(this.killGraceMs, () => this.family.signal('SIGKILL'));
      await this.exited;
      grace.cancel();
    }
    this.family.killLeftovers();
    return this.exited;
  }

  private handleData(chunk: Buffer): void {
    this.clearWatchdog();
    for (const listener of this.dataListeners) listener(chunk);
  }

  private handleExit(exitCode: number, signal: number | undefined): void {
    this.clearWatchdog();
    this.family.killLeftovers();
    this.exitInfo = { exitCode: signal ? null : exitCode, signal: signal ? signalName(signal) : null };
    if (this.stopReason) this.exitInfo.reason = this.stopReason;
    const listeners = this.exitListeners.splice(0);
    for (const listener of listeners) listener(this.exitInfo);
  }

  private onWatchdog(watchdogMs: number): void {
    this.watchdog = null;
    if (!this.running) return;
    // Nothing at all from the child: a hung start. Kill it rather than leave a zombie session.
    this.stopReason = `the agent printed nothing within ${watchdogMs / 1000} s of starting (spawn watchdog)`;
    void this.stop();
  }

  private clearWatchdog(): void {
    this.watchdog?.cancel();
    this.watchdog = null;
  }
}

/**
 * node-pty destroys its socket when libuv reports end-of-file after a short read with a hang-up pending
 * (node-pty#72) and 200 ms after the child exits even while we are paused: both drop output. Just before
 * the socket goes, flush what Node buffered (read() emits 'data') and read what the kernel still holds.
 */
function rescueTailOnDestroy(pty: IPty, deliver: (chunk: Buffer) => void): void {
  const internals = pty as IPty & { _socket?: Readable; _fd?: number };
  const socket = internals._socket;
  const fd = internals._fd;
  if (process.platform === 'win32' || !socket || typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    if (!socket.destroyed) {
      while (socket.read() !== null);
      const buffer = Buffer.allocUnsafe(64 * 1024);
      for (;;) {
        let count = 0;
        try {
          count = readSync(fd, buffer, 0, buffer.length, null);
        } catch {
          break; // EAGAIN: nothing left; EIO: the child side is closed and empty
        }
        if (count <= 0) break;
        deliver(Buffer.from(buffer.subarray(0, count)));
      }
    }
    return destroy(error);
  };
}

function signalName(signal: number): string {
  const entry = Object.entries(osConstants.signals).find(([, value]) => value === signal);
  return entry ? entry[0] : String(signal);
}

function assertDirectory(cwd: string): void {
  if (!isFolder(cwd)) throw new SpawnError(`working directory ${cwd} does not exist or is not a folder`);
}
