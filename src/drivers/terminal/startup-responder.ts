import type { Clock } from '../../core/clock.js';
import type { StartupPromptRule } from '../../core/startup-rules.js';

/** A pause before answering, so the dialog is fully drawn and ready for keys (seed 002 waits 500 ms). */
export const STARTUP_ANSWER_DELAY_MS = 300;

/**
 * Accepts an agent's start-up questions (folder trust) once each, when they appear on the settled screen.
 * Checks again just before typing, so a dialog that went away is never answered blindly.
 */
export class StartupResponder {
  private readonly answered = new Set<string>();
  private waiting = false;

  constructor(
    private readonly rules: StartupPromptRule[],
    private readonly clock: Clock,
    private readonly screenText: () => string,
    private readonly type: (keys: string) => Promise<void>,
    private readonly onAnswered: (rule: StartupPromptRule) => void = () => {},
  ) {}

  /** Call when the screen has settled. */
  check(): void {
    if (this.waiting) return;
    const rule = this.pendingMatch();
    if (!rule) return;
    this.waiting = true;
    this.clock.after(STARTUP_ANSWER_DELAY_MS, () => {
      this.waiting = false;
      if (this.pendingMatch() !== rule) return;
      this.answered.add(rule.name);
      this.onAnswered(rule);
      void this.type(rule.answer).catch(() => {});
    });
  }

  private pendingMatch(): StartupPromptRule | undefined {
    const text = this.screenText();
    return this.rules.find((rule) => !this.answered.has(rule.name) && rule.pattern.test(text));
  }
}
