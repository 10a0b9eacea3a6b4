import type { TerminalPort } from './terminal-port.js';

/** How long an interrupt of more than one key waits for the agent to stop before it types them again. */
export const INTERRUPT_CHECK_MS = 3_000;
/** The most times the keys are typed. */
export const INTERRUPT_TRIES = 3;

export interface InterruptTyping {
  port: Pick<TerminalPort, 'inject'>;
  keys: readonly string[];
  gapMs: number;
  /** Whether the agent stopped (back at its input box, or a dialog of its own shown) within `maxMs`. */
  stoppedWithin(maxMs: number): Promise<boolean>;
  /** The session is ending: nothing more is typed. */
  ending(): boolean;
}

/**
 * The agent's own interrupt keys, only the key gap between them (Copilot CLI takes Esc twice as one press only
 * within a short time). Keys of more than one press are typed again while the agent still works
 * INTERRUPT_CHECK_MS later: a program too busy to read each press by itself reads two at once as another key
 * (Copilot CLI: Alt+Esc), and its turn goes on. One key is never typed twice (Esc at an idle Codex opens its
 * history).
 */
export async function typeInterrupt(typing: InterruptTyping): Promise<void> {
  const { port, keys, gapMs } = typing;
  for (let tries = 1; ; tries++) {
    await port.inject({ parts: [...keys], gapMs });
    if (keys.length < 2 || tries >= INTERRUPT_TRIES || typing.ending()) return;
    if ((await typing.stoppedWithin(INTERRUPT_CHECK_MS)) || typing.ending()) return;
  }
}
