import type { DetectedPrompt } from './prompt.js';

/** What a screen-reading detector sees: the rendered rows, the cursor, the window title. */
export interface ScreenView {
  lines: readonly string[];
  cursor: { x: number; y: number };
  title: string;
  /**
   * A full-screen program (vim, less, htop) has the alternate screen: at rest it waits for keys, which is how
   * it is used, not a question. Only an agent's own vocabulary reads prompts there.
   */
  alternateScreen?: boolean;
}

/**
 * An agent's screen vocabulary, given to the generic terminal driver as functions (STYLE 2): how it asks,
 * how it looks when it waits for a new message, and how its menus take keys.
 */
export interface ScreenVocabulary {
  /** The agent's own prompts (permission, question, plan...), with high confidence. */
  detect?(screen: ScreenView): DetectedPrompt | null;
  /** The agent sits at its input box waiting for a new message: not a question, never auto-answered. */
  isIdle?(screen: ScreenView): boolean;
  /** `digit`: a digit picks a menu option at once (Claude, Codex, Gemini, Copilot); else digit then Enter. */
  menuKeys: 'digit' | 'digit-enter';
  /**
   * The keys that stop what the agent is doing (/cancel), where they are not Ctrl-C's SIGINT: Claude Code reads
   * its terminal raw and stops a turn (and denies a waiting dialog) on Esc.
   */
  interruptKeys?: string;
}
