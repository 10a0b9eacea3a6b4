import type { DialogState } from '../../core/dialog-keys.js';
import { textChoiceOf, type DetectedPrompt, type ReplyAction } from '../../core/prompt.js';
import { encodeTextInput } from './input.js';

const UP = '\x1b[A';
const DOWN = '\x1b[B';
const TAB = '\t';
const ENTER = '\r';
const ESC = '\x1b';

/** The answer cannot be typed into this dialog as given: nothing was typed; the message says what to send. */
export class KeysRefused extends Error {
  override name = 'KeysRefused';
}

type KeyPrompt = Pick<DetectedPrompt, 'safeDefault' | 'choices' | 'kind'> & { dialog?: DialogState };

/**
 * The keys that give `action` to a terminal program, one write each (TUIs mishandle keys that arrive in one
 * write: Claude Code acts on an Enter sent with an arrow before the arrow, agent-facts). An agent's own dialog
 * says how it takes keys (`prompt.dialog`, from its vocabulary); other menus take a digit, at once or then
 * Enter (`menuKeys`). y/n and free text end with Enter; `cancel` types nothing. Null when the action cannot
 * apply (no safe default).
 */
export function replyKeys(
  action: ReplyAction,
  prompt: KeyPrompt,
  menuKeys: 'digit' | 'digit-enter',
  bracketedPaste: boolean,
): string[] | null {
  // A menu found by the generic patterns: its choice, then any words on their own line (as typed by hand).
  const dialog: DialogState = prompt.dialog ?? {
    keys: { pick: menuKeys, words: 'next-message', escape: 'cancels' },
  };
  const words = (text: string): string[] => {
    const { body, submit } = encodeTextInput(text, { bracketedPaste, submit: true });
    return body ? [body, submit] : [submit];
  };
  switch (action.type) {
    case 'choice': {
      const ticks = boxesAsked(action, prompt, dialog);
      if (ticks) return multiSelectKeys(ticks, prompt, dialog);
      return choiceKeys(action.number, action.text, prompt, dialog, words);
    }
    case 'choices':
      return multiSelectKeys(action.numbers, prompt, dialog);
    case 'yes':
      return ['y\r'];
    case 'no':
      return ['n\r'];
    case 'enter':
      return [ENTER];
    case 'escape':
      if (dialog.keys.escape === 'exits')
        throw new KeysRefused('Esc here exits the agent: answer with one of the choices instead');
      return [ESC];
    case 'text':
      return words(action.text);
    case 'default':
      return prompt.safeDefault ? replyKeys(prompt.safeDefault, prompt, menuKeys, bracketedPaste) : null;
    case 'cancel':
      return [];
    case 'sealed':
      throw new Error('a secret answer is typed only after its session opened it');
  }
}

/**
 * How many of the keys of `action` end the agent's turn before its words go in as the next message (a "No"
 * whose words are the next message: the input box must be back first), or 0.
 */
export function keysEndingTheTurn(
  action: ReplyAction,
  prompt: KeyPrompt,
  menuKeys: 'digit' | 'digit-enter',
): number {
  const chosen = chosenAnswer(action, prompt);
  const dialog = prompt.dialog;
  if (chosen?.type !== 'choice' || !chosen.text?.trim() || dialog?.keys.words !== 'next-message') return 0;
  if (chosen.number !== textChoiceOf(prompt)) return 0;
  return replyKeys({ type: 'choice', number: chosen.number }, prompt, menuKeys, false)?.length ?? 0;
}

/** The words `action` types into the dialog's own field (a choice that opens one in place), or null. */
export function wordsInPlace(action: ReplyAction, prompt: KeyPrompt): string | null {
  const chosen = chosenAnswer(action, prompt);
  if (chosen?.type !== 'choice' || !chosen.text?.trim() || prompt.dialog?.keys.words !== 'in-place')
    return null;
  return chosen.number === textChoiceOf(prompt) ? chosen.text : null;
}

/** The words given with a choice (its safe default's for `default`), if any. */
export function choiceWords(action: ReplyAction, prompt: KeyPrompt): string | undefined {
  const chosen = chosenAnswer(action, prompt);
  return chosen?.type === 'choice' ? chosen.text : undefined;
}

/** The answer as typed: the prompt's safe default for `default`. */
function chosenAnswer(action: ReplyAction, prompt: KeyPrompt): ReplyAction | null {
  return action.type === 'default' ? prompt.safeDefault : action;
}

/** A choice, and the words that go with it where it takes them. */
function choiceKeys(
  number: number,
  text: string | undefined,
  prompt: KeyPrompt,
  dialog: DialogState,
  words: (text: string) => string[],
): string[] {
  const keys = dialog.keys;
  const takesWords = number === textChoiceOf(prompt) && keys.words !== undefined;
  const said = text?.trim() ? text : takesWords ? keys.defaultWords : undefined;
  if (!takesWords || said === undefined) {
    if (text?.trim()) throw new KeysRefused(`choice ${number} takes no words here: send the number alone`);
    // A text field opened in place takes Enter even when empty (Claude's "Tell Claude what to change" rejects).
    const open = takesWords && keys.words === 'in-place';
    return open ? [...pickKeys(number, dialog, false), ENTER] : pickKeys(number, dialog, true);
  }
  switch (keys.words) {
    case 'tab':
      return [...arrows(dialog.highlighted ?? 1, number), TAB, ...words(said)];
    case 'next-message':
      return [...pickKeys(number, dialog, true), ...words(said)];
    default:
      return [...pickKeys(number, dialog, false), ...words(said)];
  }
}

/** The keys that pick `number`; `confirm` adds the Enter an arrow-driven menu needs to act. */
function pickKeys(number: number, dialog: DialogState, confirm: boolean): string[] {
  const { pick } = dialog.keys;
  if (pick === 'digit' && number < 10) return [String(number)];
  if (pick === 'digit-enter' && number < 10) return confirm ? [String(number), ENTER] : [String(number)];
  const moves = arrows(dialog.highlighted ?? 1, number);
  return confirm ? [...moves, ENTER] : moves;
}

function arrows(from: number, to: number): string[] {
  return Array<string>(Math.abs(to - from)).fill(to > from ? DOWN : UP);
}

/**
 * A multi-select question: the boxes `wanted` end up ticked and the other boxes not, then the ticks are
 * submitted (each box's key toggles it).
 */
function multiSelectKeys(wanted: number[], prompt: KeyPrompt, dialog: DialogState): string[] {
  const { multiSelect, flips } = boxFlips(wanted, prompt, dialog);
  const keys: string[] = [];
  let at = dialog.highlighted ?? 1;
  for (const n of flips) {
    keys.push(...flipKeys(n, at, multiSelect.toggle));
    at = n;
  }
  switch (multiSelect.submit) {
    case 'up-past-first':
      return [...keys, ...Array<string>(at).fill(UP), ENTER];
    case 'tab-then-1':
      return [...keys, TAB, '1'];
    case 'tab':
      return [...keys, TAB];
    case 'enter':
      return [...keys, ENTER];
  }
}

/** One box of a multi-select answer to flip: the box, whether it ends up ticked, and the keys. */
export interface BoxFlip {
  box: number;
  ticks: boolean;
  keys: string[];
}

/**
 * A multi-select answer is typed a box at a time, each seen flipped on the screen before the next: a TUI
 * that takes a second tick before it has drawn the first can lose one (Gemini CLI on a busy machine). The
 * first box still to flip and its keys; null when the boxes are as wanted (the submit is next), or when the
 * answer is not ticks in a multi-select dialog.
 */
export function nextBoxFlip(action: ReplyAction, prompt: KeyPrompt): BoxFlip | null {
  const dialog = prompt.dialog;
  const toggle = dialog?.keys.multiSelect?.toggle;
  if (!dialog || !toggle) return null;
  const boxed = (n: number) => prompt.choices.some((c) => c.number === n && c.checkbox);
  const wanted = boxesAsked(action, prompt, dialog);
  if (!wanted?.length || !wanted.every(boxed)) return null;
  const box = boxFlips(wanted, prompt, dialog).flips[0];
  if (box === undefined) return null;
  return { box, ticks: wanted.includes(box), keys: flipKeys(box, dialog.highlighted ?? 1, toggle) };
}

/**
 * The boxes an answer asks ticked: a list of choices, or one choice without words that is a box of a
 * multi-select dialog; null for any other answer.
 */
function boxesAsked(action: ReplyAction, prompt: KeyPrompt, dialog: DialogState): number[] | null {
  if (action.type === 'choices') return action.numbers;
  if (action.type !== 'choice' || action.text !== undefined || !dialog.keys.multiSelect) return null;
  const box = prompt.choices.find((c) => c.number === action.number)?.checkbox;
  return box ? [action.number] : null;
}

/** The boxes whose tick must change for exactly `wanted` to be ticked; refused if `wanted` are not boxes. */
function boxFlips(
  wanted: number[],
  prompt: KeyPrompt,
  dialog: DialogState,
): { multiSelect: NonNullable<DialogState['keys']['multiSelect']>; flips: number[] } {
  const boxes = prompt.choices.filter((c) => c.checkbox).map((c) => c.number);
  const multiSelect = dialog.keys.multiSelect;
  if (!multiSelect || boxes.length === 0)
    throw new KeysRefused('this question takes one choice: send one number');
  if (wanted.some((n) => !boxes.includes(n)))
    throw new KeysRefused(`tick boxes by number: ${boxes.join(', ')}`);
  const ticked = new Set(dialog.ticked ?? []);
  return { multiSelect, flips: boxes.filter((n) => ticked.has(n) !== wanted.includes(n)) };
}

/** The keys that flip box `n` with the highlight on `at`. */
function flipKeys(n: number, at: number, toggle: 'digit' | 'space'): string[] {
  return toggle === 'digit' ? [String(n)] : [...arrows(at, n), ' '];
}
