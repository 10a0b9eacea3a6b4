/**
 * How one of an agent's dialogs takes its answer, as data in the agent's screen vocabulary (measured on the
 * real CLIs, re-checked by test/golden/live.test.ts). The terminal driver turns a reply into keys from it;
 * no agent is named outside its own folder.
 */
export interface DialogKeys {
  /**
   * How a choice is made: `digit` types its number, which acts at once; `digit-enter` its number then Enter;
   * `arrows` moves the highlight with ↑/↓ from where it is, then Enter (Copilot's question form ignores digits).
   */
  pick: 'digit' | 'digit-enter' | 'arrows';
  /**
   * How words go with the choice that takes them (`textChoiceOf`: "Type something.", "No, and tell Copilot…"):
   * - `in-place`: picking the choice opens its text field; then the words and Enter.
   * - `tab`: ↑/↓ to the choice, Tab opens its text field (Claude's "Tab to amend", Codex's notes); words, Enter.
   * - `next-message`: the choice ends the turn and the CLI waits; the words go in as the next message.
   */
  words?: 'in-place' | 'tab' | 'next-message';
  /** Words typed with that choice when a person gave none, where the dialog refuses it without words. */
  defaultWords?: string;
  /** A multi-select question: how one box is ticked, and how the ticks are then submitted. */
  multiSelect?: {
    /** `digit`: a digit ticks its box (and highlights it); `space`: Space ticks the highlighted one. */
    toggle: 'digit' | 'space';
    /**
     * `enter`; `tab` (to the next question's tab); `tab-then-1` (Tab to the review tab, `1` submits);
     * `up-past-first`: ↑ from the highlighted box past the first one wraps to "Done", then Enter.
     */
    submit: 'enter' | 'tab' | 'tab-then-1' | 'up-past-first';
  };
  /**
   * What Esc does here: `denies` the request and the agent goes on or waits; `exits` the CLI (trust prompts);
   * `aborts-turn` (Copilot: the whole turn stops, the model is not told); `cancels` the dialog.
   */
  escape: 'denies' | 'exits' | 'aborts-turn' | 'cancels';
}

/** A dialog as the screen shows it now: its keys, and where its highlight and ticks are. */
export interface DialogState {
  keys: DialogKeys;
  /** The highlighted option, where a cursor marks one (arrows move from it). */
  highlighted?: number;
  /** A multi-select question's boxes (`PromptChoice.checkbox`) that are ticked already. */
  ticked?: number[];
}
