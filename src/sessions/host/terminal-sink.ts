import { createWriteStream, fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { isatty, WriteStream } from 'node:tty';
import type { Clock } from '../../core/clock.js';

/** Where a host started with its spawner's terminal finds it (`--terminal` on its command line). */
export const TERMINAL_FD = 4;

/**
 * The terminal (or pipe, or file) a session host was started with on `fd`: the spawner's own output (`run`),
 * which the host writes the agent's output to itself, so it never crosses a second process. A writable stream
 * of the kind Node makes `process.stdout` for that sort of file, except that a terminal is written without
 * blocking: a terminal that stops reading (Ctrl-S, a stalled SSH link) pauses the agent, never the host and
 * its other clients.
 */
export function openTerminalSink(fd: number): Writable {
  if (isatty(fd)) {
    const tty = new WriteStream(fd);
    // Node makes terminals blocking for its own stdout; libuv reopened this one, so the change is ours alone.
    (tty as unknown as { _handle?: { setBlocking?(blocking: boolean): void } })._handle?.setBlocking?.(false);
    return tty;
  }
  const stat = fstatSync(fd);
  if (stat.isFIFO() || stat.isSocket()) return new Socket({ fd, readable: false, writable: true });
  // A file (or a device such as /dev/null): written in order, at the offset the spawner shares.
  return createWriteStream('', { fd, autoClose: true });
}

/**
 * The spawner's terminal as its session host holds it: claimed once, by the spawner's connection (never a
 * browser's); written only once that client says its terminal shows the session (what `run` says first comes
 * first; the output meanwhile is held, and counts as backlog); let go for good when the client detaches or
 * goes, after everything before is written; dropped when it hangs up.
 */
export class SpawnerTerminal {
  private sink: Writable | null;
  private claimed = false;
  private ready: () => void = () => undefined;
  /** Its client said its terminal shows the session, or the terminal is gone. */
  private readonly started = new Promise<void>((resolve) => (this.ready = resolve));

  /** `drained`: the terminal wrote out its backlog, or is gone (output may flow again). */
  constructor(
    sink: Writable | null,
    private readonly drained: () => void,
  ) {
    this.sink = sink;
    if (!sink) return;
    sink.cork();
    sink.on('drain', drained);
    // The terminal went away (hung up, the pipe closed): the output goes on to everyone else.
    sink.on('error', () => this.drop());
  }

  /** The first client (not a browser) asking for it gets it; nobody after. */
  claim(client: string): boolean {
    const taken = this.sink !== null && !this.claimed && client !== 'web';
    this.claimed ||= taken;
    return taken;
  }

  /** Output for its client; held (and counted) until start(). */
  write(data: Buffer): void {
    this.sink?.write(data);
  }

  /** Bytes written and not yet out: a slow terminal pauses the agent. */
  get backlog(): number {
    return this.sink?.writableLength ?? 0;
  }

  /** Its client's terminal shows the session now: what was held is written, the rest as it comes. */
  start(): void {
    this.sink?.uncork();
    this.ready();
  }

  /**
   * Before the agent's end is told: waits (at most `maxMs`) for a claimed terminal's client to start it (an
   * agent that ended at once ends after what `run` says first), then writes everything and lets it go.
   */
  async finish(clock: Clock, maxMs: number): Promise<void> {
    if (this.claimed) {
      const gaveUp = clock.after(maxMs, () => this.ready());
      await this.started;
      gaveUp.cancel();
    }
    await this.letGo();
  }

  /** Writes everything held, then closes the terminal (its client detached, or the agent ended). */
  async letGo(): Promise<void> {
    const sink = this.sink;
    this.ready();
    if (!sink) return;
    this.sink = null;
    sink.uncork();
    await new Promise<void>((resolve) => {
      sink.once('error', () => resolve());
      sink.end(() => resolve());
    });
  }

  /** The terminal hung up, or is no longer its client's (it went): nothing more goes there. */
  drop(): void {
    const sink = this.sink;
    this.ready();
    if (!sink) return;
    this.sink = null;
    sink.destroy();
    this.drained();
  }
}
