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
  /**
   * `message` is still in the agent's input box, and no dialog of the agent's shows: the Enter sent after it
   * was taken as a new line of a paste, or missed (a busy machine). The driver then types Enter once more.
   */
  holdsUnsent?(screen: ScreenView, message: string): boolean;
  /**
   * The agent puts the last message back in its input box when a turn of its is cancelled (Gemini CLI, after a
   * "No" to a tool): the text its box holds ('' empty, null where no box is drawn), and the keys that empty it
   * of `text` (the cursor at its end), one write each. Before the next message is typed, a box holding just the
   * last message typed there is emptied with them (a person's own text in it never is).
   */
  restoresMessage?: { boxText(screen: ScreenView): string | null; clearKeys(text: string): string[] };
  /**
   * How a menu found by the generic patterns takes a choice: `digit` at once, else digit then Enter. The
   * agent's own dialogs say how they take keys themselves (`DetectedPrompt.dialog`).
   */
  menuKeys: 'digit' | 'digit-enter';
  /**
   * The keys that stop what the agent is doing (/cancel), one write each, where they are not Ctrl-C's SIGINT:
   * the agents read their terminal raw and stop a turn on Esc (Copilot CLI: Esc twice); a SIGINT they did not
   * expect ends Codex, Gemini CLI and Copilot CLI altogether.
   */
  interruptKeys?: string[];
  /**
   * The pause between two writes of keys (a message's words and its Enter, an arrow and Enter), in ms; 30 when
   * unset. Gemini CLI takes an Enter that follows typed text within ~50 ms as part of a paste (a new line).
   */
  keyGapMs?: number;
  /**
   * The agent draws on the alternate screen itself (Codex, Copilot CLI): there, `isIdle` tells idle from working, where
   * another program on the alternate screen (vim, less) is taken as idle whenever it shows no dialog.
   */
  fullScreen?: true;
}
