/** How text typed on someone's behalf becomes bytes for a terminal application. */

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export interface EncodedInput {
  /** Written first: the text itself. */
  body: string;
  /** Written separately, after a short pause: some TUIs (Claude Code) act on Enter before the text lands. */
  submit: string;
}

/**
 * Multi-line text goes in as one bracketed paste when the application enabled it (so newlines do not submit
 * early), else as lines separated by carriage returns. Bytes that would end a paste early are removed.
 */
export function encodeTextInput(
  text: string,
  options: { bracketedPaste: boolean; submit: boolean },
): EncodedInput {
  const normalized = text.replace(/\r\n?/g, '\n');
  const multiline = normalized.includes('\n');
  let body: string;
  if (multiline && options.bracketedPaste) {
    body = PASTE_START + normalized.replaceAll(PASTE_END, '').replaceAll(PASTE_START, '') + PASTE_END;
  } else {
    body = normalized.replace(/\n/g, '\r');
  }
  return { body, submit: options.submit ? '\r' : '' };
}
