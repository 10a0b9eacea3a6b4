import type { Clock, TimerHandle } from '../core/clock.js';
import type { AgentEvent } from '../core/events.js';
import type { TerminalSession } from '../drivers/terminal/terminal-session.js';

/**
 * Quiet an agent at its input box must also have kept before it takes a message: some CLIs draw their box
 * before they read keys and drop what is typed meanwhile (Codex, Gemini CLI, on their first message), and their
 * start-up work still prints then.
 */
export const READY_QUIET_MS = 1_500;
/** The quiet is waited for at most this long after the box first shows (an agent that keeps printing at rest). */
export const READY_QUIET_MAX_MS = 3_000;

export interface ReadyWatch {
  terminal: TerminalSession;
  clock: Clock;
  /** The agent's vocabulary knows its input box: its idle status says when the box shows. */
  knowsIdle: boolean;
  /** It is idle already. */
  idle: boolean;
  on(listener: (event: AgentEvent) => void): void;
}

/**
 * Resolves when a terminal agent can take a message: at its input box and quiet (agents whose vocabulary knows
 * the box), else once its first output settled; at the latest after `timeoutMs`, or when it exits. Text typed
 * before then is lost by some TUIs.
 */
export function whenAgentReady(watch: ReadyWatch, timeoutMs: number): Promise<void> {
  const { terminal, clock } = watch;
  return new Promise((resolve) => {
    let done = false;
    const timers: TimerHandle[] = [];
    const finish = () => {
      if (done) return;
      done = true;
      for (const timer of timers) timer.cancel();
      resolve();
    };
    timers.push(clock.after(timeoutMs, finish));
    void terminal.exited.then(finish);
    if (!watch.knowsIdle) {
      terminal.screen.onSettled((screen) => {
        if (screen.snapshot().text.trim()) finish();
      });
      return;
    }
    // One timer at a time: output only moves the time it looks again (the output of a start-up comes in many
    // chunks).
    let lastOutput = clock.now();
    let atBox = false;
    const lookAgain = () => {
      const left = lastOutput + READY_QUIET_MS - clock.now();
      if (left <= 0) return finish();
      timers.push(clock.after(left, lookAgain));
    };
    const boxShown = () => {
      if (atBox) return;
      atBox = true;
      timers.push(clock.after(READY_QUIET_MAX_MS, finish));
      lastOutput = clock.now();
      lookAgain();
    };
    terminal.screen.onOutput(() => (lastOutput = clock.now()));
    watch.on((event) => event.type === 'status' && event.state === 'idle' && boxShown());
    if (watch.idle) boxShown();
  });
}
