/**
 * The on-screen key bar's keys and what they send, in the encoding the program asked for (cursor keys mode),
 * and a Ctrl that applies to the next key, as a phone's keyboard has none.
 */

export type KeyName =
  | 'esc'
  | 'tab'
  | 'shift-tab'
  | 'ctrl-c'
  | 'ctrl-d'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'page-up'
  | 'page-down'
  | 'enter';

/** The key bar: the key, the text on it, and what a screen reader says (which starts with that text). */
export const KEY_BAR: Array<[KeyName, string, string | null]> = [
  ['esc', 'Esc', null],
  ['tab', 'Tab', null],
  ['shift-tab', '⇧Tab', 'Shift Tab'],
  ['ctrl-c', '^C', 'Ctrl C'],
  ['ctrl-d', '^D', 'Ctrl D'],
  ['left', '←', 'Left'],
  ['up', '↑', 'Up'],
  ['down', '↓', 'Down'],
  ['right', '→', 'Right'],
  ['page-up', 'PgUp', null],
  ['page-down', 'PgDn', null],
  ['enter', '⏎', 'Enter'],
];

const ARROWS = { up: 'A', down: 'B', right: 'C', left: 'D' } as const;

/** The bytes a key sends; `ctrl` as xterm sends Ctrl with it (arrows: CSI 1;5 X). */
export function keyBytes(name: KeyName, applicationCursor: boolean, ctrl = false): string {
  switch (name) {
    case 'esc':
      return '\x1b';
    case 'tab':
      return '\t';
    case 'shift-tab':
      return '\x1b[Z';
    case 'ctrl-c':
      return '\x03';
    case 'ctrl-d':
      return '\x04';
    case 'enter':
      return '\r';
    case 'page-up':
      return ctrl ? '\x1b[5;5~' : '\x1b[5~';
    case 'page-down':
      return ctrl ? '\x1b[6;5~' : '\x1b[6~';
    default:
      if (ctrl) return `\x1b[1;5${ARROWS[name]}`;
      return `${applicationCursor ? '\x1bO' : '\x1b['}${ARROWS[name]}`;
  }
}

/**
 * Text typed while Ctrl is on, as a terminal sends it: a letter becomes its control character (Ctrl+D is
 * 0x04), and so do @ [ \ ] ^ _ and space; other characters go as they are.
 */
export function withCtrl(text: string): string {
  const first = text[0];
  if (!first) return text;
  const code = first.toUpperCase().charCodeAt(0);
  let control: string | null = null;
  if (code >= 0x40 && code <= 0x5f) control = String.fromCharCode(code - 0x40);
  else if (first === ' ') control = '\x00';
  else if (first === '?') control = '\x7f';
  return control === null ? text : control + text.slice(1);
}
