import type { Clock } from '../../core/clock.js';
import type { ExitInfo } from '../../core/events.js';
import { ScreenModel, type ScreenState, type TerminalScreen } from '../../drivers/terminal/screen.js';
import type {
  CellSize,
  InjectRequest,
  InjectResult,
  TerminalOutput,
  TerminalPort,
} from '../../drivers/terminal/terminal-port.js';
import type { HostConnection } from './host-connection.js';
import type { ExitReport } from './host-wire.js';
import { RemoteScreen } from './remote-screen.js';
import type { ViewerHandoff } from './viewer-handoff.js';

/** Where a client starts from: the screen the host showed it, and the output it stood for. */
export interface HostView {
  screen: string;
  outputAt: number;
  cols: number;
  rows: number;
  /** Protocol 2, a client that reads the host's screen: that screen, and whether it is at rest. */
  state?: ScreenState;
  settled?: boolean;
}

/**
 * A terminal in a session host, as the terminal driver uses it (TerminalPort): output and the size come from
 * the host, keys and injections go to it. The host holds a person's keys back while an injection runs, and
 * types an injection only if the program wrote nothing since the screen this client read (`ifOutputAt`).
 */
export class RemotePort implements TerminalPort {
  private currentSize: CellSize;
  private exitInfo: ExitInfo | null = null;
  private exitReport: ExitReport | null = null;
  private readonly dataListeners: Array<(chunk: Buffer) => void> = [];
  private readonly exitListeners: Array<(exit: ExitInfo) => void> = [];
  private readonly resizeListeners: Array<(size: CellSize) => void> = [];
  private readonly typedListeners: Array<(data: string) => void> = [];
  readonly exited: Promise<ExitInfo>;
  /** The host writes the output to this process's own terminal (see TerminalPort.terminalOutput). */
  readonly terminalOutput: TerminalOutput | null;

  /**
   * `viewers`: the host takes browsers' terminals from this process (it started the host); they are let go
   * with this connection (this process no longer controls the session).
   */
  constructor(
    readonly connection: HostConnection,
    view: HostView,
    readonly viewers: ViewerHandoff | null = null,
  ) {
    this.currentSize = { cols: view.cols, rows: view.rows };
    this.exited = new Promise((resolve) => this.exitListeners.push(resolve));
    this.terminalOutput = connection.welcome.direct
      ? {
          start: () => void connection.request({ type: 'terminal', on: true }).catch(() => undefined),
          stop: () =>
            connection
              .request({ type: 'terminal', on: false })
              .then(() => undefined)
              .catch(() => undefined),
        }
      : null;
    connection.onOutput((chunk) => {
      for (const listener of this.dataListeners) listener(chunk);
    });
    connection.onFrame((frame) => {
      if (frame.type === 'size') this.sized({ cols: frame.cols, rows: frame.rows });
      else if (frame.type === 'typed') for (const listener of this.typedListeners) listener(frame.data);
      else if (frame.type === 'exit') this.ended(frame.report);
    });
    connection.onClose(() => {
      viewers?.close();
      this.ended({ exitCode: null, signal: null, stopped: null }, 'its session host ended unexpectedly');
    });
    const already = connection.welcome.exit;
    if (already) this.ended(already);
  }

  /**
   * The screen the terminal driver reads: the host's own (protocol 2), or a model here showing what the host
   * showed, fed with the output from then on (an older host).
   */
  static screenFor(connection: HostConnection, view: HostView, clock: Clock): TerminalScreen {
    if (connection.screens && view.state)
      return new RemoteScreen(connection, view.state, view.settled ?? false, clock);
    const screen = new ScreenModel({ cols: view.cols, rows: view.rows, clock });
    screen.show(view.screen, view.outputAt);
    return screen;
  }

  /**
   * Output over this connection from now on (a host that reads the screen sends none unless asked): the
   * screen the output continues from, drawn in a fresh terminal.
   */
  async follow(): Promise<string> {
    const reply = await this.connection.request({ type: 'output', on: true });
    return typeof reply.screen === 'string' ? reply.screen : '';
  }

  /** No more output over this connection (nobody here watches it). */
  unfollow(): void {
    void this.connection.request({ type: 'output', on: false }).catch(() => undefined);
  }

  get pid(): number {
    return this.connection.welcome.pid;
  }

  get ttyPath(): string {
    return this.connection.welcome.ttyPath;
  }

  get size(): CellSize {
    return this.currentSize;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  /** How the agent ended, as its host said (why it was stopped, if it was); null while it runs. */
  get report(): ExitReport | null {
    return this.exitReport;
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListeners.push(listener);
  }

  onExit(listener: (exit: ExitInfo) => void): void {
    if (this.exitInfo) listener(this.exitInfo);
    else this.exitListeners.push(listener);
  }

  onResize(listener: (size: CellSize) => void): void {
    this.resizeListeners.push(listener);
  }

  /** Keys a person typed at another client of the host. */
  onTyped(listener: (data: string) => void): void {
    this.typedListeners.push(listener);
  }

  userInput(data: string | Buffer): void {
    this.connection.sendInput(data);
  }

  async inject(request: InjectRequest): Promise<InjectResult> {
    const reply = await this.connection.request({ type: 'inject', ...request });
    return reply.typed === true ? { typed: true } : { typed: false, outputAt: Number(reply.outputAt) };
  }

  async injected(id: string): Promise<boolean> {
    return (await this.connection.request({ type: 'injected', id })).typed === true;
  }

  /** The size that fits this client; it drives the terminal's size from now (it is the active one). */
  resize(cols: number, rows: number): void {
    this.connection.send({ type: 'resize', cols, rows });
    this.connection.send({ type: 'drive' });
  }

  pause(): void {
    this.connection.pause();
  }

  resume(): void {
    this.connection.resume();
  }

  interrupt(signal: NodeJS.Signals = 'SIGINT'): void {
    if (signal === 'SIGINT' || signal === 'SIGQUIT' || signal === 'SIGTSTP')
      this.connection.send({ type: 'interrupt', signal });
  }

  async stop(): Promise<ExitInfo> {
    if (this.running) await this.connection.request({ type: 'stop' }).catch(() => undefined);
    return this.exited;
  }

  private sized(size: CellSize): void {
    if (size.cols === this.currentSize.cols && size.rows === this.currentSize.rows) return;
    this.currentSize = size;
    for (const listener of this.resizeListeners) listener(size);
  }

  private ended(report: ExitReport, reason?: string): void {
    if (this.exitInfo) return;
    this.exitReport = report;
    const why = reason ?? report.stopped?.reason;
    this.exitInfo = { exitCode: report.exitCode, signal: report.signal, ...(why ? { reason: why } : {}) };
    for (const listener of this.exitListeners.splice(0)) listener(this.exitInfo);
  }
}
