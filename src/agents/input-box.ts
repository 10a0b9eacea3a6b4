import type { ScreenView } from '../core/screen-vocabulary.js';
import { lastContentRow } from '../core/screen-text.js';

/**
 * Shared by the agents' screen vocabularies: the input box an agent types a new message into, and whether
 * it still holds a message sent to it (its Enter missed, or taken as a new line of the paste).
 */
export interface InputBoxShape {
  /** The box's first row: a marker, then the text (`❯ please…`). */
  marker: RegExp;
  /** A row that closes the box below its text (a rule; Codex: a blank row). */
  closes(line: string): boolean;
  /** At most this many rows of footer under the box: a marker further up is the conversation's. */
  footerRows: number;
  /** How a long paste shows in the box, collapsed (`[Pasted text #1 +29 lines]`), where it does. */
  collapsedPaste?: RegExp;
}

/** How much of a message's start must show in the box (its words squeezed of spaces: the box wraps them). */
const HEAD_CHARS = 40;

/** A box that scrolls marks it at its right edge (Codex: ↑). */
const SCROLL_MARK = /\s+[↑↓]\s*$/;

/** The text in the box at the bottom of the screen, or null where none is drawn there. */
export function inputBoxText(shape: InputBoxShape, screen: ScreenView): string | null {
  const lines = screen.lines;
  const bottom = lastContentRow(lines);
  for (let row = bottom; row >= 0; row--) {
    if (!shape.marker.test(lines[row]!)) continue;
    let end = row + 1;
    while (end <= bottom && !shape.closes(lines[end]!)) end++;
    if (bottom - end > shape.footerRows) return null;
    return lines
      .slice(row, end)
      .map((line) => line.replace(SCROLL_MARK, ''))
      .join('\n')
      .replace(shape.marker, '')
      .trim();
  }
  return null;
}

/**
 * The box still holds `message`: its start, a part of it (a box that scrolls shows the end of a long one), or
 * a collapsed paste. A placeholder ("Type your message") is none of these.
 */
export function holdsUnsentIn(shape: InputBoxShape, screen: ScreenView, message: string): boolean {
  const typed = inputBoxText(shape, screen);
  if (!typed) return false;
  if (shape.collapsedPaste?.test(typed)) return true;
  const squeeze = (text: string) => text.replace(/\s+/g, '');
  const [shown, sent] = [squeeze(typed), squeeze(message)];
  const head = sent.slice(0, HEAD_CHARS);
  return shown.includes(head) || (shown.length >= head.length && sent.includes(shown));
}
