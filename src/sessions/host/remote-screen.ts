import { nextCallOr, type Clock } from '../../core/clock.js';
import type { ScreenSnapshot, ScreenState, TerminalScreen } from '../../drivers/terminal/screen.js';
import type { HostConnection } from './host-connection.js';

/**
 * The screen a session host keeps, as its controller reads it (protocol 2): the host parses the agent's output
 * once, for every client, and says when the screen settles (with what it shows) and when output comes after;
 * the controller's prompt detector runs on that, without the output itself crossing to it. A read that must be
 * current (an answer about to be typed) asks the host for the caught-up screen.
 */
export class RemoteScreen implements TerminalScreen {
  private state: ScreenState;
  private readonly outputListeners: Array<(outputAt: number) => void> = [];
  private readonly settleListeners: Array<(screen: TerminalScreen) => void> = [];
  private disposed = false;

  constructor(
    private readonly connection: HostConnection,
    first: ScreenState,
    settled: boolean,
    private readonly clock: Clock,
  ) {
    this.state = first;
    connection.onFrame((frame) => {
      if (this.disposed) return;
      if (frame.type === 'active') for (const listener of this.outputListeners) listener(frame.outputAt);
      if (frame.type === 'settled') this.settled(frame.state);
    });
    // A screen already at rest after output (a prompt waiting, when serve takes a session over) is read as it
    // is, once whoever reads it listens.
    if (settled && first.outputAt > 0) setImmediate(() => !this.disposed && this.settled(this.state));
  }

  /** The output is parsed by the host. */
  feed(): void {}

  onOutput(listener: (outputAt: number) => void): void {
    this.outputListeners.push(listener);
  }

  onSettled(listener: (screen: TerminalScreen) => void): void {
    this.settleListeners.push(listener);
  }

  nextSettle(timeoutMs: number): Promise<void> {
    return nextCallOr(this.clock, this.settleListeners, timeoutMs);
  }

  /** The host's screen follows the terminal's size. */
  resize(): void {}

  /** Asks the host for its screen, caught up with all it read; a host that is gone leaves the last one. */
  async catchUp(): Promise<void> {
    if (this.disposed || !this.connection.open) return;
    const reply = await this.connection.request({ type: 'screen' }).catch(() => null);
    const state = reply?.state as ScreenState | undefined;
    if (state && state.outputAt >= this.state.outputAt) this.state = state;
  }

  snapshot(): ScreenSnapshot {
    const { reset: _reset, ...snapshot } = this.state;
    return { ...snapshot, lines: [...snapshot.lines] };
  }

  resetSequence(): string {
    return this.state.reset;
  }

  async redraw(): Promise<string> {
    if (!this.connection.open) return '';
    const reply = await this.connection.request({ type: 'redraw' }).catch(() => null);
    return typeof reply?.screen === 'string' ? reply.screen : '';
  }

  dispose(): void {
    this.disposed = true;
  }

  private settled(state: ScreenState): void {
    if (state.outputAt >= this.state.outputAt) this.state = state;
    for (const listener of [...this.settleListeners]) listener(this);
  }
}
