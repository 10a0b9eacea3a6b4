/**
 * Text a person sends to an agent (an answer in words, a chat message) is text: line breaks and tabs, nothing
 * a terminal would act on. Control characters (Ctrl-C, Ctrl-D, Ctrl-Z, ESC sequences, OSC strings, C1
 * controls, DEL) are refused, never passed through or silently dropped: the sender learns what to fix.
 */

/** C0 controls except tab (\t) and line feed (\n), DEL, and the C1 block. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Unicode that reorders or hides what a person reads (bidi overrides and isolates), refused the same way. */
const HIDDEN_ORDER = /[\u202a-\u202e\u2066-\u2069]/;

/** Windows and old Mac line ends become plain newlines before anything is checked or typed. */
export function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Why `text` cannot be typed, or null when it is plain text (after normalizeLineEnds). */
export function textProblem(text: string): string | null {
  const normalized = normalizeLineEnds(text);
  const control = CONTROL.exec(normalized);
  if (control) {
    const code = control[0].codePointAt(0)!;
    return `an answer is text: remove the control character ${describeControl(code)} (only line breaks and tabs are allowed)`;
  }
  if (HIDDEN_ORDER.test(normalized))
    return 'an answer is text: remove the bidirectional-override characters (they hide what is typed)';
  return null;
}

const REFUSED = new RegExp(`${CONTROL.source}|${HIDDEN_ORDER.source}`);

/** The first character textProblem() refuses in `text`, or null: for a refusal that names it. */
export function refusedCharacter(text: string): string | null {
  return REFUSED.exec(normalizeLineEnds(text))?.[0] ?? null;
}

/** Removes whatever textProblem() refuses: the last line of defence where bytes are written. */
export function stripControls(text: string): string {
  return normalizeLineEnds(text)
    .replace(new RegExp(CONTROL.source, 'g'), '')
    .replace(new RegExp(HIDDEN_ORDER.source, 'g'), '');
}

function describeControl(code: number): string {
  const names: Record<number, string> = {
    0x03: 'Ctrl-C',
    0x04: 'Ctrl-D',
    0x1a: 'Ctrl-Z',
    0x1b: 'ESC',
    0x7f: 'DEL',
  };
  const hex = `\\x${code.toString(16).padStart(2, '0')}`;
  return names[code] ? `${names[code]} (${hex})` : hex;
}
