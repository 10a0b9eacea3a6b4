import { stripControls } from '../../core/answer-text.js';

/** How text typed on someone's behalf becomes bytes for a terminal application. */

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export interface EncodedInput {
  /** Written first: the text itself. */
  body: string;
  /** Written separately, after a short pause: some TUIs (Claude Code) act on Enter before the text lands. */
  submit: string;
}

export class MultilineRefused extends Error {
  override name = 'MultilineRefused';
  constructor() {
    super('this program reads one line at a time: send the text without line breaks');
  }
}

/**
 * Text with line breaks or tabs goes in as one bracketed paste when the application enabled it (so a newline
 * never submits early and a tab never completes); a program without bracketed paste gets single lines only
 * (`lineByLine` allows lines separated by Enter, for a person's chat message to a shell). Control characters
 * never reach the terminal: they were refused earlier, and are removed here too, so no paste marker can be
 * rebuilt from the text.
 */
export function encodeTextInput(
  text: string,
  options: { bracketedPaste: boolean; submit: boolean; lineByLine?: boolean },
): EncodedInput {
  const clean = stripControls(text);
  const special = /[\n\t]/.test(clean);
  let body: string;
  if (special && options.bracketedPaste) {
    body = PASTE_START + clean + PASTE_END;
  } else if (clean.includes('\n') && !options.lineByLine) {
    throw new MultilineRefused();
  } else {
    body = clean.replace(/\n/g, '\r');
  }
  return { body, submit: options.submit ? '\r' : '' };
}
