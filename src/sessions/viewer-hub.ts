import type { TerminalViewer } from '../channels/web/backend.js';
import { BurstGatherer } from '../core/burst-gatherer.js';
import type { Clock } from '../core/clock.js';
import type { ExitInfo } from '../core/events.js';
import type { TerminalSession } from '../drivers/terminal/terminal-session.js';
import { SizeArbiter, type CellSize } from './viewer-sizes.js';

/** One viewer's hold on the terminal: what it types, the size that fits it, and leaving. */
export interface ViewerSeat {
  /** Keys from this viewer; dropped for a read-only one. Typing makes its size the terminal's. */
  input(data: string): void;
  /** The size that fits this viewer's screen. */
  wants(cols: number, rows: number): void;
  /** "Fit to this screen": its size becomes the terminal's without typing. */
  drive(): void;
  leave(): void;
}

/**
 * Sends one terminal's output to all its browser viewers: one subscription per terminal, and output read
 * close together sent as one frame (one ~4 KB frame per read per viewer cost most of the server's time).
 * Every viewer gets the same buffer. Echoes and small output go out at once; only a burst is gathered. One
 * viewer drives the terminal's size (viewer-sizes.ts); read-only viewers only watch.
 */
export class ViewerHub {
  private readonly viewers = new Set<TerminalViewer>();
  private readonly sizes: SizeArbiter<TerminalViewer>;
  private readonly burst: BurstGatherer;
  private readonly unsubscribe: () => void;

  /** `resize`: how the terminal takes the driving viewer's size; null when something else sizes it. */
  constructor(
    private readonly terminal: TerminalSession,
    resize: ((size: CellSize) => void) | null,
    private readonly onEmpty: () => void,
    clock: Clock,
  ) {
    this.burst = new BurstGatherer(clock, (data) => this.send(data));
    this.sizes = new SizeArbiter<TerminalViewer>({ ...terminal.pty.size }, resize, (viewer, info) =>
      viewer.size?.(info),
    );
    this.unsubscribe = terminal.on((event) => {
      if (event.type === 'output')
        this.burst.push(Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength));
      if (event.type === 'exit') this.exit(event.exit);
    });
  }

  /** The terminal took a size no viewer asked for (the terminal `agent-bridge run` runs in was resized). */
  resized(size: CellSize): void {
    this.sizes.resized(size);
  }

  add(viewer: TerminalViewer, options: { readOnly?: boolean } = {}): ViewerSeat {
    const readOnly = options.readOnly ?? false;
    this.flush();
    this.viewers.add(viewer);
    this.sizes.add(viewer, readOnly);
    return {
      input: (data) => {
        if (readOnly || !this.viewers.has(viewer)) return;
        this.sizes.active(viewer);
        this.terminal.userInput(data);
      },
      wants: (cols, rows) => this.sizes.wants(viewer, { cols, rows }),
      drive: () => this.sizes.active(viewer),
      leave: () => {
        if (!this.viewers.delete(viewer)) return;
        this.sizes.remove(viewer);
        if (this.viewers.size === 0) this.close();
      },
    };
  }

  /** Sends what is gathered now. */
  flush(): void {
    this.burst.flush();
  }

  private send(data: Buffer): void {
    for (const viewer of this.viewers) viewer.output(data);
  }

  /**
   * The agent ended: its viewers are told how. An end nobody knows the manner of (its session host died) is no
   * exit to show: the viewers are let go and look again (the session is listed crashed).
   */
  private exit(info: ExitInfo): void {
    this.flush();
    const unknown = info.exitCode === null && info.signal === null;
    for (const viewer of this.viewers)
      if (unknown && viewer.closed) viewer.closed();
      else viewer.exit({ exitCode: info.exitCode, signal: info.signal });
  }

  private close(): void {
    this.flush();
    this.unsubscribe();
    this.onEmpty();
  }
}
