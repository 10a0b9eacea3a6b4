import type { PromptChoice } from './events.js';

/** Pure helpers that read a rendered terminal screen (lines of text) the way a person does. */

const LEFT_EDGE = /^\s*(?:[│┃║]\s?)+/;
const RIGHT_EDGE = /(?:\s?[│┃║])+\s*$/;
/** Box-drawing lines with no text: the top, bottom or an inner frame of a dialog. */
const FRAME = /^[\s╭╮╰╯┌┐└┘─━│┃║]*$/;
const RULE = /^[\s─━═\-_╌┄]+$/;
/** `❯ 1. Yes`, `› 2. No (esc)`, `● 1. Allow once`, `  3. No`; box edges removed first. */
const OPTION = /^(\s*)(?:([❯›●>▶►➜→*])\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$/;

/** A line without the box-drawing edges of a dialog; indentation inside the box is kept. */
export function unbox(line: string): string {
  return line.replace(LEFT_EDGE, '').replace(RIGHT_EDGE, '').trimEnd();
}

export function isFrame(line: string): boolean {
  return FRAME.test(line);
}

export function isRule(line: string): boolean {
  return line.trim().length > 2 && RULE.test(line);
}

export function isBlank(line: string): boolean {
  return unbox(line).trim() === '' || FRAME.test(line);
}

/** Index of the last line that has content, or -1. */
export function lastContentRow(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (!isBlank(lines[i]!)) return i;
  return -1;
}

export interface Menu {
  choices: PromptChoice[];
  /** Row of option 1 and of the last option. */
  firstRow: number;
  lastRow: number;
  /** The highlighted option, if a cursor marks one. */
  selected?: number;
}

/**
 * The numbered menu nearest the bottom of the screen: options 1..N in order (N ≥ 2), each maybe followed by
 * an indented description, rules allowed between them. Null when there is none.
 */
export function findMenu(lines: readonly string[], maxLinesBelow = 6): Menu | null {
  const bottom = lastContentRow(lines);
  for (let row = bottom; row >= 0 && bottom - row <= maxLinesBelow + 12; row--) {
    const match = OPTION.exec(unbox(lines[row]!));
    if (!match) continue;
    const menu = menuEndingAt(lines, row);
    if (menu && contentRowsBetween(lines, menu.lastRow, bottom) <= maxLinesBelow) return menu;
  }
  return null;
}

function contentRowsBetween(lines: readonly string[], from: number, to: number): number {
  let count = 0;
  for (let i = from + 1; i <= to; i++) if (!isBlank(lines[i]!)) count++;
  return count;
}

function menuEndingAt(lines: readonly string[], lastRow: number): Menu | null {
  const found: Array<{ row: number; number: number; label: string; indent: number; marked: boolean }> = [];
  let expected: number | null = null;
  for (let row = lastRow; row >= 0; row--) {
    const text = unbox(lines[row]!);
    const match = OPTION.exec(text);
    if (match) {
      const number = Number(match[3]);
      if (expected !== null && number !== expected) return null;
      found.unshift({
        row,
        number,
        label: match[4]!,
        indent: match[1]!.length + (match[2] ? 2 : 0),
        marked: Boolean(match[2]),
      });
      if (number === 1) break;
      expected = number - 1;
      continue;
    }
    // Between options: descriptions, rules and blank lines are allowed; anything else ends the search.
    if (expected === null) return null;
    if (!(isBlank(lines[row]!) || isRule(text) || /^\s{2,}\S/.test(text))) return null;
  }
  if (found.length < 2 || found[0]!.number !== 1) return null;
  const choices = found.map((option, i) => {
    const next = found[i + 1]?.row ?? option.row + 1 + countDescriptionRows(lines, option.row);
    const description = descriptionBetween(lines, option.row + 1, next, option.indent);
    return description
      ? { number: option.number, label: option.label, description }
      : { number: option.number, label: option.label };
  });
  const selected = found.find((o) => o.marked)?.number;
  const menu: Menu = { choices, firstRow: found[0]!.row, lastRow: found.at(-1)!.row };
  if (selected !== undefined) menu.selected = selected;
  return menu;
}

function countDescriptionRows(lines: readonly string[], row: number): number {
  const optionText = unbox(lines[row]!);
  const indent = (OPTION.exec(optionText)?.[1]?.length ?? 0) + 2;
  let count = 0;
  for (let i = row + 1; i < lines.length; i++) {
    const text = unbox(lines[i]!);
    if (OPTION.test(text) || isBlank(lines[i]!) || !text.startsWith(' '.repeat(indent + 1))) break;
    count++;
  }
  return count;
}

function descriptionBetween(
  lines: readonly string[],
  from: number,
  to: number,
  indent: number,
): string | undefined {
  const parts: string[] = [];
  for (let i = from; i < to && i < lines.length; i++) {
    const text = unbox(lines[i]!);
    if (isRule(text) || isBlank(lines[i]!)) continue;
    const leading = text.length - text.trimStart().length;
    if (leading > indent) parts.push(text.trim());
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** Removes the common indentation of a block of lines, drops box edges and trailing blank lines. */
export function dedent(lines: readonly string[]): string {
  const clean = lines.filter((l) => !isFrame(l) || !l.trim()).map((l) => unbox(l));
  while (clean.length && !clean[0]!.trim()) clean.shift();
  while (clean.length && !clean.at(-1)!.trim()) clean.pop();
  const indents = clean.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length);
  const common = indents.length ? Math.min(...indents) : 0;
  return clean.map((l) => l.slice(common)).join('\n');
}

/**
 * Text as compared with what a screen shows of it: without spaces and line breaks (a screen wraps a line,
 * indents its continuation and pads it).
 */
export function withoutSpaces(text: string): string {
  return text.replace(/\s+/g, '');
}

/** Row index of the last line matching `pattern` at or above `from`, or -1. */
export function findRowAbove(lines: readonly string[], pattern: RegExp, from = lines.length - 1): number {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) if (pattern.test(lines[i]!)) return i;
  return -1;
}
