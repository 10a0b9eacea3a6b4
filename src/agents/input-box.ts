import type { ScreenVocabulary, ScreenView } from '../core/screen-vocabulary.js';
import { lastContentRow, withoutSpaces } from '../core/screen-text.js';

/**
 * Shared by the agents' screen vocabularies: the input box an agent types a new message into, and whether
 * it still holds a message sent to it (its Enter missed, or taken as a new line of the paste).
 */
export interface InputBoxShape {
  /** The box's first row: a marker, then the text (`❯ please…`). */
  marker: RegExp;
  /** The row right above the box (a rule; Codex: a blank row). */
  opens(line: string): boolean;
  /** A row that closes the box below its text (a rule; Codex: a blank row). */
  closes(line: string): boolean;
  /** The box may run to the bottom of the screen, unclosed (Codex scrolls a long message in it). */
  mayRunToBottom?: true;
  /** At most this many rows of footer under the box: a marker further up is the conversation's. */
  footerRows: number;
  /** What an empty box shows in its place ("Type your message or @path/to/file"). */
  placeholder?: RegExp;
  /** How a long paste shows in the box, collapsed (`[Pasted text #1 +29 lines]`), where it does. */
  collapsedPaste?: RegExp;
}

/** How much of a message's start must show in the box (without spaces: the box wraps it). */
const HEAD_CHARS = 40;
/** A box that scrolls marks it at its right edge (Codex: ↑). */
const SCROLL_MARK = /\s+[↑↓]\s*$/;
/** A dialog's highlighted option (`❯ 1. Yes`, `› 2. No`) has a marker too: it is never the box. */
const MENU_OPTION = /^\S\s+\d{1,2}\.\s/;

/** The text in the box at the bottom of the screen (placeholder: empty), or null where none is drawn there. */
export function inputBoxText(shape: InputBoxShape, screen: ScreenView): string | null {
  const lines = screen.lines;
  const bottom = lastContentRow(lines);
  let row = bottom;
  while (row >= 0 && !shape.marker.test(lines[row]!)) row--;
  if (row < 1 || MENU_OPTION.test(lines[row]!) || !shape.opens(lines[row - 1]!)) return null;
  let end = row + 1;
  while (end <= bottom && !shape.closes(lines[end]!)) end++;
  if (end > bottom && !shape.mayRunToBottom) return null;
  if (bottom - end > shape.footerRows) return null;
  const text = lines
    .slice(row, end)
    .map((line) => line.replace(SCROLL_MARK, ''))
    .join('\n')
    .replace(shape.marker, '')
    .trim();
  return shape.placeholder?.test(text) ? '' : text;
}

/**
 * The box still holds `message`: its start, a part of it (a box that scrolls shows the end of a long one), or
 * a collapsed paste.
 */
export function holdsUnsentIn(shape: InputBoxShape, screen: ScreenView, message: string): boolean {
  const typed = inputBoxText(shape, screen);
  if (!typed) return false;
  if (shape.collapsedPaste?.test(typed)) return true;
  const [shown, sent] = [withoutSpaces(typed), withoutSpaces(message)];
  const head = sent.slice(0, HEAD_CHARS);
  return shown.includes(head) || (shown.length >= head.length && sent.includes(shown));
}

/**
 * A vocabulary's `holdsUnsent`: the box holds the message and no dialog of the agent's is shown (an Enter
 * typed again would answer it).
 */
export function unsentChecker(
  shape: InputBoxShape,
  detect: NonNullable<ScreenVocabulary['detect']>,
): NonNullable<ScreenVocabulary['holdsUnsent']> {
  return (screen, message) => holdsUnsentIn(shape, screen, message) && detect(screen) === null;
}
